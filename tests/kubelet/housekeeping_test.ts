/** Housekeeping's orphan clean-up: what it logs while a removal keeps failing. */
import assert from "node:assert/strict";
import { cleanupOrphans } from "../../src/kubelet/_housekeeping.ts";
import type { PodWorkers } from "../../src/kubelet/pod_workers.ts";
import type { KubeletDeps } from "../../src/kubelet/types.ts";
import type { Pleg } from "../../src/pleg/types.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";

/** No pod is desired, active or in the runtime: every listed directory is an orphan. */
const idleWorkers = {
  isActive: () => false,
  activeUids: () => [],
  updatePod: () => {},
} as unknown as PodWorkers;
const emptyPleg = { runningPods: () => [] } as unknown as Pleg;

function setup(dirs: string[]) {
  const clock = new FakeClock();
  const lines: string[] = [];
  let failing = true;
  const removed: string[] = [];
  const deps: Pick<KubeletDeps, "pleg" | "podDirs" | "podCgroups" | "logger" | "clock"> = {
    pleg: emptyPleg,
    clock,
    logger: createLogger({ write: (l) => lines.push(l), now: () => clock.now() }),
    podDirs: {
      list: () => Promise.resolve(dirs.filter((d) => !removed.includes(d))),
      remove: (uid) => {
        if (failing) {
          return Promise.reject(new Error(`Cannot remove pod directory: still mounted (${uid})`));
        }
        removed.push(uid);
        return Promise.resolve();
      },
    },
  };
  const round = () =>
    cleanupOrphans(deps, {
      desired: new Set(),
      workers: idleWorkers,
      signal: new AbortController().signal,
    });
  return { clock, lines, deps, round, succeed: () => failing = false, removed };
}

Deno.test("housekeeping warns about a pod directory it cannot remove once, then every 5 minutes", async () => {
  const { clock, lines, round, succeed, removed } = setup(["u1", "u2"]);
  // Every 2 s for 6 minutes, as the sync loop does.
  for (let i = 0; i < 180; i++) {
    await round();
    await clock.advance(2000);
  }
  const warned = lines.filter((l) => l.includes("Cannot remove orphaned pod directory"));
  assert.equal(warned.length, 4, warned.join("\n")); // two pods, at 0 s and at 5 min
  assert.equal(warned.filter((l) => l.includes("uid=u1")).length, 2);
  assert.match(warned[3], /repeated=149\b/);
  assert.equal(lines.length, 4, "nothing else is logged per round");

  succeed();
  await round();
  await round();
  assert.deepEqual(removed, ["u1", "u2"]);
  assert.equal(lines.filter((l) => l.includes("Removed orphaned pod directory")).length, 2);
});

Deno.test("housekeeping: each kubelet paces its own warnings", async () => {
  const a = setup(["u1"]);
  const b = setup(["u1"]);
  await a.round();
  await a.round();
  await b.round();
  assert.equal(a.lines.length, 1);
  assert.equal(b.lines.length, 1);
});
