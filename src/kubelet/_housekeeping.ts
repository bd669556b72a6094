/**
 * Housekeeping (the kubelet's HandlePodCleanups): runtime liveness, and removal of what no source
 * asks for any more — pods the runtime still runs, their directories and cgroups.
 */
import { isLive } from "./_runtime_view.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import type { HealthCheck, KubeletDeps } from "./types.ts";
import type { PodWorkers } from "./pod_workers.ts";

/** Calls the runtime's cheap liveness check and returns the new `runtime` health, logging changes. */
export async function checkRuntime(
  deps: Pick<KubeletDeps, "checkRuntime" | "logger">,
  previous: HealthCheck,
  signal: AbortSignal,
): Promise<HealthCheck> {
  try {
    await deps.checkRuntime({ signal });
    if (!previous.ok) deps.logger.info("Container runtime is reachable");
    return { name: "runtime", ok: true };
  } catch (e) {
    if (previous.ok) deps.logger.error("Container runtime is not reachable", { err: e });
    return { name: "runtime", ok: false, message: String((e as Error)?.message ?? e) };
  }
}

/**
 * Kills and removes runtime pods no source asks for (restart safety: an agent that comes back
 * after a manifest was removed), then pod directories and cgroups nothing owns. Call only once
 * every source has delivered its first snapshot.
 */
export async function cleanupOrphans(
  deps: Pick<KubeletDeps, "pleg" | "podDirs" | "podCgroups" | "logger" | "clock">,
  ctx: { desired: Set<string>; workers: PodWorkers; signal: AbortSignal },
): Promise<void> {
  const { desired, workers, signal } = ctx;
  // The PLEG's last relist is at most a second old and costs no CRI call.
  const running = deps.pleg.runningPods();
  const inRuntime = new Set(running.map((p) => p.uid));
  const owned = (uid: string) => desired.has(uid) || inRuntime.has(uid) || workers.isActive(uid);
  if (deps.podDirs) {
    for (const uid of await deps.podDirs.list()) {
      if (owned(uid)) continue;
      const failures = failuresOf(deps);
      try {
        await deps.podDirs.remove(uid, { signal });
        failures.clear(uid);
        deps.logger.info("Removed orphaned pod directory", { uid });
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        // Retried every round (2 s); a lasting failure is worth a line, not one per round.
        failures.warn(uid, "Cannot remove orphaned pod directory", { uid, err: e });
      }
    }
  }
  if (deps.podCgroups) {
    await deps.podCgroups.cleanupOrphans(
      new Set([...desired, ...inRuntime, ...workers.activeUids()]),
    );
  }
  for (const rp of running) {
    if (desired.has(rp.uid) || workers.isActive(rp.uid)) continue;
    const live = isLive(rp);
    deps.logger.info("Cleaning up pod that no source asks for", {
      pod: `${rp.namespace}/${rp.name}`,
      uid: rp.uid,
      running: live,
    });
    workers.updatePod({ type: "kill", runningPod: rp, removed: true });
  }
}

/**
 * One repeated-failure log per kubelet: the sync loop passes the same deps object on every
 * round, so the pacing state lives as long as the kubelet and needs no field of its own there.
 */
const failureLogs = new WeakMap<object, RepeatedFailures>();

function failuresOf(deps: Pick<KubeletDeps, "logger" | "clock">): RepeatedFailures {
  let f = failureLogs.get(deps);
  if (!f) {
    f = new RepeatedFailures(deps.logger, { clock: deps.clock });
    failureLogs.set(deps, f);
  }
  return f;
}
