/**
 * API mode, the Node and its Lease on a real control plane: the agent registers its Node and is
 * Ready within 10 s of its start, with the labels, taints, addresses, capacity and allocatable
 * it was configured with, and says so in Node events; the lease is owned by the Node and
 * renewed; the real scheduler places a pod on it; the API server stopped for 60 s leaves that
 * pod and a static pod running and the Node Ready again within 30 s of its return, with no
 * container restarted.
 */
import assert from "node:assert/strict";
import type { CoreV1Event, V1Lease, V1Node, V1Pod } from "@kubernetes/client-node";
import { stringify as toYaml } from "yaml";
import { detectNodeIP } from "../../src/agent/_node_ip.ts";
import { readMachineInfo } from "../../src/node/mod.ts";
import { quantityMilliValue, quantityValue } from "../../src/util/quantity.ts";
import { startControlPlane } from "../support/control_plane.ts";
import { waitFor } from "../support/wait.ts";
import { BUSYBOX, E2E_TEST, setupCluster } from "./_cluster.ts";
import { time } from "./_helpers.ts";

const MiB = 2 ** 20;
const GiB = 2 ** 30;

const ready = (n: V1Node | undefined) => n?.status?.conditions?.find((c) => c.type === "Ready");

Deno.test({
  name: "API mode: the Node registers Ready as configured, its lease renews, and it outlives an " +
    "API server outage",
  ...E2E_TEST,
  async fn(t) {
    const nodeIP = detectNodeIP();
    assert.ok(nodeIP, "the machine has a non-loopback address for --node-ip");
    const cp = await startControlPlane();
    const startedAt = Date.now();
    const e2e = await setupCluster({
      controlPlane: cp,
      extraArgs: [
        `--node-ip=${nodeIP}`,
        "--node-labels=denolet.test/role=edge,denolet.test/zone=lab",
        "--register-with-taints=denolet.test/dedicated=e2e:NoSchedule",
        "--kube-reserved=cpu=100m,memory=100Mi",
        "--system-reserved=cpu=50m,memory=50Mi,ephemeral-storage=1Gi",
        "--max-pods=50",
      ],
    }).catch(async (err) => {
      await cp.stop();
      throw err;
    });
    const name = e2e.nodeName;
    const node = () => e2e.getJson<V1Node>(["node", name]);
    const lease = () => e2e.getJson<V1Lease>(["lease", name, "-n", "kube-node-lease"]);
    try {
      await t.step("the Node is Ready within 10 s of the agent's start", async () => {
        const n = await waitFor(async () => {
          const n = await node();
          return ready(n)?.status === "True" ? n : undefined;
        }, { timeoutMs: 60_000, intervalMs: 500, what: `node ${name} Ready` });
        const readyAfterMs = time(ready(n)!.lastTransitionTime) - startedAt;
        assert.ok(readyAfterMs <= 10_000, `Ready ${readyAfterMs} ms after the start`);
        assert.equal(ready(n)?.reason, "KubeletReady");
        assert.equal(ready(n)?.message, "kubelet is posting ready status");
        const table = await e2e.kubectl(["get", "nodes", "--no-headers"]);
        assert.match(table, new RegExp(`^${name}\\s+Ready\\s`, "m"));
      });

      await t.step(
        "labels, taints, addresses, capacity and allocatable are as configured",
        async () => {
          const n = (await node())!;
          const labels = n.metadata?.labels ?? {};
          assert.equal(labels["kubernetes.io/hostname"], name);
          assert.equal(labels["kubernetes.io/os"], "linux");
          assert.equal(
            labels["kubernetes.io/arch"],
            Deno.build.arch === "x86_64" ? "amd64" : "arm64",
          );
          assert.equal(labels["denolet.test/role"], "edge");
          assert.equal(labels["denolet.test/zone"], "lab");
          assert.deepEqual(
            n.spec?.taints?.filter((x) => x.key.startsWith("denolet.test/")),
            [{ key: "denolet.test/dedicated", value: "e2e", effect: "NoSchedule" }],
          );
          assert.deepEqual(n.status?.addresses, [
            { type: "InternalIP", address: nodeIP },
            { type: "Hostname", address: name },
          ]);

          const machine = await readMachineInfo();
          const cap = n.status!.capacity!;
          const alloc = n.status!.allocatable!;
          assert.equal(quantityValue(cap.cpu), machine.cpus);
          assert.equal(quantityValue(cap.memory), machine.memoryBytes);
          assert.equal(cap.pods, "50");
          assert.equal(quantityMilliValue(alloc.cpu), machine.cpus * 1000 - 150);
          const hugePages = machine.hugePages.reduce((sum, h) => sum + h.bytes, 0);
          // kube-reserved 100Mi, system-reserved 50Mi, the default hard eviction memory.available<100Mi.
          assert.equal(
            quantityValue(alloc.memory),
            machine.memoryBytes - 250 * MiB - hugePages,
          );
          // system-reserved 1Gi and the default nodefs.available<10%.
          const disk = quantityValue(cap["ephemeral-storage"]);
          const expected = disk - GiB - disk * 0.1;
          assert.ok(
            Math.abs(quantityValue(alloc["ephemeral-storage"]) - expected) < MiB,
            `ephemeral-storage ${alloc["ephemeral-storage"]} of ${cap["ephemeral-storage"]}`,
          );
          assert.equal(alloc.pods, "50");

          const info = n.status!.nodeInfo!;
          assert.match(info.kubeletVersion, /^v\d+\.\d+\.\d+/);
          assert.match(info.containerRuntimeVersion, /^containerd:\/\//);
          assert.equal(info.operatingSystem, "linux");
          assert.equal(info.kernelVersion, Deno.osRelease());
          assert.equal(info.bootID, machine.bootID);
          assert.equal(info.machineID, machine.machineID);
          assert.ok(info.osImage);
          assert.deepEqual(
            n.status?.conditions?.map((x) => [x.type, x.status, x.reason]),
            [
              ["MemoryPressure", "False", "KubeletHasSufficientMemory"],
              ["DiskPressure", "False", "KubeletHasNoDiskPressure"],
              ["PIDPressure", "False", "KubeletHasSufficientPID"],
              ["Ready", "True", "KubeletReady"],
            ],
          );
          const images = n.status?.images ?? [];
          assert.ok(images.some((i) => i.names?.includes(BUSYBOX)), "the busybox image is listed");
          const sizes = images.map((i) => i.sizeBytes ?? 0);
          assert.deepEqual(sizes, [...sizes].sort((a, b) => b - a), "largest first");
        },
      );

      await t.step("registration tells the pressure conditions in Node events", async () => {
        const reasons = [
          "NodeHasSufficientMemory",
          "NodeHasNoDiskPressure",
          "NodeHasSufficientPID",
        ];
        const events = await waitFor(async () => {
          const list = await e2e.getJson<{ items: CoreV1Event[] }>([
            "events",
            "-n",
            "default",
            "--field-selector",
            `involvedObject.kind=Node,involvedObject.name=${name}`,
          ]);
          const items = list?.items ?? [];
          return reasons.every((r) => items.some((e) => e.reason === r)) ? items : undefined;
        }, { timeoutMs: 30_000, intervalMs: 1_000, what: "the node's condition events" });
        const memory = events.find((e) => e.reason === "NodeHasSufficientMemory")!;
        assert.equal(memory.message, `Node ${name} status is now: NodeHasSufficientMemory`);
        assert.equal(memory.type, "Normal");
      });

      await t.step("the lease is owned by the Node and its renewTime advances", async () => {
        const n = (await node())!;
        const first = await waitFor(lease, { timeoutMs: 30_000, what: "the node lease" });
        assert.deepEqual(first.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid]), [
          ["Node", name, n.metadata?.uid],
        ]);
        assert.equal(first.spec?.holderIdentity, name);
        assert.equal(first.spec?.leaseDurationSeconds, 40);
        const renewed = await waitFor(async () => {
          const l = await lease();
          return l && time(l.spec?.renewTime) > time(first.spec?.renewTime) ? l : undefined;
        }, { timeoutMs: 30_000, intervalMs: 1_000, what: "a lease renewal" });
        const gap = time(renewed.spec?.renewTime) - time(first.spec?.renewTime);
        assert.ok(gap >= 9_000, `renewed ${gap} ms after the previous renewal, not before 10 s`);
      });

      await t.step("the real scheduler places a pod on the Node", async () => {
        const pod: V1Pod = {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "scheduled", namespace: "default" },
          spec: {
            // A plain pod: the token volume is another suite's subject.
            automountServiceAccountToken: false,
            terminationGracePeriodSeconds: 2,
            tolerations: [{ key: "denolet.test/dedicated", operator: "Exists" }],
            containers: [{
              name: "main",
              image: BUSYBOX,
              imagePullPolicy: "IfNotPresent",
              command: ["sleep", "3600"],
              resources: { requests: { cpu: "100m", memory: "32Mi" } },
            }],
          },
        };
        await e2e.apply(pod);
        const placed = await e2e.waitPod("scheduled", (p) => p.spec?.nodeName !== undefined, {
          timeoutMs: 60_000,
          what: "pod scheduled placed by the scheduler",
        });
        assert.equal(placed.spec?.nodeName, name);
      });

      await t.step(
        "an API server away for 60 s: pods keep running, Ready again within 30 s",
        async () => {
          const staticPod: V1Pod = {
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name: "outage", namespace: "default" },
            spec: {
              automountServiceAccountToken: false,
              terminationGracePeriodSeconds: 2,
              containers: [{
                name: "main",
                image: BUSYBOX,
                imagePullPolicy: "IfNotPresent",
                command: ["sleep", "3600"],
              }],
            },
          };
          await Deno.writeTextFile(`${e2e.manifestDir}/outage.yaml`, toYaml(staticPod));
          // The scheduled pod runs from the API, the static one from its manifest: both must
          // outlive the outage in the same containers.
          const podNames = ["scheduled", `outage-${name}`];
          const running = async () => {
            const lists = await Promise.all(podNames.map((pod) =>
              e2e.cri.runtime.listContainers({
                labelSelector: { "io.kubernetes.pod.name": pod, "io.denolet.node-name": name },
              })
            ));
            return lists.flatMap((l) => l.filter((x) => x.state === "CONTAINER_RUNNING"));
          };
          const before = await waitFor(async () => {
            const r = await running();
            return r.length === podNames.length ? r : undefined;
          }, { timeoutMs: 60_000, what: "the containers of both pods running" });
          const ids = before.map((x) => x.id).sort();

          await cp.stopApiServer();
          const downUntil = Date.now() + 60_000;
          while (Date.now() < downUntil) {
            await new Promise((r) => setTimeout(r, 10_000));
            const now = await running();
            assert.deepEqual(now.map((x) => x.id).sort(), ids, "the containers keep running");
            const health = await e2e.agent.get("/healthz");
            await health.body?.cancel();
            assert.equal(health.status, 200, "the agent stays healthy without the API server");
          }
          await cp.startApiServer();
          const backAt = Date.now();
          await waitFor(async () => {
            const [n, l] = await Promise.all([node(), lease()]);
            return ready(n)?.status === "True" && l && time(l.spec?.renewTime) >= backAt - 1_000;
          }, { timeoutMs: 30_000, intervalMs: 1_000, what: "the Node Ready with a renewed lease" });

          const after = await running();
          assert.deepEqual(after.map((x) => x.id).sort(), ids);
          assert.deepEqual(after.map((x) => x.metadata.attempt), [0, 0], "none restarted");
          // The lease notices the outage; the node status need not (an unchanged status is read
          // from the watch's copy and not posted, as upstream's node lister makes it).
          const log = await e2e.agent.logTail(20_000);
          assert.match(log, /Failed to update lease|Failed to ensure lease exists/);

          // Stopped by the agent, the pod's cgroups go with it rather than outlive the suite.
          await Deno.remove(`${e2e.manifestDir}/outage.yaml`);
          await waitFor(async () => {
            const sandboxes = await e2e.cri.runtime.listPodSandbox({
              labelSelector: { "io.kubernetes.pod.name": `outage-${name}` },
              state: { state: "SANDBOX_READY" },
            });
            return sandboxes.length === 0;
          }, { timeoutMs: 60_000, what: "the outage pod stopped after its manifest was removed" });
        },
      );
    } finally {
      await e2e.kubectl(["delete", "pod", "scheduled", "--ignore-not-found", "--wait=false"])
        .catch(() => undefined); // the API server may be down if a step failed
      await Deno.remove(`${e2e.manifestDir}/outage.yaml`).catch(() => undefined);
      await e2e.close();
      await cp.stop();
    }
  },
});
