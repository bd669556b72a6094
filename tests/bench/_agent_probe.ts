/**
 * The agent's entry point (what main.ts does) plus a heap probe, for memory_breakdown.ts: every
 * second it writes `Deno.memoryUsage()` as JSON to `$DENOLET_MEM_OUT`. main.ts cannot be reused
 * as is (it runs only as the main module), so this repeats its few lines; the agent itself is
 * the same `runAgent`. With `--expose-gc` in DENO_V8_FLAGS and `DENOLET_MEM_GC=1` each sample
 * is taken after a full GC, which shows the live heap rather than the garbage V8 keeps.
 */
import { loadConfig } from "../../src/config/mod.ts";
import { runAgent } from "../../src/agent/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";

const out = Deno.env.get("DENOLET_MEM_OUT");
const forceGc = Deno.env.get("DENOLET_MEM_GC") === "1";
const gc = (globalThis as { gc?: () => void }).gc;

const loaded = await loadConfig(Deno.args);
if (loaded.kind !== "run") throw new Error(`agent probe: unexpected ${loaded.kind}`);
const logger = createLogger({ verbosity: loaded.config.verbosity });
const ac = new AbortController();
Deno.addSignalListener("SIGTERM", () => ac.abort(new Error("received SIGTERM")));
if (out) {
  realClock.every(1000, () => {
    if (forceGc && gc) gc();
    Deno.writeTextFileSync(out, JSON.stringify(Deno.memoryUsage()));
  }, { signal: ac.signal });
}
await runAgent(loaded.config, { signal: ac.signal, logger });
Deno.exit(0);
