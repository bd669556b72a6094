import assert from "node:assert/strict";
import { realClock } from "../../src/util/clock.ts";

Deno.test("realClock.sleep beyond setTimeout's 24.8-day limit waits instead of firing at once", async () => {
  const ac = new AbortController();
  let settled: "resolved" | "rejected" | undefined;
  const sleeping = realClock.sleep(300 * 24 * 3_600_000, { signal: ac.signal }).then(
    () => void (settled = "resolved"),
    () => void (settled = "rejected"),
  );
  // An overflowing timer fires on the next turn; give it several.
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(settled, undefined);
  ac.abort();
  await sleeping;
  assert.equal(settled, "rejected", "aborting still ends it, clearing the timer");
});
