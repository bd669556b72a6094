import { assertEquals } from "./_assert.ts";
import type { V1Pod } from "@kubernetes/client-node";
import { PodManager } from "../../src/kubelet/pod_manager.ts";

const pod = (uid: string, name: string, image = "busybox"): V1Pod => ({
  metadata: { uid, name, namespace: "default" },
  spec: { containers: [{ name: "c", image }] },
});

Deno.test("podManager diffs full snapshots into added, updated and removed pods", () => {
  const pm = new PodManager();
  let ch = pm.apply({ source: "file", pods: [pod("1", "a"), pod("2", "b")], problems: [] }, 0);
  assertEquals(ch.added.map((p) => p.metadata!.uid), ["1", "2"]);
  ch = pm.apply({ source: "file", pods: [pod("1", "a", "other"), pod("3", "c")], problems: [] }, 0);
  assertEquals(ch.added.map((p) => p.metadata!.uid), ["3"]);
  assertEquals(ch.updated.map((p) => p.metadata!.uid), ["1"]);
  assertEquals(ch.removed.map((p) => p.metadata!.uid), ["2"]);
  assertEquals([...pm.uids()].sort(), ["1", "3"]);
});

Deno.test("podManager refuses a pod whose name another source already uses and reports it", () => {
  const pm = new PodManager();
  pm.apply({ source: "file", pods: [pod("1", "a")], problems: [] }, 0);
  const ch = pm.apply({ source: "http", pods: [pod("9", "a")], problems: [] }, 5);
  assertEquals(ch.added, []);
  assertEquals(pm.problems().map((p) => [p.source, p.reason]), [
    ["http", "duplicate pod default/a: another manifest already defines it"],
  ]);
});

Deno.test("podManager knows when every source has reported once", () => {
  const pm = new PodManager();
  assertEquals(pm.allSourcesSeen(["file", "http"]), false);
  pm.apply({ source: "file", pods: [], problems: [] }, 0);
  assertEquals(pm.allSourcesSeen(["file", "http"]), false);
  pm.apply({ source: "http", pods: [], problems: [] }, 0);
  assertEquals(pm.allSourcesSeen(["file", "http"]), true);
});

Deno.test("podManager records why an unread source cannot be read, leaving it unseen", () => {
  const pm = new PodManager();
  const why = {
    source: "http" as const,
    path: "http://x/pods",
    reason: "connection refused",
    seenAt: 1,
  };
  const ch = pm.apply({ source: "http", pods: [], problems: [why], unread: true }, 1);
  assertEquals(ch, { added: [], updated: [], removed: [], replaced: new Map() });
  assertEquals(pm.problems(), [why]);
  assertEquals(pm.allSourcesSeen(["http"]), false, "clean-up still waits for it");
  pm.apply({ source: "http", pods: [pod("1", "a")], problems: [] }, 2);
  assertEquals(pm.problems(), []);
  assertEquals(pm.allSourcesSeen(["http"]), true);
});
