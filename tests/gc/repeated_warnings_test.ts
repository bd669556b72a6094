/** The GC loops retry failures every round; the log says so once, then every 5 minutes. */
import assert from "node:assert/strict";
import { GarbageCollector, type GarbageCollectorDeps } from "../../src/gc/mod.ts";
import type { CallOptions } from "../../src/cri/types.ts";
import { createLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";
import { container, NODE, sandbox, setup } from "./_fixtures.ts";

const MIN = 60_000;

function collector(env: ReturnType<typeof setup>, lines: string[], cri: FakeRuntime = env.cri) {
  const deps: GarbageCollectorDeps = {
    runtime: cri,
    image: cri,
    clock: env.clock,
    logger: createLogger({ write: (l) => lines.push(l), now: () => env.clock.now() }),
    nodeName: NODE,
    podState: { shouldPodContentBeRemoved: () => true, shouldPodRuntimeBeRemoved: () => true },
    podLogsDir: "",
    fsStats: () => Promise.resolve({ capacityBytes: 100, availableBytes: 50 }),
    periods: { containersMs: MIN, imagesMs: 5 * MIN, logsMs: 10_000 },
  };
  return new GarbageCollector(deps);
}

const count = (lines: string[], text: string) => lines.filter((l) => l.includes(text)).length;

Deno.test("GC rounds failing while the runtime is down are logged once per 5 minutes", async () => {
  const env = setup();
  const lines: string[] = [];
  const gc = collector(env, lines);
  env.cri.unavailable = true;
  const ac = new AbortController();
  const running = gc.run({ signal: ac.signal });
  // Six minutes: 37 log rotation rounds, 7 container rounds, 2 image rounds, all failing.
  for (let i = 0; i < 36; i++) await env.clock.advance(10_000);
  assert.equal(count(lines, "Garbage collection (log rotation) failed"), 2, lines.join("\n"));
  assert.equal(count(lines, "Garbage collection (container) failed"), 2);
  assert.equal(count(lines, "Garbage collection (image) failed"), 2);

  // Back, then down again: a new outage is news at once.
  env.cri.unavailable = false;
  await env.clock.advance(10_000);
  env.cri.unavailable = true;
  await env.clock.advance(10_000);
  assert.equal(count(lines, "Garbage collection (log rotation) failed"), 3);
  ac.abort();
  await running;
});

/** A runtime that refuses to remove one container, as containerd does with a stuck shim. */
class StuckRemoval extends FakeRuntime {
  stuck = "";
  override removeContainer(id: string, opts?: CallOptions) {
    if (id === this.stuck) {
      return Promise.reject(new Error(`CRI RemoveContainer failed: ${id}: device busy`));
    }
    return super.removeContainer(id, opts);
  }
}

Deno.test("a dead container that cannot be removed is warned about once per 5 minutes", async () => {
  const env = setup();
  const cri = new StuckRemoval({ clock: env.clock });
  cri.addImage("docker.io/library/busybox:latest", { id: "sha256:busybox", size: 1000 });
  const sb = await sandbox(cri, "gone");
  cri.stuck = await container(cri, sb, { uid: "gone", name: "c", attempt: 0, exit: true });
  const lines: string[] = [];
  const gc = collector(env, lines, cri);
  // Every minute for eleven minutes.
  for (let i = 0; i < 11; i++) {
    await gc.collectContainers();
    await env.clock.advance(MIN);
  }
  assert.equal(count(lines, "Cannot remove dead container"), 3, lines.join("\n"));
  assert.match(lines.filter((l) => l.includes("Cannot remove dead container"))[1], /repeated=4\b/);
});
