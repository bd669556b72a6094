import { assert, assertEquals } from "./_assert.ts";
import type { V1Pod } from "@kubernetes/client-node";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { PodWorkers } from "../../src/kubelet/pod_workers.ts";
import type { PodSyncer, PodTarget } from "../../src/kubelet/pod_workers.ts";
import type { PodStatusCache } from "../../src/pleg/types.ts";
import type { RunningPod, RuntimePodStatus } from "../../src/runtime/types.ts";

function pod(uid: string, gen = 0): V1Pod {
  return {
    metadata: { uid, name: `p-${uid}`, namespace: "default", labels: { gen: String(gen) } },
    spec: { containers: [{ name: "c", image: "i" }] },
  };
}

const emptyStatus = (uid: string): RuntimePodStatus => ({
  uid,
  name: "",
  namespace: "",
  sandboxes: [],
  containers: [],
  ips: [],
  timestamp: 0,
});

const cache: PodStatusCache = {
  get: () => undefined,
  set: () => {},
  delete: () => {},
  getNewerThan: (uid) => Promise.resolve(emptyStatus(uid)),
  globalTimestamp: 0,
};

/** A syncer whose calls block until the test releases them. */
class GatedSyncer implements PodSyncer {
  log: string[] = [];
  gates: (() => void)[] = [];
  terminal = new Set<string>();
  concurrent = 0;
  maxConcurrent = 0;

  #gate(signal: AbortSignal): Promise<void> {
    this.concurrent++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.concurrent);
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.concurrent--;
        resolve();
      };
      this.gates.push(done);
      signal.addEventListener("abort", () => {
        this.concurrent--;
        reject(signal.reason);
      }, { once: true });
    });
  }
  async syncPod(p: V1Pod, _s: RuntimePodStatus, o: { signal: AbortSignal }) {
    this.log.push(`sync ${p.metadata!.uid} gen=${p.metadata!.labels!.gen}`);
    await this.#gate(o.signal);
    return { terminal: this.terminal.has(p.metadata!.uid!) };
  }
  syncTerminatingPod(t: PodTarget, o: { gracePeriodSeconds?: number }) {
    this.log.push(`terminating ${t.uid} grace=${o.gracePeriodSeconds}`);
    return Promise.resolve();
  }
  syncTerminatedPod(t: PodTarget, o: { removed: boolean }) {
    this.log.push(`terminated ${t.uid} removed=${o.removed}`);
    return Promise.resolve();
  }
  release() {
    const g = this.gates.shift();
    g?.();
  }
}

async function settle() {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}

function setup() {
  const syncer = new GatedSyncer();
  const requeued: string[] = [];
  const workers = new PodWorkers({
    syncer,
    cache,
    clock: new FakeClock(),
    logger: nullLogger,
    requeue: (uid) => requeued.push(uid),
  });
  return { syncer, workers, requeued };
}

Deno.test("podWorkers coalesces updates that arrive while a sync runs into one pending update", async () => {
  const { syncer, workers } = setup();
  workers.updatePod({ type: "create", pod: pod("a", 1) });
  await settle();
  workers.updatePod({ type: "update", pod: pod("a", 2) });
  workers.updatePod({ type: "update", pod: pod("a", 3) });
  workers.updatePod({ type: "update", pod: pod("a", 4) });
  syncer.release();
  await settle();
  syncer.release();
  await settle();
  assertEquals(syncer.log, ["sync a gen=1", "sync a gen=4"]);
  await workers.stop();
});

Deno.test("podWorkers serialises one pod and runs different pods concurrently", async () => {
  const { syncer, workers } = setup();
  workers.updatePod({ type: "create", pod: pod("a") });
  workers.updatePod({ type: "create", pod: pod("b") });
  await settle();
  workers.updatePod({ type: "sync", pod: pod("a") });
  await settle();
  assertEquals(syncer.maxConcurrent, 2);
  assertEquals(syncer.log.filter((l) => l.startsWith("sync a")).length, 1);
  syncer.release();
  syncer.release();
  await settle();
  syncer.release();
  await settle();
  assertEquals(syncer.log.filter((l) => l.startsWith("sync a")).length, 2);
  await workers.stop();
});

Deno.test("podWorkers kill aborts an in-flight sync and terminates with the grace period", async () => {
  const { syncer, workers } = setup();
  workers.updatePod({ type: "create", pod: pod("a") });
  await settle();
  workers.updatePod({ type: "kill", pod: pod("a"), removed: true, gracePeriodSeconds: 5 });
  await settle();
  assertEquals(syncer.log, ["sync a gen=0", "terminating a grace=5", "terminated a removed=true"]);
  assertEquals(workers.state("a"), undefined, "a removed pod's worker is forgotten");
  await workers.stop();
});

Deno.test("podWorkers moves a terminal pod to terminated and keeps it (no restart)", async () => {
  const { syncer, workers } = setup();
  syncer.terminal.add("a");
  workers.updatePod({ type: "create", pod: pod("a") });
  await settle();
  syncer.release();
  await settle();
  assertEquals(workers.state("a"), "terminated");
  workers.updatePod({ type: "sync", pod: pod("a") });
  await settle();
  assertEquals(syncer.log, [
    "sync a gen=0",
    "terminating a grace=undefined",
    "terminated a removed=false",
  ]);
  // Later removal of the file cleans up what the terminal pod left.
  workers.updatePod({ type: "kill", pod: pod("a"), removed: true });
  await settle();
  assertEquals(syncer.log.at(-1), "terminated a removed=true");
  assertEquals(workers.state("a"), undefined);
  await workers.stop();
});

Deno.test("podWorkers starts a pod again when it is re-added while being removed", async () => {
  const { syncer, workers } = setup();
  workers.updatePod({ type: "create", pod: pod("a", 1) });
  await settle();
  workers.updatePod({ type: "kill", pod: pod("a", 1), removed: true });
  workers.updatePod({ type: "create", pod: pod("a", 2) });
  await settle();
  assert(syncer.log.includes("terminated a removed=true"));
  assertEquals(syncer.log.at(-1), "sync a gen=2");
  assertEquals(workers.state("a"), "syncing");
  await workers.stop();
});

Deno.test("podWorkers grace period can only shorten", async () => {
  const { syncer, workers } = setup();
  workers.updatePod({ type: "create", pod: pod("a") });
  await settle();
  // Both kills land before the worker gets to run again.
  workers.updatePod({ type: "kill", pod: pod("a"), gracePeriodSeconds: 3 });
  workers.updatePod({ type: "kill", pod: pod("a"), gracePeriodSeconds: 30 });
  await settle();
  assert(syncer.log.includes("terminating a grace=3"), syncer.log.join("\n"));
  await workers.stop();
});

/** A static pod as the file source makes it: same full name for every UID. */
function staticPod(uid: string, name = "etcd"): V1Pod {
  return {
    metadata: {
      uid,
      name,
      namespace: "kube-system",
      labels: { gen: "0" },
      annotations: { "kubernetes.io/config.source": "file" },
    },
    spec: { containers: [{ name: "c", image: "i" }], terminationGracePeriodSeconds: 30 },
  };
}

/** Terminations block until released, and honour their abort signal. */
class SlowTerminationSyncer extends GatedSyncer {
  terminations: { uid: string; release: () => void }[] = [];
  override syncTerminatingPod(
    t: PodTarget,
    o: { gracePeriodSeconds?: number; signal: AbortSignal },
  ): Promise<void> {
    this.log.push(`terminating ${t.uid} grace=${o.gracePeriodSeconds}`);
    return new Promise((resolve, reject) => {
      const entry = { uid: t.uid, release: resolve };
      this.terminations.push(entry);
      o.signal.addEventListener("abort", () => {
        this.terminations.splice(this.terminations.indexOf(entry), 1);
        reject(o.signal.reason);
      }, { once: true });
    });
  }
  finishTermination(uid: string) {
    const i = this.terminations.findIndex((t) => t.uid === uid);
    this.terminations.splice(i, 1)[0].release();
  }
}

function slowSetup(otherInstances?: (p: V1Pod) => RunningPod[]) {
  const syncer = new SlowTerminationSyncer();
  const workers = new PodWorkers({
    syncer,
    cache,
    clock: new FakeClock(),
    logger: nullLogger,
    requeue: () => {},
    otherInstances,
  });
  return { syncer, workers };
}

Deno.test("podWorkers starts a replaced static pod only after its predecessor fully terminated", async () => {
  const { syncer, workers } = slowSetup();
  workers.updatePod({ type: "create", pod: staticPod("old") });
  await settle();
  syncer.release();
  await settle();
  // The manifest changed: the old UID is removed and the new one added in the same update.
  workers.updatePod({ type: "kill", pod: staticPod("old"), removed: true });
  workers.updatePod({ type: "create", pod: staticPod("new") });
  await settle();
  assert(workers.isWaitingToStart("new"));
  assertEquals(syncer.log.filter((l) => l.startsWith("sync new")), []);
  // A resync request meanwhile does not get it past the gate either.
  workers.updatePod({ type: "sync", pod: staticPod("new") });
  await settle();
  assertEquals(syncer.log.filter((l) => l.startsWith("sync new")), []);
  syncer.finishTermination("old");
  await settle();
  assertEquals(syncer.log, [
    "sync old gen=0",
    "terminating old grace=undefined",
    "terminated old removed=true",
    "sync new gen=0",
  ]);
  assert(!workers.isWaitingToStart("new"));
  await workers.stop();
});

Deno.test("podWorkers lets static pods of different names and non-static pods start at once", async () => {
  const { syncer, workers } = slowSetup();
  workers.updatePod({ type: "create", pod: staticPod("a", "one") });
  workers.updatePod({ type: "create", pod: staticPod("b", "two") });
  workers.updatePod({ type: "create", pod: pod("c") });
  await settle();
  assertEquals(syncer.log.toSorted(), ["sync a gen=0", "sync b gen=0", "sync c gen=0"]);
  await workers.stop();
});

Deno.test("podWorkers kills a leftover runtime instance of a static pod before starting it", async () => {
  const leftover: RunningPod = {
    uid: "before-restart",
    name: "etcd",
    namespace: "kube-system",
    sandboxes: [{ id: "s1", state: "ready", createdAt: 0 }],
    containers: [],
  };
  let live = [leftover];
  const { syncer, workers } = slowSetup(() => live);
  workers.updatePod({ type: "create", pod: staticPod("new") });
  await settle();
  assertEquals(syncer.log, ["terminating before-restart grace=undefined"]);
  live = [];
  syncer.finishTermination("before-restart");
  await settle();
  assertEquals(syncer.log, [
    "terminating before-restart grace=undefined",
    "terminated before-restart removed=true",
    "sync new gen=0",
  ]);
  await workers.stop();
});

Deno.test("podWorkers: remove, re-add, remove within the grace period leaves the pod stopped", async () => {
  const { syncer, workers } = slowSetup();
  workers.updatePod({ type: "create", pod: pod("a", 1) });
  await settle();
  syncer.release();
  await settle();
  workers.updatePod({ type: "kill", pod: pod("a", 1), removed: true });
  await settle();
  workers.updatePod({ type: "create", pod: pod("a", 2) });
  workers.updatePod({ type: "kill", pod: pod("a", 2), removed: true });
  syncer.finishTermination("a");
  await settle();
  assertEquals(syncer.log, [
    "sync a gen=1",
    "terminating a grace=undefined",
    "terminated a removed=true",
  ]);
  assertEquals(workers.state("a"), undefined, "no worker runs the pod again");
  await workers.stop();
});

Deno.test("podWorkers restarts a termination in progress when a shorter grace period arrives", async () => {
  const { syncer, workers } = slowSetup();
  workers.updatePod({ type: "create", pod: pod("a") });
  await settle();
  syncer.release();
  await settle();
  workers.updatePod({ type: "kill", pod: pod("a"), gracePeriodSeconds: 20 });
  await settle();
  // Longer: ignored; shorter: the running stop is cancelled and begins again with 1 s.
  workers.updatePod({ type: "kill", pod: pod("a"), gracePeriodSeconds: 25 });
  await settle();
  workers.updatePod({ type: "kill", pod: pod("a"), gracePeriodSeconds: 1 });
  await settle();
  assertEquals(syncer.log, ["sync a gen=0", "terminating a grace=20", "terminating a grace=1"]);
  syncer.finishTermination("a");
  await settle();
  assertEquals(syncer.log.at(-1), "terminated a removed=false");
  await workers.stop();
});

Deno.test("podWorkers.whenTerminated rejects at once for an already-aborted signal", async () => {
  const { syncer, workers } = slowSetup();
  workers.updatePod({ type: "create", pod: pod("a") });
  await settle();
  syncer.release();
  const reason = new Error("gave up");
  const ac = new AbortController();
  ac.abort(reason);
  let caught: unknown;
  await workers.whenTerminated("a", { signal: ac.signal }).catch((e) => caught = e);
  assertEquals(caught, reason);
  // A later abort rejects a pending wait too, and the pod's termination is not disturbed.
  const later = new AbortController();
  const wait = workers.whenTerminated("a", { signal: later.signal }).catch((e) => e);
  later.abort(reason);
  assertEquals(await wait, reason);
  await workers.stop();
});
