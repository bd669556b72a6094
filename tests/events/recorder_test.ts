import assert from "node:assert/strict";
import type { ApiClient, ApiRequest } from "../../src/apiclient/mod.ts";
import { ApiError } from "../../src/apiclient/mod.ts";
import { createApiEventRecorder, podObjectRef } from "../../src/events/mod.ts";
import { EventCorrelator } from "../../src/events/_correlator.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";

const pod = { metadata: { name: "web", namespace: "shop", uid: "u1" } };
const ref = podObjectRef(pod, { name: "app" });

Deno.test("correlator: a repeat bumps the count of the existing event", () => {
  const c = new EventCorrelator(new FakeClock());
  const e = { ref, type: "Warning" as const, reason: "BackOff", message: "Back-off restarting" };
  const first = c.correlate(e);
  assert.equal(first.action, "create");
  if (first.action !== "create") return;
  c.created(first.key, "web.1");
  const again = c.correlate(e);
  assert.deepEqual(again, {
    action: "patch",
    key: first.key,
    message: "Back-off restarting",
    count: 2,
    name: "web.1",
  });
});

Deno.test("correlator: more than 10 messages for one reason within 10 min are combined", () => {
  const c = new EventCorrelator(new FakeClock());
  const out = Array.from(
    { length: 11 },
    (_, i) => c.correlate({ ref, type: "Warning", reason: "Failed", message: `error ${i}` }),
  );
  assert.equal(out[8].action === "create" && out[8].message, "error 8");
  assert.equal(
    out[9].action === "create" && out[9].message,
    "(combined from similar events): error 9",
  );
});

Deno.test("correlator: the spam filter allows 25 at once, then one per 5 minutes", async () => {
  const clock = new FakeClock();
  const c = new EventCorrelator(clock);
  const e = { ref, type: "Normal" as const, reason: "Pulled", message: "same" };
  const actions = Array.from({ length: 30 }, () => c.correlate(e).action);
  assert.equal(actions.filter((a) => a !== "drop").length, 25);
  await clock.advance(300_000);
  assert.notEqual(c.correlate(e).action, "drop");
  assert.equal(c.correlate(e).action, "drop");
});

class RecordingClient implements ApiClient {
  readonly server = "https://fake";
  requests: ApiRequest[] = [];
  failPatch404 = false;
  request<T>(req: ApiRequest): Promise<T> {
    this.requests.push(req);
    if (req.method === "PATCH" && this.failPatch404) {
      return Promise.reject(new ApiError(404, "NotFound", "gone"));
    }
    return Promise.resolve({} as T);
  }
  watch(): AsyncIterable<never> {
    throw new Error("not used");
  }
  close() {}
}

Deno.test("the API recorder creates events as the kubelet does and patches repeats", async () => {
  const clock = new FakeClock(Date.UTC(2026, 10, 23, 12, 0, 0));
  const client = new RecordingClient();
  const rec = createApiEventRecorder({ client, nodeName: "n1", clock, logger: nullLogger });
  const ac = new AbortController();
  const done = rec.run({ signal: ac.signal });
  rec.event(ref, "Normal", "Pulled", 'Container image "busybox" already present on machine');
  await clock.advance(0);
  const post = client.requests[0];
  assert.equal(post.method, "POST");
  assert.equal(post.path, "/api/v1/namespaces/shop/events");
  const ev = post.body as Record<string, unknown>;
  assert.deepEqual(ev.involvedObject, {
    kind: "Pod",
    apiVersion: "v1",
    namespace: "shop",
    name: "web",
    uid: "u1",
    fieldPath: "spec.containers{app}",
  });
  assert.deepEqual(ev.source, { component: "kubelet", host: "n1" });
  assert.equal(ev.reason, "Pulled");
  assert.equal(ev.type, "Normal");
  assert.match((ev.metadata as { name: string }).name, /^web\.[0-9a-f]+$/);
  await clock.advance(1000);
  rec.event(ref, "Normal", "Pulled", 'Container image "busybox" already present on machine');
  await clock.advance(0);
  const patch = client.requests[1];
  assert.equal(patch.method, "PATCH");
  assert.equal(
    patch.path,
    `/api/v1/namespaces/shop/events/${(ev.metadata as { name: string }).name}`,
  );
  assert.equal((patch.body as { count: number }).count, 2);
  // An event that expired in the API is created again.
  client.failPatch404 = true;
  rec.event(ref, "Normal", "Pulled", 'Container image "busybox" already present on machine');
  await clock.advance(0);
  assert.deepEqual(client.requests.slice(2).map((r) => r.method), ["PATCH", "POST"]);
  ac.abort();
  await done;
});

Deno.test("the API recorder gives events of one object in the same millisecond distinct names", async () => {
  const client = new RecordingClient();
  const clock = new FakeClock();
  const rec = createApiEventRecorder({ client, nodeName: "n1", clock, logger: nullLogger });
  const ac = new AbortController();
  const done = rec.run({ signal: ac.signal });
  const node = { kind: "Node" as const, apiVersion: "v1", name: "n1", uid: "n1" };
  for (const reason of ["NodeHasSufficientMemory", "NodeHasNoDiskPressure"]) {
    rec.event(node, "Normal", reason, `Node n1 status is now: ${reason}`);
  }
  await clock.advance(0);
  const names = client.requests.map((r) =>
    (r.body as { metadata: { name: string } }).metadata.name
  );
  assert.equal(names.length, 2);
  assert.notEqual(names[0], names[1]);
  ac.abort();
  await done;
});

Deno.test("the API recorder leaves no abort listener behind on its signal after each wake-up", async () => {
  const client = new RecordingClient();
  const clock = new FakeClock();
  const rec = createApiEventRecorder({ client, nodeName: "n1", clock, logger: nullLogger });
  const ac = new AbortController();
  // Count the listeners the recorder itself holds on the long-lived signal.
  let listeners = 0;
  const signal = ac.signal;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (type: string, fn: EventListenerOrEventListenerObject, o?: unknown) => {
    listeners++;
    add(type, fn, o as AddEventListenerOptions);
  };
  signal.removeEventListener = (type: string, fn: EventListenerOrEventListenerObject) => {
    listeners--;
    remove(type, fn);
  };
  const done = rec.run({ signal });
  for (let i = 0; i < 50; i++) {
    rec.event(ref, "Normal", `Reason${i}`, `message ${i}`);
    await clock.advance(0);
  }
  assert.equal(client.requests.length, 50);
  assert.ok(listeners <= 1, `${listeners} listeners left on the signal`);
  ac.abort();
  await done;
});

Deno.test("the API recorder asks for its writes' answers as metadata alone", async () => {
  // The recorder reads nothing of an answer; the whole Event would come back with each write.
  const clock = new FakeClock(Date.UTC(2026, 10, 23, 12, 0, 0));
  const client = new RecordingClient();
  const rec = createApiEventRecorder({ client, nodeName: "n1", clock, logger: nullLogger });
  const ac = new AbortController();
  const done = rec.run({ signal: ac.signal });
  rec.event(ref, "Normal", "Pulled", 'Container image "busybox" already present on machine');
  await clock.advance(1000);
  rec.event(ref, "Normal", "Pulled", 'Container image "busybox" already present on machine');
  await clock.advance(0);
  assert.deepEqual(client.requests.map((r) => [r.method, r.metadataOnly]), [
    ["POST", true],
    ["PATCH", true],
  ]);
  ac.abort();
  await done;
});
