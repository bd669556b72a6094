/**
 * Small process helpers for the dev/test infrastructure. Private to tests/support.
 */
import { DenoletError } from "../../src/util/errors.ts";

/** A step of the dev environment set-up (packages, containerd, images, agent) failed. */
export class DevSetupError extends DenoletError {}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Bytes written to the command's stdin. */
  stdin?: Uint8Array;
  signal?: AbortSignal;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

const decoder = new TextDecoder();

/** Runs `cmd args...` to completion and returns its exit code and output; never throws on exit code. */
export async function tryRun(
  cmd: string,
  args: string[],
  opts: RunOptions = {},
): Promise<RunResult> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(cmd, {
      args,
      cwd: opts.cwd,
      env: opts.env,
      stdin: opts.stdin ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
      signal: opts.signal,
    }).spawn();
  } catch (err) {
    throw new DevSetupError(`Cannot run ${cmd}: ${(err as Error).message}`, { cause: err });
  }
  if (opts.stdin) {
    const w = child.stdin.getWriter();
    await w.write(opts.stdin);
    await w.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** Like `tryRun` but throws a `DevSetupError` carrying stderr when the command fails. */
export async function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<string> {
  const res = await tryRun(cmd, args, opts);
  if (res.code !== 0) {
    const detail = (res.stderr || res.stdout).trim().split("\n").slice(-20).join("\n");
    throw new DevSetupError(`${cmd} ${args.join(" ")} exited with ${res.code}:\n${detail}`);
  }
  return res.stdout;
}

/** True when `name` resolves to an executable on PATH (or is an executable path). */
export async function hasCommand(name: string): Promise<boolean> {
  const res = await tryRun("sh", ["-c", 'command -v "$0" >/dev/null 2>&1', name]);
  return res.code === 0;
}

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** Hex sha256 of `data`. */
export async function sha256Hex(data: Uint8Array): Promise<string> {
  const buf = await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
}
