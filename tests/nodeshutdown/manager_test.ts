/**
 * The shutdown manager against a test double of logind: the inhibit delay raised, the
 * inhibitor taken and released, pods stopped group by group on PrepareForShutdown, admission
 * and readiness while shutting down, cancellation, and a lost bus connection.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  createShutdownManager,
  migrateConfig,
  type ShutdownInhibitor,
  type ShutdownManagerDeps,
  shutdownStateStore,
  SYSTEM_CRITICAL_PRIORITY,
} from "../../src/nodeshutdown/mod.ts";
import { FakeClock, realClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";
import { createMetricsRegistry } from "../../src/util/metrics.ts";

/** logind as the manager sees it, with what happened to it. */
class FakeLogind implements ShutdownInhibitor {
  delayMs: number;
  held = 0;
  taken = 0;
  overrides: number[] = [];
  reloads = 0;
  #emit?: (active: boolean) => void;
  #end!: () => void;
  readonly closed = new Promise<void>((resolve) => this.#end = resolve);

  constructor(delayMs: number, readonly log: string[]) {
    this.delayMs = delayMs;
  }
  currentInhibitDelayMs() {
    return Promise.resolve(this.delayMs);
  }
  inhibitShutdown() {
    this.taken++;
    this.held++;
    this.log.push("inhibit");
    let released = false;
    return Promise.resolve({
      release: () => {
        if (released) return;
        released = true;
        this.held--;
        this.log.push("release");
      },
    });
  }
  overrideInhibitDelay(ms: number) {
    this.overrides.push(ms);
    return Promise.resolve();
  }
  reloadLogindConf() {
    this.reloads++;
    // logind reads its drop-in again: the new maximum shows.
    this.delayMs = this.overrides.at(-1) ?? this.delayMs;
    return Promise.resolve();
  }
  monitorShutdown(fn: (active: boolean) => void) {
    this.#emit = fn;
    return Promise.resolve();
  }
  prepareForShutdown(active: boolean) {
    this.#emit!(active);
  }
  close() {
    this.#end();
  }
}

function pod(name: string, priority: number, grace?: number): V1Pod {
  return {
    metadata: { name, namespace: "default", uid: name },
    spec: { containers: [], priority, terminationGracePeriodSeconds: grace },
    status: { phase: "Running" },
  };
}

/** Lets the manager run until it waits on the clock (or on a kill), then moves time by `ms`. */
async function settle(clock: FakeClock, ms = 0) {
  // File I/O (the state file) completes outside the microtask queue: give it real turns.
  for (let i = 0; i < 5; i++) {
    await clock.advance(0);
    await realClock.sleep(1);
  }
  await clock.advance(ms);
}

/** Waits until `cond` holds, letting the manager run. */
async function until(clock: FakeClock, cond: () => boolean, what: string) {
  for (let i = 0; i < 200 && !cond(); i++) await settle(clock);
  assert.ok(cond(), `never happened: ${what}`);
}

function setUp(opts: { delayMs?: number; pods: V1Pod[]; stateFile?: string }) {
  const clock = new FakeClock();
  const log: string[] = [];
  const lines: string[] = [];
  const buses: FakeLogind[] = [];
  const kills: Array<{ name: string; grace: number; done: () => void }> = [];
  const events: string[] = [];
  let syncs = 0;
  const registry = createMetricsRegistry();
  const deps: ShutdownManagerDeps = {
    connect: () => {
      const bus = new FakeLogind(opts.delayMs ?? 5_000, log);
      buses.push(bus);
      return Promise.resolve(bus);
    },
    periods: migrateConfig(30_000, 10_000),
    activePods: () => opts.pods,
    kill: (p, o) => {
      log.push(`kill ${p.metadata!.name} ${o.gracePeriodSeconds}`);
      return new Promise<void>((resolve, reject) => {
        kills.push({ name: p.metadata!.name!, grace: o.gracePeriodSeconds, done: resolve });
        o.signal.addEventListener("abort", () => reject(o.signal.reason), { once: true });
      });
    },
    syncNodeStatus: () => syncs++,
    events: { event: (_ref, type, reason, message) => events.push(`${type} ${reason} ${message}`) },
    nodeName: "edge-1",
    clock,
    logger: createLogger({ write: (l) => lines.push(l) }),
    stateFile: opts.stateFile,
    metrics: registry,
  };
  const manager = createShutdownManager(deps);
  return { clock, log, lines, buses, kills, events, manager, registry, syncs: () => syncs };
}

Deno.test("start raises logind's inhibit delay to the grace periods, then takes the inhibitor", async () => {
  const t = setUp({ delayMs: 5_000, pods: [] });
  const stop = new AbortController();
  const run = t.manager.run({ signal: stop.signal });
  for (let i = 0; i < 10 && t.buses[0]?.held !== 1; i++) await settle(t.clock, 200);
  const bus = t.buses[0];
  assert.deepEqual(bus.overrides, [30_000]);
  assert.equal(bus.reloads, 1);
  assert.equal(bus.held, 1);
  assert.equal(t.manager.shutdownStatus(), undefined);
  assert.deepEqual(t.manager.admit(pod("new", 0)), { admit: true });
  stop.abort();
  await run;
  assert.equal(bus.held, 0, "the agent stopping lets go of the inhibitor");
});

Deno.test("a delay already long enough is left alone", async () => {
  const t = setUp({ delayMs: 60_000, pods: [] });
  const stop = new AbortController();
  const run = t.manager.run({ signal: stop.signal });
  await settle(t.clock);
  assert.deepEqual(t.buses[0].overrides, []);
  assert.equal(t.buses[0].held, 1);
  stop.abort();
  await run;
});

Deno.test("PrepareForShutdown stops ordinary pods, then critical ones, then releases the inhibitor", async () => {
  const state = await Deno.makeTempFile();
  await Deno.remove(state);
  const pods = [
    pod("web", 0, 60),
    pod("batch", 100, 5),
    pod("dns", SYSTEM_CRITICAL_PRIORITY, 30),
  ];
  const t = setUp({ delayMs: 60_000, pods, stateFile: state });
  const stop = new AbortController();
  const run = t.manager.run({ signal: stop.signal });
  await until(t.clock, () => t.buses[0]?.held === 1, "the inhibitor");
  t.buses[0].prepareForShutdown(true);
  await until(t.clock, () => t.kills.length === 2, "the first group's kills");

  // Shutting down: no new pods, the Node NotReady with upstream's words, its status sent now.
  assert.equal(t.manager.shutdownStatus(), "node is shutting down");
  assert.deepEqual(t.manager.admit(pod("late", 0)), {
    admit: false,
    reason: "NodeShutdown",
    message: "Pod was rejected as the node is shutting down.",
  });
  assert.equal(t.syncs(), 1);
  assert.ok(t.events.includes("Normal Shutdown Shutdown manager detected shutdown event"));
  // The ordinary group: 20 s, or the pod's own shorter grace period.
  assert.deepEqual(t.kills.map((k) => [k.name, k.grace]), [["web", 20], ["batch", 5]]);
  t.kills[0].done();
  t.kills[1].done();
  await until(t.clock, () => t.kills.length === 3, "the critical group's kill");
  // Then the critical group: 10 s.
  assert.deepEqual(t.kills.map((k) => k.name), ["web", "batch", "dns"]);
  assert.equal(t.kills[2].grace, 10);
  assert.equal(t.buses[0].held, 1, "held until the last group is done");
  t.kills[2].done();
  await until(t.clock, () => t.buses[0].held === 0, "the release");
  assert.deepEqual(t.log, ["inhibit", "kill web 20", "kill batch 5", "kill dns 10", "release"]);
  assert.ok(t.lines.some((l) => l.includes("node will shutdown shortly")));
  const saved = await shutdownStateStore(state).load();
  assert.ok(saved.startTime !== undefined && saved.endTime !== undefined);
  assert.match(t.registry.render(), /kubelet_graceful_shutdown_end_time_seconds [1-9]/);
  stop.abort();
  await run;
  await Deno.remove(state);
});

Deno.test("a group whose pods do not stop in time is left after its seconds", async () => {
  const t = setUp({
    delayMs: 60_000,
    pods: [pod("stuck", 0), pod("dns", SYSTEM_CRITICAL_PRIORITY)],
  });
  const stop = new AbortController();
  const run = t.manager.run({ signal: stop.signal });
  await settle(t.clock);
  t.buses[0].prepareForShutdown(true);
  await until(t.clock, () => t.kills.length === 1, "the first kill");
  await settle(t.clock, 19_000);
  assert.deepEqual(t.kills.map((k) => k.name), ["stuck"]);
  await settle(t.clock, 1_000);
  await until(t.clock, () => t.kills.length === 2, "the critical group");
  assert.deepEqual(t.kills.map((k) => k.name), ["stuck", "dns"]);
  assert.ok(t.lines.some((l) => l.includes("Shutdown manager pod killing time out")));
  await settle(t.clock, 10_000);
  assert.equal(t.buses[0].held, 0, "released when the last group's time is up");
  stop.abort();
  await run;
});

Deno.test("a cancelled shutdown admits pods again and takes a new inhibitor", async () => {
  const t = setUp({ delayMs: 60_000, pods: [] });
  const stop = new AbortController();
  const run = t.manager.run({ signal: stop.signal });
  await settle(t.clock);
  t.buses[0].prepareForShutdown(true);
  await settle(t.clock);
  assert.equal(t.buses[0].held, 0);
  t.buses[0].prepareForShutdown(false);
  await settle(t.clock);
  assert.equal(t.manager.shutdownStatus(), undefined);
  assert.deepEqual(t.manager.admit(pod("new", 0)), { admit: true });
  assert.equal(t.buses[0].taken, 2);
  assert.equal(t.buses[0].held, 1);
  assert.ok(t.events.includes("Normal Shutdown Shutdown manager detected shutdown cancellation"));
  stop.abort();
  await run;
});

Deno.test("a lost bus connection is made again a second later", async () => {
  const t = setUp({ delayMs: 60_000, pods: [] });
  const stop = new AbortController();
  const run = t.manager.run({ signal: stop.signal });
  await settle(t.clock);
  t.buses[0].close();
  await until(t.clock, () => t.clock.pendingTimers > 0, "the reconnect timer");
  await t.clock.advance(999);
  assert.equal(t.buses.length, 1);
  await t.clock.advance(1);
  await until(t.clock, () => t.buses.length === 2 && t.buses[1].held === 1, "a new connection");
  assert.equal(t.buses[1].held, 1);
  assert.ok(t.lines.some((l) => l.includes("Restarting watch for node shutdown events")));
  stop.abort();
  await run;
});

Deno.test("a first start that fails is logged and graceful shutdown stays off, as upstream", async () => {
  const lines: string[] = [];
  const manager = createShutdownManager({
    connect: () => Promise.reject(new Error("dial unix /run/dbus/system_bus_socket: no such file")),
    periods: migrateConfig(30_000, 0),
    activePods: () => [],
    kill: () => Promise.resolve(),
    nodeName: "edge-1",
    clock: new FakeClock(),
    logger: createLogger({ write: (l) => lines.push(l) }),
  });
  await manager.run({ signal: new AbortController().signal });
  assert.ok(lines.some((l) => l.includes("Failed to start node shutdown manager")));
  assert.deepEqual(manager.admit(pod("p", 0)), { admit: true });
});
