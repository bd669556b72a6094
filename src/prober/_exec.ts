/** exec probes through CRI ExecSync (upstream pkg/probe/exec). */
import type { V1EnvVar } from "@kubernetes/client-node";
import type { RuntimeService } from "../cri/types.ts";
import { expandVars } from "../util/expand_vars.ts";
import type { ProbeOutput } from "./_prober.ts";
import { ProbeError } from "./_errors.ts";

/** Upstream maxReadLength: the output kept from a probe command. */
export const MAX_OUTPUT_BYTES = 10 * 1024;

/**
 * The runtime enforces `timeoutSeconds` itself and answers DEADLINE_EXCEEDED; our own deadline
 * is a little later so that answer normally wins, and only a hung runtime is cut off locally.
 */
const LOCAL_DEADLINE_SLACK_MS = 1000;

/** gRPC status DEADLINE_EXCEEDED, which is how the kubelet recognises an exec timeout. */
const GRPC_DEADLINE_EXCEEDED = 4;

const decoder = new TextDecoder();

/**
 * The command with `$(VAR)` expanded from the container's literal env values only (upstream
 * ExpandContainerCommandOnlyStatic): a `valueFrom` entry expands to "", an unknown name stays
 * as written. A command without `$` is returned as is, so most probe runs allocate nothing.
 */
export function staticCommand(command: string[], env: V1EnvVar[] | undefined): string[] {
  let i = 0;
  while (i < command.length && !command[i].includes("$")) i++;
  if (i === command.length) return command;
  // The last entry of a name wins, as in upstream's map.
  const lookup = (name: string): string | undefined => {
    if (env === undefined) return undefined;
    for (let j = env.length - 1; j >= 0; j--) if (env[j].name === name) return env[j].value ?? "";
    return undefined;
  };
  return command.map((arg) => expandVars(arg, lookup));
}

/** Exit 0 = success, any other exit code = failure with the combined output; a timeout fails. */
export async function execProbe(
  runtime: Pick<RuntimeService, "execSync">,
  containerId: string,
  opts: { cmd: string[]; timeoutMs: number; signal: AbortSignal },
): Promise<ProbeOutput> {
  const deadline = AbortSignal.timeout(opts.timeoutMs + LOCAL_DEADLINE_SLACK_MS);
  const signal = AbortSignal.any([opts.signal, deadline]);
  const seconds = Math.ceil(opts.timeoutMs / 1000);
  try {
    const res = await runtime.execSync(containerId, opts.cmd, seconds, {
      signal,
      timeoutMs: opts.timeoutMs + LOCAL_DEADLINE_SLACK_MS,
    });
    const output = combined(res.stdout, res.stderr);
    return { result: res.exitCode === 0 ? "success" : "failure", output };
  } catch (err) {
    if (opts.signal.aborted) throw opts.signal.reason;
    if (deadline.aborted || isDeadlineExceeded(err)) {
      return {
        result: "failure",
        output: `command ${JSON.stringify(opts.cmd.join(" "))} timed out`,
      };
    }
    throw new ProbeError(`Cannot run exec probe in container ${containerId}`, { cause: err });
  }
}

function combined(stdout: Uint8Array, stderr: Uint8Array): string {
  const out = stdout.subarray(0, MAX_OUTPUT_BYTES);
  const err = stderr.subarray(0, Math.max(0, MAX_OUTPUT_BYTES - out.length));
  if (err.length === 0) return decoder.decode(out);
  return decoder.decode(out) + decoder.decode(err);
}

function isDeadlineExceeded(err: unknown): boolean {
  let cur: unknown = err;
  for (let i = 0; cur !== null && typeof cur === "object" && i < 16; i++) {
    if ((cur as { code?: unknown }).code === GRPC_DEADLINE_EXCEEDED) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}
