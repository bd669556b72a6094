/** Waiting in the certificate tests, where real I/O (keys, files) and a fake clock interleave. */
import type { FakeClock } from "../../src/util/clock.ts";

/** Lets pending I/O finish (a macrotask turn each), moving the clock by `stepMs` each time. */
export async function until<T>(
  check: () => T | undefined | false,
  clock?: FakeClock,
  stepMs = 0,
): Promise<T> {
  for (let i = 0; i < 3000; i++) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 1));
    if (clock) await clock.advance(stepMs);
  }
  throw new Error("condition not reached");
}
