import assert from "node:assert/strict";
import {
  type ApiClient,
  ApiError,
  type ApiRequest,
  ApiUnavailableError,
  runReflector,
  type WatchEvent,
  type WatchOptions,
} from "../../src/apiclient/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";

interface Obj {
  metadata: { name: string; resourceVersion: string };
}
const obj = (name: string, rv: string): Obj => ({ metadata: { name, resourceVersion: rv } });

type Script = { list?: () => unknown; watch?: () => WatchEvent<Obj>[] | Error };

/** An ApiClient that answers from scripts, one per call, and records the queries. */
class ScriptedClient implements ApiClient {
  readonly server = "https://fake";
  lists: Array<() => unknown> = [];
  watches: Array<() => WatchEvent<Obj>[] | Error> = [];
  calls: string[] = [];
  request<T>(req: ApiRequest): Promise<T> {
    this.calls.push(`list rv=${req.query?.resourceVersion}`);
    const next = this.lists.shift();
    if (!next) return new Promise(() => {}) as Promise<T>; // hangs: the test is over
    try {
      return Promise.resolve(next() as T);
    } catch (e) {
      return Promise.reject(e);
    }
  }
  async *watch<T>(_path: string, opts: WatchOptions): AsyncIterable<WatchEvent<T>> {
    this.calls.push(`watch rv=${opts.query?.resourceVersion}`);
    const next = this.watches.shift();
    if (!next) {
      await new Promise<void>((r) => opts.signal.addEventListener("abort", () => r()));
      return;
    }
    const events = next();
    if (events instanceof Error) throw events;
    for (const e of events) yield e as WatchEvent<T>;
  }
  close() {}
}

async function settle() {
  for (let i = 0; i < 30; i++) await Promise.resolve();
}

function start(client: ScriptedClient, clock = new FakeClock()) {
  const lists: string[][] = [];
  const events: string[] = [];
  const ac = new AbortController();
  const done = runReflector<Obj>({
    client,
    path: "/api/v1/pods",
    fieldSelector: "spec.nodeName=n1",
    clock,
    logger: nullLogger,
    onList: (items, rv) => lists.push([rv, ...items.map((i) => i.metadata.name)]),
    onEvent: (type, o) => events.push(`${type} ${o.metadata.name}`),
    watchTimeoutSeconds: () => 300,
  }, { signal: ac.signal });
  return { lists, events, clock, stop: async () => (ac.abort(), await done) };
}

Deno.test("reflector lists, watches from the list's version and resumes after bookmarks", async () => {
  const client = new ScriptedClient();
  client.lists.push(() => ({ metadata: { resourceVersion: "10" }, items: [obj("a", "9")] }));
  client.watches.push(() => [
    { type: "ADDED", object: obj("b", "11") },
    { type: "BOOKMARK", object: obj("", "15") },
  ]);
  client.watches.push(() => [{ type: "DELETED", object: obj("a", "16") }]);
  const r = start(client);
  await settle();
  assert.deepEqual(r.lists, [["10", "a"]]);
  assert.deepEqual(r.events, ["ADDED b", "DELETED a"]);
  // The second watch resumed from the bookmark, the third from the last event; no relist.
  assert.deepEqual(client.calls, ["list rv=0", "watch rv=10", "watch rv=15", "watch rv=16"]);
  await r.stop();
});

Deno.test("reflector re-lists (consistently) on 410 Gone and on an ERROR event", async () => {
  const client = new ScriptedClient();
  client.lists.push(() => ({ metadata: { resourceVersion: "10" }, items: [] }));
  client.watches.push(() => new ApiError(410, "Expired", "too old resource version"));
  client.lists.push(() => ({ metadata: { resourceVersion: "20" }, items: [obj("x", "19")] }));
  client.watches.push(() => [
    { type: "ERROR", object: { code: 410 } as unknown as Obj },
  ]);
  client.lists.push(() => ({ metadata: { resourceVersion: "30" }, items: [] }));
  const r = start(client);
  await settle();
  await r.clock.advance(1000);
  await settle();
  await r.clock.advance(2000);
  await settle();
  assert.deepEqual(client.calls, [
    "list rv=0",
    "watch rv=10",
    "list rv=",
    "watch rv=20",
    "list rv=",
    "watch rv=30",
  ]);
  assert.deepEqual(r.lists, [["10"], ["20", "x"], ["30"]]);
  await r.stop();
});

Deno.test("reflector backs off while the API server is unreachable, touching nothing", async () => {
  const client = new ScriptedClient();
  const down = () => {
    throw new ApiUnavailableError("connection refused");
  };
  client.lists.push(down, down, down);
  client.lists.push(() => ({ metadata: { resourceVersion: "5" }, items: [obj("a", "4")] }));
  const r = start(client);
  await settle();
  assert.deepEqual(r.lists, [], "no list delivered while unreachable");
  await r.clock.advance(900); // 800 ms (+ up to 10 % jitter)
  await settle();
  assert.equal(client.calls.length, 2);
  await r.clock.advance(1800); // then 1.6 s
  await settle();
  assert.equal(client.calls.length, 3);
  await r.clock.advance(3600); // then 3.2 s
  await settle();
  assert.deepEqual(r.lists, [["5", "a"]]);
  assert.deepEqual(client.calls.slice(-2), ["list rv=", "watch rv=5"]);
  await r.stop();
});

Deno.test("reflector backs off and re-lists after a watch that closes at once with no events", async () => {
  const client = new ScriptedClient();
  client.lists.push(() => ({ metadata: { resourceVersion: "10" }, items: [] }));
  client.lists.push(() => ({ metadata: { resourceVersion: "20" }, items: [] }));
  // Every watch ends at once, as a misbehaving proxy's would.
  for (let i = 0; i < 1_000; i++) client.watches.push(() => []);
  const r = start(client);
  await settle();
  // One short watch, then the back-off: not a tight loop of reopened watches.
  assert.deepEqual(client.calls, ["list rv=0", "watch rv=10"]);
  await r.clock.advance(900); // 800 ms (+ up to 10 % jitter)
  await settle();
  assert.deepEqual(client.calls, ["list rv=0", "watch rv=10", "list rv=", "watch rv=20"]);
  // The back-off keeps growing while every watch is short: 1.6 s, then 3.2 s.
  for (let i = 0; i < 2; i++) {
    client.lists.push(() => ({ metadata: { resourceVersion: "30" }, items: [] }));
  }
  await r.clock.advance(1_500);
  await settle();
  assert.equal(client.calls.length, 4, "not yet: the second wait is 1.6 s");
  await r.clock.advance(300);
  await settle();
  assert.equal(client.calls.length, 6);
  // The third wait began when the second watch closed (1.6–1.76 s in), not at 1.8 s.
  await r.clock.advance(2_900);
  await settle();
  assert.equal(client.calls.length, 6, "not yet: the third wait is 3.2 s");
  await r.clock.advance(700);
  await settle();
  assert.equal(client.calls.length, 8);
  await r.stop();
});

Deno.test("reflector reopens a short watch that saw a bookmark, and one that lasted a second", async () => {
  const client = new ScriptedClient();
  client.lists.push(() => ({ metadata: { resourceVersion: "10" }, items: [] }));
  client.watches.push(() => [{ type: "BOOKMARK", object: obj("", "12") }]);
  const r = start(client);
  client.watches.push(() => {
    // An empty watch that lasted a full second is a normal close (its server-side timeout).
    void r.clock.advance(1_000);
    return [];
  });
  await settle();
  assert.deepEqual(client.calls, ["list rv=0", "watch rv=10", "watch rv=12", "watch rv=12"]);
  await r.stop();
});
