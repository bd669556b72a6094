import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  type ApiClient,
  type ApiRequest,
  ApiUnavailableError,
  type WatchEvent,
  type WatchOptions,
} from "../../src/apiclient/mod.ts";
import { watchReady } from "./_ready_watch.ts";

const pod = (name: string, ready: boolean, rv: string, readySince?: Date): V1Pod => ({
  metadata: { name, resourceVersion: rv },
  status: {
    phase: "Running",
    conditions: [{
      type: "Ready",
      status: ready ? "True" : "False",
      lastTransitionTime: readySince,
    }],
  },
});

/** Lists and watches answered from scripts; an unscripted watch waits for the abort. */
class Scripted implements ApiClient {
  readonly server = "https://fake";
  constructor(
    readonly lists: V1Pod[][],
    readonly watches: Array<WatchEvent<V1Pod>[] | Error>,
  ) {}
  request<T>(_req: ApiRequest): Promise<T> {
    const items = this.lists.shift() ?? [];
    return Promise.resolve({ metadata: { resourceVersion: "1" }, items } as T);
  }
  async *watch<T>(_path: string, opts: WatchOptions): AsyncIterable<WatchEvent<T>> {
    const next = this.watches.shift();
    if (!next) {
      await new Promise<void>((r) => opts.signal.addEventListener("abort", () => r()));
      return;
    }
    if (next instanceof Error) throw next;
    for (const e of next) yield e as WatchEvent<T>;
  }
  close(): void {}
}

Deno.test("watchReady: a broken watch is re-listed, and pods Ready meanwhile are counted at their transition", async () => {
  // The first watch sees b not Ready and ends; the next one breaks: the re-list sees both Ready,
  // b since 5 s ago (a's condition has no time: counted at the re-list).
  // As the API server writes it: RFC 3339, whole seconds.
  const fiveSecondsAgo = new Date(Math.floor(Date.now() / 1000) * 1000 - 5_000).toISOString()
    .replace(".000Z", "Z") as unknown as Date;
  const relisted = performance.now();
  const api = new Scripted(
    [[pod("a", false, "1")], [pod("a", true, "3"), pod("b", true, "4", fiveSecondsAgo)]],
    [[{ type: "MODIFIED", object: pod("b", false, "2") }], new ApiUnavailableError("reset")],
  );
  const stop = new AbortController();
  const w = watchReady(api, {
    namespace: "default",
    fieldSelector: "spec.nodeName=n",
    labelSelector: "bench=api",
    names: ["a", "b"],
    signal: stop.signal,
  });
  try {
    await w.all;
    assert.deepEqual([...w.ready.keys()].sort(), ["a", "b"]);
    assert.ok(w.ready.get("a")! >= relisted);
    const b = w.ready.get("b")! - relisted;
    assert.ok(b > -6_500 && b < -4_500, `b Ready ${b} ms from the re-list`);
    assert.match(w.describe(), /listed 2 times \(2 pods first seen Ready in a re-list\)/);
  } finally {
    stop.abort();
    await w.stopped;
  }
});
