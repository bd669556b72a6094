/**
 * Runs a long-lived loop (a source, the PLEG) until the signal aborts. One that throws or
 * returns early is a bug, not a reason to stop the agent: it is logged and started again after a
 * pause that doubles from 1 s up to 30 s. Never rejects.
 */
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";

const FIRST_PAUSE_MS = 1000;
const MAX_PAUSE_MS = 30_000;

export async function keepRunning(
  what: string,
  run: (signal: AbortSignal) => Promise<void>,
  opts: { signal: AbortSignal; clock: Clock; logger: Logger },
): Promise<void> {
  const { signal, clock, logger } = opts;
  let pauseMs = FIRST_PAUSE_MS;
  while (!signal.aborted) {
    try {
      await run(signal);
      if (signal.aborted) return;
      logger.error("Loop ended unexpectedly; starting it again", { loop: what });
    } catch (e) {
      if (signal.aborted) return;
      logger.error("Loop failed; starting it again", { loop: what, err: e, pauseMs });
    }
    try {
      await clock.sleep(pauseMs, { signal });
    } catch {
      return; // aborted
    }
    pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
  }
}
