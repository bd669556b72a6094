import assert from "node:assert/strict";
import { guardUnhandledRejections } from "../main.ts";
import { createLogger } from "../src/util/log.ts";
import { realClock } from "../src/util/clock.ts";

Deno.test("main's guard logs an unhandled rejection instead of ending the process", async () => {
  const lines: string[] = [];
  const remove = guardUnhandledRejections(createLogger({ write: (l) => lines.push(l) }));
  try {
    // Deliberately left unhandled: without the guard, Deno fails this test (and exits an agent).
    void Promise.reject(new Error("a bug somewhere"));
    await realClock.sleep(0);
    await realClock.sleep(0);
  } finally {
    remove();
  }
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.match(lines[0], /level=error msg="Unhandled promise rejection; carrying on"/);
  assert.match(lines[0], /a bug somewhere/);
});
