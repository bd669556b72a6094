/**
 * API mode, pods on a real control plane: a Deployment scheduled by the real scheduler runs and
 * shows Running in the API; `kubectl delete pod` terminates gracefully and the pod leaves the
 * API; a force deletion kills at once; a static pod appears as its mirror pod (recreated when
 * deleted, gone with the static pod); a pod asking for more CPU than allocatable is refused
 * OutOfcpu; an API server away for 60 s kills and restarts nothing; an agent restart restarts no
 * container and reconciles statuses without rewriting unchanged ones.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod, V1PodList } from "@kubernetes/client-node";
import { stringify as toYaml } from "yaml";
import { quantityMilliValue } from "../../src/util/quantity.ts";
import { waitFor } from "../support/wait.ts";
import { BUSYBOX, busyboxPod, E2E_TEST, setupCluster } from "./_cluster.ts";
import { isRunning, time } from "./_helpers.ts";

const ready = (p: V1Pod | V1Node | undefined) =>
  (p?.status?.conditions as { type: string; status: string }[] | undefined)?.find((c) =>
    c.type === "Ready"
  )?.status === "True";

Deno.test({
  name: "API mode: pods from the API server, their status, graceful deletion, mirror pods and " +
    "admission",
  ...E2E_TEST,
  async fn(t) {
    // Its own control plane, stopped by close() (or when the set-up fails).
    const e2e = await setupCluster();
    const cp = e2e.cp;
    const node = e2e.nodeName;
    const deploymentPods = async () =>
      ((await e2e.getJson<V1PodList>(["pods", "-n", "default", "-l", "app=web"]))?.items ?? [])
        .filter((p) => !p.metadata?.deletionTimestamp);
    /** The running containers of a pod, by the runtime. */
    const containers = async (podName: string, namespace = "default") => {
      const list = await e2e.cri.runtime.listContainers({
        labelSelector: {
          "io.kubernetes.pod.name": podName,
          "io.kubernetes.pod.namespace": namespace,
        },
      });
      return list.filter((c) => c.state === "CONTAINER_RUNNING");
    };
    const sandboxes = (uid: string) =>
      e2e.cri.runtime.listPodSandbox({ labelSelector: { "io.kubernetes.pod.uid": uid } });
    const gone = (name: string, what: string) =>
      waitFor(async () => (await e2e.pod(name)) === undefined, {
        timeoutMs: 60_000,
        intervalMs: 500,
        what,
      });

    try {
      await waitFor(async () => ready(await e2e.getJson<V1Node>(["node", node])), {
        timeoutMs: 60_000,
        intervalMs: 500,
        what: `node ${node} Ready`,
      });

      await t.step("a Deployment of 3 replicas is Running in the API within 20 s", async () => {
        const started = Date.now();
        await e2e.apply({
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "web", namespace: "default" },
          spec: {
            replicas: 3,
            selector: { matchLabels: { app: "web" } },
            template: {
              metadata: { labels: { app: "web" } },
              spec: {
                terminationGracePeriodSeconds: 5,
                containers: [{
                  name: "main",
                  image: BUSYBOX,
                  imagePullPolicy: "IfNotPresent",
                  command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"],
                  resources: { requests: { cpu: "10m", memory: "8Mi" } },
                }],
              },
            },
          },
        });
        const pods = await waitFor(async () => {
          const items = await deploymentPods();
          return items.length === 3 && items.every((p) => isRunning(p) && ready(p))
            ? items
            : undefined;
        }, { timeoutMs: 120_000, intervalMs: 500, what: "3 web pods Running and Ready" });
        const elapsed = Date.now() - started;
        assert.ok(elapsed <= 20_000, `all Running ${elapsed} ms after the apply`);
        for (const p of pods) {
          assert.equal(p.spec?.nodeName, node, "placed by the scheduler on this node");
          assert.ok(p.status?.podIP && p.status.hostIP, "pod and host IPs");
          assert.ok(p.status?.startTime);
          assert.equal(p.status?.qosClass, "Burstable");
          // PodObservedGenerationTracking: the status says which spec the kubelet acted on.
          assert.ok(p.metadata?.generation, "the API server sets a pod's generation");
          assert.equal(p.status?.observedGeneration, p.metadata?.generation);
          const readyCondition = p.status?.conditions?.find((c) => c.type === "Ready");
          assert.equal(readyCondition?.observedGeneration, p.metadata?.generation);
          const types = (p.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`).sort();
          assert.deepEqual(types, [
            "ContainersReady=True",
            "Initialized=True",
            "PodReadyToStartContainers=True",
            "PodScheduled=True",
            "Ready=True",
          ]);
          const [c] = p.status?.containerStatuses ?? [];
          assert.match(c.containerID ?? "", /^containerd:\/\//);
          assert.equal(c.restartCount, 0);
        }
        const table = await e2e.kubectl(["get", "pods", "-l", "app=web", "--no-headers"]);
        assert.equal(
          table.trim().split("\n").filter((l) => /\s1\/1\s+Running\s/.test(l)).length,
          3,
        );
      });

      await t.step(
        "kubectl delete pod terminates gracefully and the pod leaves the API",
        async () => {
          // The container takes 3 s to stop after SIGTERM, well inside its 30 s grace period.
          await e2e.apply(busyboxPod(
            "graceful",
            "trap 'sleep 3; exit 0' TERM; while true; do sleep 1; done",
            {
              node,
              extra: { terminationGracePeriodSeconds: 30, automountServiceAccountToken: false },
            },
          ));
          const p = await e2e.waitPod("graceful", isRunning, {
            timeoutMs: 60_000,
            what: "pod graceful Running",
          });
          const uid = p.metadata!.uid!;
          const t0 = Date.now();
          await e2e.kubectl(["delete", "pod", "graceful", "--wait=false"]);
          await gone("graceful", "pod graceful gone from the API");
          const took = Date.now() - t0;
          assert.ok(took >= 3_000, `gone after ${took} ms: not before the container stopped`);
          assert.ok(
            took < 30_000,
            `gone after ${took} ms: once stopped, not at the grace deadline`,
          );
          await waitFor(async () => (await sandboxes(uid)).length === 0, {
            timeoutMs: 60_000,
            what: "the deleted pod's sandbox removed",
          });
          assert.match(await e2e.agent.logTail(2_000), /after its graceful termination/);
        },
      );

      await t.step("a pod removed by force is killed at once", async () => {
        // It ignores SIGTERM and has 300 s of grace: only a kill at once ends it quickly.
        await e2e.apply(busyboxPod("forced", "trap '' TERM; while true; do sleep 1; done", {
          node,
          extra: { terminationGracePeriodSeconds: 300, automountServiceAccountToken: false },
        }));
        await e2e.waitPod("forced", isRunning, { timeoutMs: 60_000, what: "pod forced Running" });
        const t0 = Date.now();
        await e2e.kubectl(["delete", "pod", "forced", "--force", "--grace-period=0"]);
        await waitFor(async () => (await containers("forced")).length === 0, {
          timeoutMs: 60_000,
          intervalMs: 500,
          what: "the force-deleted pod's container stopped",
        });
        const took = Date.now() - t0;
        assert.ok(took < 30_000, `stopped ${took} ms after the force deletion`);
      });

      await t.step("a static pod appears as its mirror pod, recreated when deleted", async () => {
        // A class the agent cannot resolve: the API server's admission gives the mirror its value.
        await e2e.kubectl(["create", "priorityclass", "denolet-e2e-high", "--value=1000"]);
        const manifest = busyboxPod("mirrored", "while true; do sleep 1; done", {
          extra: { priorityClassName: "denolet-e2e-high" },
        });
        await Deno.writeTextFile(`${e2e.manifestDir}/mirrored.yaml`, toYaml(manifest));
        const name = `mirrored-${node}`;
        const mirror = await e2e.waitPod(name, (p) => isRunning(p) && ready(p), {
          timeoutMs: 60_000,
          what: "the mirror pod Running and Ready",
        });
        assert.equal(mirror.spec?.priority, 1000);
        const annotations = mirror.metadata?.annotations ?? {};
        assert.equal(annotations["kubernetes.io/config.source"], "file");
        assert.ok(annotations["kubernetes.io/config.mirror"]);
        assert.equal(
          annotations["kubernetes.io/config.mirror"],
          annotations["kubernetes.io/config.hash"],
        );
        const nodeUid = (await e2e.getJson<V1Node>(["node", node]))?.metadata?.uid;
        assert.deepEqual(
          mirror.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller]),
          [["Node", node, nodeUid, true]],
        );
        const [before] = await containers(name);
        assert.ok(before, "the static pod runs");

        await e2e.kubectl(["delete", "pod", name, "--wait=false"]);
        const again = await e2e.waitPod(
          name,
          (p) =>
            p.metadata?.uid !== mirror.metadata?.uid && !p.metadata?.deletionTimestamp &&
            isRunning(p),
          { timeoutMs: 60_000, what: "the mirror pod recreated with its status" },
        );
        assert.ok(again);
        assert.deepEqual((await containers(name)).map((c) => c.id), [before.id], "not restarted");

        await Deno.remove(`${e2e.manifestDir}/mirrored.yaml`);
        await gone(name, "the mirror pod deleted with its static pod");
        await e2e.kubectl(["delete", "priorityclass", "denolet-e2e-high"]);
      });

      await t.step(
        "a pod that asks for more CPU than allocatable is refused OutOfcpu",
        async () => {
          const allocatable = (await e2e.getJson<V1Node>(["node", node]))!.status!.allocatable!;
          await e2e.apply(busyboxPod("greedy", "sleep 3600", {
            node,
            extra: {
              automountServiceAccountToken: false,
              containers: [{
                name: "main",
                image: BUSYBOX,
                imagePullPolicy: "IfNotPresent",
                command: ["sleep", "3600"],
                resources: { requests: { cpu: "1000" } },
              }],
            },
          }));
          const refused = await e2e.waitPod("greedy", (p) => p.status?.phase === "Failed", {
            timeoutMs: 60_000,
            what: "pod greedy Failed",
          });
          assert.equal(refused.status?.reason, "OutOfcpu");
          assert.match(
            refused.status?.message ?? "",
            /^Pod was rejected: Node didn't have enough resource: cpu, requested: 1000000, used: \d+, capacity: \d+$/,
          );
          const capacity = Number(/capacity: (\d+)/.exec(refused.status!.message!)![1]);
          assert.equal(capacity, quantityMilliValue(allocatable.cpu), "the Node's allocatable");
          assert.equal((await sandboxes(refused.metadata!.uid!)).length, 0, "never started");
          await e2e.kubectl(["delete", "pod", "greedy", "--wait=false"]);
          await gone("greedy", "the refused pod deleted");
        },
      );

      await t.step("an API server away for 60 s kills and restarts nothing", async () => {
        const before = await deploymentPods();
        const ids = async () =>
          (await Promise.all(before.map((p) => containers(p.metadata!.name!))))
            .flat().map((c) => `${c.id}@${c.metadata.attempt}`).sort();
        const running = await ids();
        assert.equal(running.length, 3);
        await cp.stopApiServer();
        try {
          const until = Date.now() + 60_000;
          while (Date.now() < until) {
            await new Promise((r) => setTimeout(r, 10_000));
            assert.deepEqual(await ids(), running, "the same containers keep running");
          }
        } finally {
          await cp.startApiServer();
        }
        assert.deepEqual(await ids(), running);
        const after = await waitFor(async () => {
          const items = await deploymentPods();
          return items.length === 3 && items.every((p) => isRunning(p) && ready(p))
            ? items
            : undefined;
        }, { timeoutMs: 60_000, intervalMs: 1_000, what: "the web pods Running after the outage" });
        assert.deepEqual(
          after.map((p) => p.metadata?.uid).sort(),
          before.map((p) => p.metadata?.uid).sort(),
          "the same pods",
        );
        for (const p of after) assert.equal(p.status?.containerStatuses?.[0].restartCount, 0);
      });

      await t.step("an agent restart restarts no container and reconciles statuses", async () => {
        // A pod that finishes while the agent is down: its Succeeded is written after the start.
        await e2e.apply(busyboxPod("short", "sleep 8", {
          node,
          extra: { restartPolicy: "Never", automountServiceAccountToken: false },
        }));
        await e2e.waitPod("short", isRunning, { timeoutMs: 60_000, what: "pod short Running" });
        // A static pod: its mirror's status must survive the restart unrewritten too.
        await Deno.writeTextFile(
          `${e2e.manifestDir}/steady.yaml`,
          toYaml(busyboxPod("steady", "while true; do sleep 1; done")),
        );
        const steady = await e2e.waitPod(`steady-${node}`, (p) => isRunning(p) && ready(p), {
          timeoutMs: 60_000,
          what: "the steady mirror pod Running and Ready",
        });
        const web = await deploymentPods();
        const ids = async () =>
          (await Promise.all(web.map((p) => containers(p.metadata!.name!))))
            .flat().map((c) => `${c.id}@${c.metadata.attempt}`).sort();
        const running = await ids();
        const versions = new Map(web.map((p) => [p.metadata!.uid!, p.metadata!.resourceVersion]));

        await e2e.agent.stop();
        await new Promise((r) => setTimeout(r, 12_000)); // "short" exits meanwhile
        await e2e.restartAgent();

        const short = await e2e.waitPod("short", (p) => p.status?.phase === "Succeeded", {
          timeoutMs: 60_000,
          what: "pod short Succeeded after the restart",
        });
        const terminated = short.status?.containerStatuses?.[0].state?.terminated;
        assert.equal(terminated?.exitCode, 0);
        assert.equal(terminated?.reason, "Completed");
        // Let the restarted agent sync every pod a few times.
        await new Promise((r) => setTimeout(r, 15_000));
        assert.deepEqual(await ids(), running, "no container restarted");
        for (const p of await deploymentPods()) {
          assert.ok(isRunning(p) && ready(p), `${p.metadata?.name} still Running and Ready`);
          assert.equal(
            p.metadata?.resourceVersion,
            versions.get(p.metadata!.uid!),
            `${p.metadata?.name}: an unchanged status is not written again`,
          );
        }
        assert.ok(time(short.status?.startTime) > 0);
        const mirror = await e2e.pod(`steady-${node}`);
        assert.equal(mirror?.metadata?.uid, steady.metadata?.uid, "the same mirror pod");
        assert.equal(
          mirror?.metadata?.resourceVersion,
          steady.metadata?.resourceVersion,
          "the mirror's unchanged status is not written again",
        );
      });
    } finally {
      // The agent stops the pods it was asked to delete; the ones it leaves running at the end
      // would keep their cgroups busy past the suite.
      await Deno.remove(`${e2e.manifestDir}/mirrored.yaml`).catch(() => undefined);
      await Deno.remove(`${e2e.manifestDir}/steady.yaml`).catch(() => undefined);
      await e2e.kubectl(["delete", "priorityclass", "denolet-e2e-high", "--ignore-not-found"])
        .catch(() => undefined);
      await e2e.kubectl(["delete", "deployment", "web", "--ignore-not-found", "--wait=false"])
        .then(() =>
          waitFor(async () => {
            const all = await e2e.getJson<V1PodList>(["pods", "-n", "default", "-l", "app=web"]);
            return (all?.items ?? []).length === 0;
          }, {
            timeoutMs: 60_000,
            what: "the web pods deleted",
          })
        )
        .catch((err) => console.error(`[cluster_pods_test] clean-up: ${err}`));
      await e2e.close();
    }
  },
});
