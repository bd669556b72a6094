import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { writeFlushed } from "../../src/server/_socket_streams.ts";

/** A response whose writes complete when the test says so. */
class FakeResponse extends EventEmitter {
  written: string[] = [];
  pending: (() => void)[] = [];
  write(chunk: Uint8Array, cb: () => void): boolean {
    this.written.push(new TextDecoder().decode(chunk));
    this.pending.push(cb);
    return true;
  }
}

/** Whether `p` settles while only microtasks run. */
async function settlesNow(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(() => settled = true, () => settled = true);
  for (let i = 0; i < 100 && !settled; i++) await Promise.resolve();
  return settled;
}

Deno.test("writeFlushed resolves once the chunk went to the socket, not when it was buffered", async () => {
  // The end of a chunked body must not share the data's write (a Go reader then drops the data).
  const res = new FakeResponse();
  const w = writeFlushed(res as unknown as ServerResponse, new TextEncoder().encode("alive\n"));
  assert.deepEqual(res.written, ["alive\n"]);
  assert.equal(await settlesNow(w), false);
  res.pending[0]();
  await w;
  assert.equal(res.listenerCount("close"), 0);
});

Deno.test("writeFlushed resolves when the response closes before the write completes", async () => {
  const res = new FakeResponse();
  const w = writeFlushed(res as unknown as ServerResponse, new Uint8Array([1]));
  res.emit("close");
  await w;
  res.pending[0](); // a late callback changes nothing
  assert.equal(res.listenerCount("close"), 0);
});
