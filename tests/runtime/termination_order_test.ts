import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { CallOptions } from "../../src/cri/types.ts";
import { containerAnnotations, containerLabels } from "../../src/runtime/_labels.ts";
import { killPod } from "../../src/runtime/_kill.ts";
import type { RunningPod } from "../../src/runtime/types.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";

const S = 1000;
const IMAGE = "busybox:1.36";

/** A runtime whose containers take until `release(name)` to stop; stop signals are recorded. */
class SlowStopRuntime extends FakeRuntime {
  readonly signalled: { name: string; at: number; grace: number }[] = [];
  readonly #gates = new Map<string, PromiseWithResolvers<void>>();
  readonly #clock: FakeClock;

  constructor(clock: FakeClock) {
    super({ clock });
    this.#clock = clock;
  }

  release(name: string): void {
    this.#gate(name).resolve();
  }

  override async stopContainer(id: string, timeoutSeconds: number, opts?: CallOptions) {
    const name = this.containers.get(id)?.status.metadata.name ?? id;
    this.signalled.push({ name, at: this.#clock.now(), grace: timeoutSeconds });
    // Like the real runtime: the container gets the grace period, then SIGKILL.
    const stopped = new AbortController();
    const killed = this.#clock.sleep(timeoutSeconds * S, { signal: stopped.signal }).then(
      () => this.release(name),
      () => undefined, // it stopped in time
    );
    await this.#gate(name).promise;
    stopped.abort();
    await killed;
    return super.stopContainer(id, timeoutSeconds, opts);
  }

  #gate(name: string): PromiseWithResolvers<void> {
    let g = this.#gates.get(name);
    if (!g) {
      g = Promise.withResolvers<void>();
      this.#gates.set(name, g);
    }
    return g;
  }
}

function sidecar(name: string, over: Partial<V1Container> = {}): V1Container {
  return { name, image: IMAGE, restartPolicy: "Always", ...over };
}

function makePod(spec: Partial<NonNullable<V1Pod["spec"]>>): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "uid-1" },
    spec: { terminationGracePeriodSeconds: 30, containers: [], ...spec },
  };
}

/** Starts every container of `pod` named in `names` in one sandbox; the running pod. */
async function start(cri: FakeRuntime, pod: V1Pod, names: string[]): Promise<RunningPod> {
  cri.addImage(IMAGE);
  const m = pod.metadata!;
  const sandboxConfig = {
    metadata: { name: m.name!, namespace: m.namespace!, uid: m.uid!, attempt: 0 },
    labels: { "io.kubernetes.pod.uid": m.uid! },
  };
  const sandboxId = await cri.runPodSandbox(sandboxConfig);
  const running: RunningPod = {
    uid: m.uid!,
    name: m.name!,
    namespace: m.namespace!,
    sandboxes: [{ id: sandboxId, state: "ready", createdAt: 0 }],
    containers: [],
  };
  const all = [...(pod.spec!.initContainers ?? []), ...pod.spec!.containers];
  for (const name of names) {
    const spec = all.find((c) => c.name === name)!;
    const id = await cri.createContainer(sandboxId, {
      metadata: { name, attempt: 0 },
      image: { image: IMAGE },
      labels: containerLabels(pod, spec),
      annotations: containerAnnotations(pod, spec, 0),
    }, sandboxConfig);
    await cri.startContainer(id);
    running.containers.push({ id, name, sandboxId, state: "running", createdAt: 0 });
  }
  return running;
}

async function settle(clock: FakeClock): Promise<void> {
  for (let i = 0; i < 10; i++) await clock.advance(0);
}

const names = (cri: SlowStopRuntime) => cri.signalled.map((s) => s.name);

Deno.test("killPod: app containers stop first, then the sidecars from the last to the first", async () => {
  const clock = new FakeClock();
  const cri = new SlowStopRuntime(clock);
  const pod = makePod({
    initContainers: [sidecar("s1"), { name: "init", image: IMAGE }, sidecar("s2")],
    containers: [{ name: "a", image: IMAGE }, { name: "b", image: IMAGE }],
  });
  const running = await start(cri, pod, ["s1", "s2", "a", "b"]);
  const deps = { runtime: cri, logger: nullLogger, runtimeRequestTimeoutMs: 10 * S, clock };
  const done = killPod(deps, pod, running, {});
  await settle(clock);
  assert.deepEqual(names(cri).sort(), ["a", "b"], "the app containers get the signal at once");

  await clock.advance(3 * S);
  cri.release("a");
  await settle(clock);
  assert.deepEqual(names(cri).sort(), ["a", "b"], "s2 waits for every app container");
  await clock.advance(2 * S);
  cri.release("b");
  await settle(clock);
  assert.deepEqual(names(cri), ["a", "b", "s2"]);
  await clock.advance(1 * S);
  cri.release("s2");
  await settle(clock);
  assert.deepEqual(names(cri), ["a", "b", "s2", "s1"], "the first sidecar goes last");
  cri.release("s1");
  await done;
  // The waits come off each sidecar's grace period.
  assert.deepEqual(cri.signalled.map((s) => [s.name, s.grace]), [
    ["a", 30],
    ["b", 30],
    ["s2", 25],
    ["s1", 24],
  ]);
  assert.equal(cri.callsTo("stopPodSandbox").length, 1);
});

Deno.test("killPod: a sidecar waits no longer than its grace period, then gets the minimum", async () => {
  const clock = new FakeClock();
  const cri = new SlowStopRuntime(clock);
  const pod = makePod({
    terminationGracePeriodSeconds: 10,
    initContainers: [sidecar("s1")],
    containers: [{ name: "a", image: IMAGE }],
  });
  const running = await start(cri, pod, ["s1", "a"]);
  const deps = { runtime: cri, logger: nullLogger, runtimeRequestTimeoutMs: 10 * S, clock };
  const done = killPod(deps, pod, running, {});
  await settle(clock);
  assert.deepEqual(names(cri), ["a"]);
  // "a" ignores SIGTERM: the runtime kills it at 10 s; s1's wait ends at the same deadline.
  await clock.advance(10 * S);
  await settle(clock);
  assert.deepEqual(cri.signalled.map((s) => [s.name, s.grace, s.at - clock.now()]), [
    ["a", 10, -10 * S],
    ["s1", 2, 0],
  ]);
  cri.release("s1");
  await done;
  assert.equal(clock.pendingTimers, 0, "no timer left behind");
});

Deno.test("killPod: sidecars run their preStop hooks at once; only the stop signal waits", async () => {
  const clock = new FakeClock();
  const cri = new SlowStopRuntime(clock);
  const pod = makePod({
    initContainers: [sidecar("s1", { lifecycle: { preStop: { exec: { command: ["drain"] } } } })],
    containers: [{ name: "a", image: IMAGE }],
  });
  const running = await start(cri, pod, ["s1", "a"]);
  const deps = { runtime: cri, logger: nullLogger, runtimeRequestTimeoutMs: 10 * S, clock };
  const done = killPod(deps, pod, running, {});
  await settle(clock);
  assert.deepEqual(cri.callsTo("execSync").map((c) => c[1]), [["drain"]]);
  assert.deepEqual(names(cri), ["a"]);
  cri.release("a");
  await settle(clock);
  assert.deepEqual(names(cri), ["a", "s1"]);
  cri.release("s1");
  await done;
});

Deno.test("killPod: without sidecars, or for an orphan, every container stops at once", async () => {
  for (const orphan of [false, true]) {
    const clock = new FakeClock();
    const cri = new SlowStopRuntime(clock);
    const withSidecar = makePod({
      initContainers: [sidecar("s1")],
      containers: [{ name: "a", image: IMAGE }],
    });
    const plain = makePod({
      containers: [{ name: "a", image: IMAGE }, { name: "b", image: IMAGE }],
    });
    const pod = orphan ? withSidecar : plain;
    const running = await start(cri, pod, orphan ? ["s1", "a"] : ["a", "b"]);
    const deps = { runtime: cri, logger: nullLogger, runtimeRequestTimeoutMs: 10 * S, clock };
    const done = killPod(deps, orphan ? undefined : pod, running, {});
    await settle(clock);
    assert.equal(cri.signalled.length, 2, orphan ? "orphan" : "no sidecars");
    for (const s of cri.signalled) cri.release(s.name);
    await done;
  }
});
