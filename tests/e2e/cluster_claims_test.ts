/**
 * PersistentVolumeClaims in API mode against the real control plane (the PV controller binds
 * the claims) and containerd: a claim that does not exist or is not bound holds the pod with
 * upstream's FailedMount event until it is bound; hostPath and `local` PVs mounted, subPath on
 * them, a read-only claim read-only, a PV pinned to another node refused; a generic ephemeral
 * volume waits for the claim the controller manager makes; the agent restarting leaves the
 * running pods and their mounts alone; a pod's local mount goes with it, the data stays.
 */
import assert from "node:assert/strict";
import type { CoreV1Event, CoreV1EventList, V1Pod, V1Volume } from "@kubernetes/client-node";
import { waitFor } from "../support/agent.ts";
import {
  busyboxPod,
  type ClusterE2E,
  E2E_TEST,
  execMain,
  runningMain,
  setupCluster,
  waitMainRunning,
} from "./_cluster.ts";

const TIMEOUT = 120_000;

const waitRunning = (c: ClusterE2E, pod: string) => waitMainRunning(c, pod, TIMEOUT);

async function eventsOf(c: ClusterE2E, name: string): Promise<CoreV1Event[]> {
  return (await c.getJson<CoreV1EventList>([
    "events",
    "-n",
    "default",
    "--field-selector",
    `involvedObject.name=${name}`,
  ]))?.items ?? [];
}

/** Waits for a FailedMount event of the pod whose message matches `want`; returns it. */
function failedMount(c: ClusterE2E, pod: string, want: RegExp): Promise<string> {
  return waitFor(async () => {
    const ev = (await eventsOf(c, pod)).find((e) =>
      e.reason === "FailedMount" && want.test(e.message ?? "")
    );
    return ev?.message;
  }, { timeoutMs: TIMEOUT, intervalMs: 1000, what: `a FailedMount event of ${pod} like ${want}` });
}

function claimPod(c: ClusterE2E, name: string, volumes: V1Volume[], script = "sleep 3600"): V1Pod {
  const pod = busyboxPod(name, script, {
    node: c.nodeName,
    extra: { automountServiceAccountToken: false, volumes },
  });
  pod.spec!.containers[0].volumeMounts = volumes.map((v) => ({
    name: v.name,
    mountPath: `/data/${v.name}`,
  }));
  return pod;
}

const claim = (name: string, opts: { volumeName?: string; modes?: string[] } = {}) => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name, namespace: "default" },
  spec: {
    accessModes: opts.modes ?? ["ReadWriteOnce"],
    storageClassName: "manual",
    volumeName: opts.volumeName,
    resources: { requests: { storage: "1Mi" } },
  },
});

const pv = (
  name: string,
  source: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  apiVersion: "v1",
  kind: "PersistentVolume",
  metadata: { name },
  spec: {
    accessModes: ["ReadWriteOnce"],
    capacity: { storage: "1Mi" },
    storageClassName: "manual",
    persistentVolumeReclaimPolicy: "Retain",
    ...source,
    ...extra,
  },
});

const onNode = (node: string) => ({
  nodeAffinity: {
    required: {
      nodeSelectorTerms: [{
        matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [node] }],
      }],
    },
  },
});

function podMounts(base: string): string[] {
  return Deno.readTextFileSync("/proc/self/mountinfo").split("\n").map((l) => l.split(" ")[4])
    .filter((m) => m?.startsWith(base));
}

Deno.test({
  name: "API mode: PersistentVolumeClaims on hostPath and local volumes, as upstream",
  ...E2E_TEST,
  async fn(t) {
    const c = await setupCluster();
    const data = await Deno.makeTempDir({ prefix: "denolet-e2e-pv-" });
    try {
      await t.step("a claim that does not exist holds the pod with upstream's event", async () => {
        await c.apply(claimPod(c, "no-claim", [{
          name: "d",
          persistentVolumeClaim: { claimName: "nope" },
        }]));
        const msg = await failedMount(c, "no-claim", /nope/);
        assert.equal(
          msg,
          "Unable to attach or mount volumes: unmounted volumes=[d], unattached volumes=[], " +
            "failed to process volumes=[d]: error processing PVC default/nope: failed to fetch " +
            'PVC from API server: persistentvolumeclaims "nope" not found',
        );
        const pod = await c.pod("no-claim");
        assert.equal(pod?.status?.phase, "Pending");
        assert.equal(
          pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason,
          "ContainerCreating",
        );
      });

      await t.step(
        "an unbound claim waits with 'PVC is not bound' until its PV comes",
        async () => {
          await Deno.mkdir(`${data}/late`);
          await c.apply(claim("late", { volumeName: "pv-late" }));
          await c.apply(
            claimPod(
              c,
              "late",
              [{ name: "d", persistentVolumeClaim: { claimName: "late" } }],
              "echo hi >/data/d/f; sleep 3600",
            ),
          );
          assert.match(
            await failedMount(c, "late", /late/),
            /failed to process volumes=\[d\]: error processing PVC default\/late: PVC is not bound$/,
          );
          await c.apply(pv("pv-late", { hostPath: { path: `${data}/late`, type: "Directory" } }));
          await waitRunning(c, "late");
          await waitFor(
            () => Deno.readTextFile(`${data}/late/f`).then((s) => s === "hi\n", () => false),
            {
              timeoutMs: 30_000,
              what: "the pod's write on the hostPath PV",
            },
          );
        },
      );

      await t.step(
        "a local PV: bind-mounted into the pod dir, subPath, read-only claim",
        async () => {
          await Deno.mkdir(`${data}/local/sub`, { recursive: true });
          await Deno.writeTextFile(`${data}/local/sub/seed`, "seed");
          await c.apply(
            pv("pv-local", { local: { path: `${data}/local` } }, onNode(c.nodeName)),
            claim("local", { volumeName: "pv-local" }),
          );
          const pod = claimPod(c, "local-rw", [{
            name: "d",
            persistentVolumeClaim: { claimName: "local" },
          }]);
          pod.spec!.containers[0].volumeMounts!.push({
            name: "d",
            mountPath: "/sub",
            subPath: "sub",
          });
          await c.apply(pod);
          await waitRunning(c, "local-rw");
          assert.equal((await execMain(c, "local-rw", "cat /sub/seed")).out, "seed");
          assert.equal((await execMain(c, "local-rw", "echo w >/data/d/written")).code, 0);
          assert.equal(await Deno.readTextFile(`${data}/local/written`), "w\n");
          const uid = (await c.pod("local-rw"))!.metadata!.uid!;
          const root = await Deno.realPath(c.rootDir);
          assert.ok(
            podMounts(`${root}/pods/${uid}/`).includes(
              `${root}/pods/${uid}/volumes/kubernetes.io~local-volume/pv-local`,
            ),
            "the local volume's bind mount in the pod dir",
          );

          const ro = claimPod(c, "local-ro", [{
            name: "d",
            persistentVolumeClaim: { claimName: "local", readOnly: true },
          }]);
          await c.apply(ro);
          await waitRunning(c, "local-ro");
          assert.equal((await execMain(c, "local-ro", "cat /data/d/written")).out, "w");
          assert.notEqual(
            (await execMain(c, "local-ro", "touch /data/d/nope")).code,
            0,
            "read-only",
          );
        },
      );

      await t.step(
        "the local claim's stats: pvcRef in /stats/summary, kubelet_volume_stats_* on /metrics",
        async () => {
          interface Vol {
            name: string;
            capacityBytes?: number;
            usedBytes?: number;
            pvcRef?: { name: string; namespace: string };
          }
          const vol = await waitFor(async () => {
            const res = await c.agent.get("/stats/summary");
            const s = await res.json() as { pods?: { podRef: { name: string }; volume?: Vol[] }[] };
            return s.pods?.find((p) => p.podRef.name === "local-rw")?.volume?.find((v) =>
              v.name === "d"
            );
          }, {
            timeoutMs: 60_000,
            intervalMs: 1000,
            what: "local-rw's volume d in /stats/summary",
          });
          assert.deepEqual(vol.pvcRef, { name: "local", namespace: "default" });
          assert.ok((vol.capacityBytes ?? 0) > 0);
          const line = await waitFor(async () => {
            const text = await (await c.agent.get("/metrics")).text();
            return text.split("\n").find((l) =>
              l.startsWith(
                'kubelet_volume_stats_capacity_bytes{namespace="default",persistentvolumeclaim="local"}',
              )
            );
          }, { timeoutMs: 60_000, intervalMs: 1000, what: "kubelet_volume_stats_capacity_bytes" });
          assert.equal(Number(line.split(" ")[1]), vol.capacityBytes);
        },
      );

      await t.step("a PV pinned to another node is not mounted", async () => {
        await Deno.mkdir(`${data}/elsewhere`);
        await c.apply(
          pv("pv-elsewhere", { local: { path: `${data}/elsewhere` } }, onNode("other-node")),
          claim("elsewhere", { volumeName: "pv-elsewhere" }),
        );
        await c.apply(claimPod(c, "elsewhere", [{
          name: "d",
          persistentVolumeClaim: { claimName: "elsewhere" },
        }]));
        assert.equal(
          await failedMount(c, "elsewhere", /NodeAffinity/),
          'MountVolume.NodeAffinity check failed for volume "pv-elsewhere" : no matching NodeSelectorTerms',
        );
        assert.equal(await runningMain(c, "elsewhere"), undefined);
      });

      await t.step(
        "a generic ephemeral volume mounts the claim the controller manager made",
        async () => {
          await Deno.mkdir(`${data}/eph`);
          await c.apply(pv("pv-eph", { hostPath: { path: `${data}/eph` } }));
          await c.apply(claimPod(c, "eph", [{
            name: "scratch",
            ephemeral: {
              volumeClaimTemplate: {
                spec: {
                  accessModes: ["ReadWriteOnce"],
                  storageClassName: "manual",
                  resources: { requests: { storage: "1Mi" } },
                },
              },
            },
          }], "echo eph >/data/scratch/f; sleep 3600"));
          await waitRunning(c, "eph");
          const pvc = await c.getJson<{ metadata: { ownerReferences?: { name: string }[] } }>([
            "pvc",
            "eph-scratch",
          ]);
          assert.equal(pvc?.metadata.ownerReferences?.[0]?.name, "eph");
          await waitFor(
            () => Deno.readTextFile(`${data}/eph/f`).then((s) => s === "eph\n", () => false),
            {
              timeoutMs: 30_000,
              what: "the ephemeral volume's write",
            },
          );
        },
      );

      await t.step(
        "an agent restart leaves running claim pods and their mounts alone",
        async () => {
          const before = await runningMain(c, "local-rw");
          await c.restartAgent();
          await new Promise((r) => setTimeout(r, 5_000));
          assert.equal(await runningMain(c, "local-rw"), before, "same container");
          assert.equal((await execMain(c, "local-rw", "cat /data/d/written")).out, "w");
          const pod = await c.pod("local-rw");
          assert.equal(pod?.status?.containerStatuses?.[0]?.restartCount, 0);
        },
      );

      await t.step(
        "a ReadWriteOncePod claim in use before an agent restart is refused to a pod that " +
          "came while the agent was down",
        async () => {
          await Deno.mkdir(`${data}/rwop`);
          await c.apply(
            pv("pv-rwop", { hostPath: { path: `${data}/rwop` } }, {
              accessModes: ["ReadWriteOncePod"],
            }),
            claim("rwop", { volumeName: "pv-rwop", modes: ["ReadWriteOncePod"] }),
          );
          const uses = [{ name: "d", persistentVolumeClaim: { claimName: "rwop" } }];
          await c.apply(claimPod(c, "rwop-a", uses));
          const a = await waitRunning(c, "rwop-a");
          // Bound to the node directly: the scheduler would hold it back for the claim.
          await c.restartAgent({ whileStopped: () => c.apply(claimPod(c, "rwop-b", uses)) });
          assert.equal(
            await failedMount(c, "rwop-b", /ReadWriteOncePod/),
            'MountVolume.SetUp failed for volume "pv-rwop" : volume uses the ReadWriteOncePod ' +
              "access mode and is already in use by another pod",
          );
          assert.equal(await runningMain(c, "rwop-b"), undefined);
          assert.equal(await runningMain(c, "rwop-a"), a, "the first pod untouched");
          await c.kubectl(["delete", "pod", "rwop-a", "rwop-b", "--wait=true", "--timeout=90s"]);
        },
      );

      await t.step("a deleted pod's local mount goes, its data stays", async () => {
        const uid = (await c.pod("local-rw"))!.metadata!.uid!;
        const root = await Deno.realPath(c.rootDir);
        await c.kubectl(["delete", "pod", "local-rw", "local-ro", "--wait=true", "--timeout=90s"]);
        await waitFor(() => podMounts(`${root}/pods/${uid}/`).length === 0, {
          timeoutMs: 60_000,
          what: "the pod's mounts to go",
        });
        assert.equal(await Deno.readTextFile(`${data}/local/written`), "w\n");
        assert.equal(await Deno.readTextFile(`${data}/local/sub/seed`), "seed");
      });
    } finally {
      await c.close();
      await Deno.remove(data, { recursive: true }).catch(() => undefined);
    }
  },
});
