/**
 * Step 2 of a sync: create the pod's sandbox (through the start gate, with the pod's runtime
 * handler) and read back its IPs.
 */
import type { PodSandboxConfig, RuntimeService } from "../cri/types.ts";
import { isKind, NotSyncedError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import type { StartGate } from "./_start_gate.ts";
import type { StepContext } from "./_sync_pod.ts";

/** Step 2: a new sandbox with its log directory; its id and IPs, or undefined on failure. */
export async function createSandbox(
  runtime: RuntimeService,
  config: PodSandboxConfig,
  ctx: StepContext & { gate?: StartGate; handler: () => string },
): Promise<{ id: string; ips: string[] } | undefined> {
  const { log, signal } = ctx;
  log.info("Creating pod sandbox", { attempt: config.metadata.attempt });
  let id: string;
  try {
    if (config.logDirectory) {
      await Deno.mkdir(config.logDirectory, { recursive: true, mode: 0o755 });
    }
    let handler: string;
    try {
      handler = ctx.handler();
    } catch (err) {
      if (!isKind(err, NotSyncedError)) throw err;
      // Waiting for the RuntimeClasses' first list: retried once it is in, without an event.
      ctx.stepFailed(err, { reason: "RuntimeClassesNotSynced" });
      return undefined;
    }
    if (handler !== "") {
      log.debug(2, "Running pod with runtime handler", { runtimeHandler: handler });
    }
    const run = () => runtime.runPodSandbox(config, handler, { signal });
    id = ctx.gate ? await ctx.gate.run(run, { signal }) : await run();
  } catch (err) {
    ctx.stepFailed(
      err,
      { reason: "CreatePodSandboxError" },
      `Failed to create pod sandbox: ${errorMessage(err)}`,
    );
    return undefined;
  }
  try {
    const st = await runtime.podSandboxStatus(id, { signal });
    const ips = [st.network?.ip, ...(st.network?.additionalIps ?? []).map((i) => i.ip)]
      .filter((ip): ip is string => !!ip);
    log.info("Created pod sandbox", { sandboxId: id, ips });
    return { id, ips };
  } catch (err) {
    ctx.stepFailed(
      err,
      { reason: "CreatePodSandboxError" },
      `Unable to get pod sandbox status: ${errorMessage(err)}`,
    );
    return undefined;
  }
}
