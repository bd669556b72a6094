/**
 * `hostUsers: false` as a user sees it. On Debian's containerd 1.6, which lists no runtime
 * handlers, the sandbox fails with upstream's message and nothing runs (never the host's user
 * namespace instead). On containerd 2 with a runc that has idmapped mounts, the pod runs in a
 * user namespace of its own: /proc/self/uid_map shows its 65536-ID range, and its volumes are
 * idmapped, so root inside reads and writes them while the files on disk keep the host's owners.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { waitFor } from "../support/agent.ts";
import { containerStatus, E2E_TEST, setupE2E, shellPod } from "./_helpers.ts";
import { closeRestartAgents } from "./_restart.ts";

const REFUSAL = "can't set `spec.hostUsers: false`, runtime does not support user namespaces";

function usernsPod(name: string, script: string): V1Pod {
  const pod = shellPod(name, script, { hostUsers: false });
  pod.metadata!.labels = { app: "userns-e2e" };
  pod.spec!.containers[0].volumeMounts = [
    { name: "data", mountPath: "/data" },
    { name: "info", mountPath: "/info", readOnly: true },
  ];
  pod.spec!.volumes = [
    { name: "data", emptyDir: {} },
    // Written by the agent like a configMap's files (atomic writer, root-owned, read-only).
    {
      name: "info",
      downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] },
    },
  ];
  return pod;
}

Deno.test({
  name: "hostUsers: false on containerd 1.6 fails the sandbox with upstream's message",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    try {
      await e2e.writePod("userns.yaml", usernsPod("userns", "cat /proc/self/uid_map; sleep 3600"));
      const pod = await e2e.waitPod("userns", (p) => p.metadata?.uid !== undefined, {
        what: "pod userns to be listed",
      });
      const uid = pod.metadata!.uid!;
      // The agent's record of the FailedCreatePodSandBox event (standalone has no API server).
      await waitFor(
        async () =>
          (await e2e.agent.logTail(400)).includes(`Failed to create pod sandbox: ${REFUSAL}`),
        { timeoutMs: 30_000, what: "the sandbox failure with upstream's message in the agent log" },
      );
      // Retried (it stays refused) and never run, in the host's user namespace or any other.
      await waitFor(
        async () =>
          (await e2e.agent.logTail(400)).split(`Failed to create pod sandbox: ${REFUSAL}`).length >
            2,
        { timeoutMs: 30_000, what: "a second refused attempt" },
      );
      assert.deepEqual(await e2e.sandboxes(uid), []);
      const now = (await e2e.pod("userns"))!;
      assert.equal(now.status?.phase, "Pending");
      assert.equal(containerStatus(now, "main")?.state?.waiting?.reason, "ContainerCreating");
    } finally {
      await e2e.close();
    }
  },
});

Deno.test({
  name:
    "hostUsers: false on containerd 2 runs in the pod's own user namespace with idmapped volumes",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E({
      runtime: { containerd: "upstream" },
      extraArgs: ["--allowed-unsafe-sysctls", "user.max_user_namespaces"],
    });
    try {
      const handlers = (await e2e.cri.runtime.status()).runtimeHandlers ?? [];
      const dflt = handlers.find((h) => h.name === "");
      assert.ok(
        dflt?.features?.userNamespaces,
        `containerd 2 at ${e2e.runtime.endpoint} reports no user namespace support on its ` +
          `default handler (${JSON.stringify(handlers)}): its shim runs a runc without idmapped ` +
          `mounts (a daemon started before tests/support built runc; restart it once idle)`,
      );
      const script = [
        "cat /proc/self/uid_map /proc/self/gid_map",
        "echo written-inside > /data/f",
        'echo "data: $(cat /data/f) owner=$(stat -c %u:%g /data/f) dir=$(stat -c %u /data)"',
        'echo "info: $(cat /info/labels) owner=$(stat -L -c %u /info/labels)"',
        'echo "sysctl: $(cat /proc/sys/user/max_user_namespaces)"',
        "echo done",
        "sleep 3600",
      ].join("; ");
      const spec = usernsPod("userns", script);
      // A user.* sysctl, allowed only in a pod's own user namespace: it sets that namespace's.
      spec.spec!.securityContext = { sysctls: [{ name: "user.max_user_namespaces", value: "7" }] };
      await e2e.writePod("userns.yaml", spec);
      const pod = await e2e.waitPod("userns", (p) => p.status?.phase === "Running", {
        what: "pod userns to be Running",
        timeoutMs: 90_000,
      });
      const uid = pod.metadata!.uid!;
      const persisted = JSON.parse(
        await Deno.readTextFile(`${e2e.agent.rootDir}/pods/${uid}/userns`),
      );
      const hostId: number = persisted.uidMappings[0].hostId;
      assert.ok(hostId >= 65536 && hostId % 65536 === 0, `host ID ${hostId}`);
      // The CRI log format: `<time> stdout F <line>`.
      const log = (await e2e.waitLog(pod, "main", ["done"])).split("\n")
        .map((l) => l.replace(/^\S+ (stdout|stderr) [FP] /, "")).join("\n");
      const maps = log.split("\n").filter((l) => /^\s*\d+\s+\d+\s+\d+\s*$/.test(l))
        .map((l) => l.trim().split(/\s+/).map(Number));
      // Not the host's namespace (0 0 4294967295): the pod's 65536 IDs, root mapped to hostId.
      assert.deepEqual(maps, [[0, hostId, 65536], [0, hostId, 65536]], log);
      // Root inside owns and writes the emptyDir and reads the agent-written files.
      assert.match(log, /^data: written-inside owner=0:0 dir=0$/m, log);
      assert.match(log, /^info: app="userns-e2e" owner=0$/m, log);
      assert.match(log, /^sysctl: 7$/m, log);
      // Idmapped: on disk the file belongs to the host's root, not to the pod's host IDs.
      const onDisk = await Deno.stat(
        `${e2e.agent.rootDir}/pods/${uid}/volumes/kubernetes.io~empty-dir/data/f`,
      );
      assert.equal(onDisk.uid, 0);

      // Removing the pod gives the range back: its file goes with the pod directory.
      await e2e.removeManifest("userns.yaml");
      await waitFor(
        async () => !(await exists(`${e2e.agent.rootDir}/pods/${uid}/userns`)),
        { timeoutMs: 60_000, what: "the pod's userns file to be removed" },
      );
    } finally {
      await e2e.close();
    }
  },
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

Deno.test({
  name:
    "hostUsers: false across an agent restart: the running pod keeps its range, new pods get others",
  ...E2E_TEST,
  async fn() {
    const base = await Deno.makeTempDir({ prefix: "denolet-e2e-userns-restart-" });
    // 2^30 IDs per pod leaves two usable ranges above the first 2^30 IDs (the third would end
    // at 2^32, which the kernel refuses): a restart that forgot the running pod's range would
    // hand it to the next pod with odds of one in two.
    const shared = {
      runtime: { containerd: "upstream" as const },
      hostname: `e2e-userns-${Deno.pid}`,
      rootDir: `${base}/root`,
      manifestDir: `${base}/manifests`,
      podLogsDir: `${base}/pods`,
      config: { userNamespaces: { idsPerPod: 2 ** 30 }, maxPods: 2 },
    };
    await Deno.mkdir(shared.manifestDir, { recursive: true });
    const rangeOf = async (uid: string) =>
      JSON.parse(await Deno.readTextFile(`${shared.rootDir}/pods/${uid}/userns`))
        .uidMappings[0].hostId as number;
    let first: Awaited<ReturnType<typeof setupE2E>> | undefined;
    let second: Awaited<ReturnType<typeof setupE2E>> | undefined;
    try {
      first = await setupE2E({ ...shared, removePodsOnStop: false });
      const running = (p: V1Pod) => p.status?.phase === "Running";
      await first.writePod("keep.yaml", usernsPod("keep", "sleep 3600"));
      const keep = await first.waitPod("keep", running, {
        what: "keep Running",
        timeoutMs: 90_000,
      });
      const keepUid = keep.metadata!.uid!;
      const keepRange = await rangeOf(keepUid);
      const keepId = containerStatus(keep, "main")?.containerID;
      first.agent.kill("SIGKILL");
      await first.agent.exited;
      await first.close({ keepState: true });
      first = undefined;

      second = await setupE2E(shared);
      await second.writePod("b.yaml", usernsPod("b", "sleep 3600"));
      const b = await second.waitPod("b", running, { what: "b Running", timeoutMs: 90_000 });
      const adopted = await second.waitPod("keep", running, { what: "keep adopted" });
      assert.equal(containerStatus(adopted, "main")?.containerID, keepId, "same container");
      assert.equal(await rangeOf(keepUid), keepRange);
      const ranges = [keepRange, await rangeOf(b.metadata!.uid!)].sort();
      assert.deepEqual(ranges, [2 ** 30, 2 ** 31]);
    } finally {
      await closeRestartAgents({ first, second, base });
    }
  },
});
