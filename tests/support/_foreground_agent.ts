/**
 * Runs the agent from source in the foreground for the demos: its output is the terminal's, and
 * SIGINT/SIGTERM/SIGHUP sent to the demo reach it (Ctrl-C reaches the whole foreground process
 * group anyway; forwarding covers `kill <pid>`). Resolves with its exit code.
 */
import { AGENT_V8_FLAGS } from "../../src/build_info/mod.ts";

const MAIN_TS = new URL("../../main.ts", import.meta.url).pathname;
const FORWARDED: Deno.Signal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export async function runAgentInForeground(
  args: string[],
  log: (s: string) => void,
): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `--v8-flags=${AGENT_V8_FLAGS}`, MAIN_TS, ...args],
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const forward = (sig: Deno.Signal) => () => {
    try {
      child.kill(sig);
    } catch (err) {
      log(`cannot forward ${sig}: ${(err as Error).message}`);
    }
  };
  const handlers = FORWARDED.map((sig) => [sig, forward(sig)] as const);
  for (const [sig, h] of handlers) Deno.addSignalListener(sig, h);
  const status = await child.status;
  for (const [sig, h] of handlers) Deno.removeSignalListener(sig, h);
  return status.code;
}
