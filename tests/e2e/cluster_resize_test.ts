/**
 * In-place pod resize on a real control plane (containerd 1.6, cgroup v1), as a user does it:
 * `kubectl patch pod --subresource resize` raises then lowers a running container's cpu and
 * memory without restarting it (same containerID, restartCount 0), its cgroup files and the pod
 * cgroup's change, and the status shows the new resources; a resize that does not fit now is
 * Deferred until room appears; one beyond the node is refused by the API server (v1.37); a
 * RestartContainer policy restarts only that container; a static pod with a fixed UID resized
 * beyond the node is Infeasible on its mirror pod.
 */
import assert from "node:assert/strict";
import type {
  CoreV1EventList,
  V1Container,
  V1ContainerStatus,
  V1Pod,
} from "@kubernetes/client-node";
import { stringify as toYaml } from "yaml";
import { quantityMilliValue } from "../../src/util/quantity.ts";
import { waitFor } from "../support/wait.ts";
import { BUSYBOX, E2E_TEST, setupCluster } from "./_cluster.ts";
import { shellContainer } from "./_helpers.ts";

const CG = "/sys/fs/cgroup";
const MI = 2 ** 20;
const read = (p: string) => Deno.readTextFile(p).then((s) => s.trim());
const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

function box(
  name: string,
  r: { cpu: [string, string]; memory: [string, string] },
  extra: Partial<V1Container> = {},
): V1Container {
  return shellContainer(name, "sleep 3600", {
    resources: {
      requests: { cpu: r.cpu[0], memory: r.memory[0] },
      limits: { cpu: r.cpu[1], memory: r.memory[1] },
    },
    ...extra,
  });
}

const status = (p: V1Pod, name: string): V1ContainerStatus | undefined =>
  p.status?.containerStatuses?.find((s) => s.name === name);
const idOf = (p: V1Pod, name: string) =>
  (status(p, name)?.containerID ?? "").replace(/^.*:\/\//, "");
/** status.resources and status.allocatedResources, which the client's types lack. */
type PodLevelStatus = {
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  allocatedResources?: Record<string, string>;
};
const noResizeConditions = (p: V1Pod) =>
  !(p.status?.conditions ?? []).some((c) => c.type.startsWith("PodResize"));

Deno.test({
  name: "API mode: kubectl patch --subresource resize resizes a running pod in place",
  ...E2E_TEST,
  ignore: await exists(`${CG}/cgroup.controllers`), // reads cgroup v1 files
  async fn(t) {
    const e2e = await setupCluster();
    const node = e2e.nodeName;
    const podCgroup = (p: V1Pod) => `denolet-e2e/${node}/kubepods/burstable/pod${p.metadata!.uid}`;
    const resize = (pod: string, containers: unknown[]) =>
      e2e.kubectl([
        "patch",
        "pod",
        pod,
        "--subresource",
        "resize",
        "--type",
        "strategic",
        "-p",
        JSON.stringify({ spec: { containers } }),
      ]);
    const events = async (pod: string) =>
      ((await e2e.getJson<CoreV1EventList>([
        "events",
        "-n",
        "default",
        "--field-selector",
        `involvedObject.name=${pod}`,
      ]))?.items ?? []).map((e) => `${e.type} ${e.reason}`);
    const wait = { timeoutMs: 60_000, intervalMs: 500 };
    let failed = false;
    const step = async (name: string, fn: () => Promise<void> | void) => {
      if (!(await t.step(name, fn))) failed = true;
    };
    try {
      const ready = await e2e.waitNodeReady(wait);

      await step("the Node declares the resize features", () => {
        const declared = (ready.status as { declaredFeatures?: string[] }).declaredFeatures;
        assert.deepEqual(declared, [
          "InPlacePodLevelResourcesVerticalScaling",
          "InPlacePodVerticalScalingInitContainers",
        ]);
      });

      await e2e.apply({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "resize", namespace: "default" },
        spec: {
          nodeName: node,
          terminationGracePeriodSeconds: 2,
          containers: [
            box("main", { cpu: ["100m", "200m"], memory: ["32Mi", "64Mi"] }),
            box("restarter", { cpu: ["100m", "100m"], memory: ["32Mi", "64Mi"] }, {
              resizePolicy: [
                { resourceName: "cpu", restartPolicy: "NotRequired" },
                { resourceName: "memory", restartPolicy: "RestartContainer" },
              ],
            }),
          ],
        },
      });
      const first = await e2e.waitPod(
        "resize",
        (p) => (p.status?.containerStatuses ?? []).filter((s) => s.state?.running).length === 2,
        { ...wait, what: "pod resize running" },
      );
      const mainId = idOf(first, "main");
      const restarterId = idOf(first, "restarter");
      const mainCg = (ctrl: string) => `${CG}/${ctrl}/${podCgroup(first)}/${mainId}`;
      const podCg = (ctrl: string) => `${CG}/${ctrl}/${podCgroup(first)}`;

      await step("the running containers show their resources", () => {
        assert.deepEqual(status(first, "main")?.resources, {
          requests: { cpu: "100m", memory: "32Mi" },
          limits: { cpu: "200m", memory: "64Mi" },
        });
        assert.deepEqual(status(first, "main")?.allocatedResources, {
          cpu: "100m",
          memory: "32Mi",
        });
      });

      await step("raising cpu and memory resizes the container in place", async () => {
        await resize("resize", [{
          name: "main",
          resources: {
            requests: { cpu: "200m", memory: "64Mi" },
            limits: { cpu: "400m", memory: "128Mi" },
          },
        }]);
        const p = await e2e.waitPod(
          "resize",
          (p) =>
            status(p, "main")?.resources?.limits?.cpu === "400m" &&
            status(p, "main")?.resources?.limits?.memory === "128Mi" &&
            noResizeConditions(p),
          { ...wait, what: "main resized up" },
        );
        assert.equal(idOf(p, "main"), mainId, "same container");
        assert.equal(status(p, "main")?.restartCount, 0);
        assert.deepEqual(status(p, "main")?.resources?.requests, { cpu: "200m", memory: "64Mi" });
        assert.deepEqual(status(p, "main")?.allocatedResources, { cpu: "200m", memory: "64Mi" });
        assert.equal(await read(`${mainCg("cpu")}/cpu.cfs_quota_us`), "40000");
        assert.equal(await read(`${mainCg("cpu")}/cpu.shares`), "204");
        assert.equal(await read(`${mainCg("memory")}/memory.limit_in_bytes`), `${128 * MI}`);
        // The pod cgroup holds both containers: 400m + 100m, 128Mi + 64Mi.
        assert.equal(await read(`${podCg("cpu")}/cpu.cfs_quota_us`), "50000");
        assert.equal(await read(`${podCg("memory")}/memory.limit_in_bytes`), `${192 * MI}`);
        assert.equal(idOf(p, "restarter"), restarterId);
        await waitFor(async () => {
          const seen = await events("resize");
          return seen.includes("Normal ResizeStarted") && seen.includes("Normal ResizeCompleted");
        }, { ...wait, what: "ResizeStarted and ResizeCompleted events" });
      });

      await step("lowering them resizes it back, still without a restart", async () => {
        await resize("resize", [{
          name: "main",
          resources: {
            requests: { cpu: "100m", memory: "32Mi" },
            limits: { cpu: "150m", memory: "48Mi" },
          },
        }]);
        const p = await e2e.waitPod(
          "resize",
          (p) =>
            status(p, "main")?.resources?.limits?.memory === "48Mi" &&
            status(p, "main")?.resources?.limits?.cpu === "150m" &&
            noResizeConditions(p),
          { ...wait, what: "main resized down" },
        );
        assert.equal(idOf(p, "main"), mainId);
        assert.equal(status(p, "main")?.restartCount, 0);
        assert.equal(await read(`${mainCg("cpu")}/cpu.cfs_quota_us`), "15000");
        assert.equal(await read(`${mainCg("memory")}/memory.limit_in_bytes`), `${48 * MI}`);
        assert.equal(await read(`${podCg("cpu")}/cpu.cfs_quota_us`), "25000");
        assert.equal(await read(`${podCg("memory")}/memory.limit_in_bytes`), `${112 * MI}`);
      });

      await step("a resize beyond the node is refused by the API server", async () => {
        await assert.rejects(
          resize("resize", [{
            name: "main",
            resources: { requests: { cpu: "1000" }, limits: { cpu: "1000" } },
          }]),
          /node didn't have enough allocatable resources: cpu, requested: 1000100/,
        );
      });

      await step(
        "a resize that does not fit now is Deferred, then done when room appears",
        async () => {
          const alloc = quantityMilliValue(ready.status!.allocatable!.cpu);
          await e2e.apply({
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name: "filler", namespace: "default" },
            spec: {
              nodeName: node,
              terminationGracePeriodSeconds: 1,
              containers: [
                box("fill", {
                  cpu: [`${alloc - 300}m`, `${alloc - 300}m`],
                  memory: ["16Mi", "16Mi"],
                }),
              ],
            },
          });
          await e2e.waitPod("filler", (p) => p.status?.phase === "Running", {
            ...wait,
            what: "filler running",
          });
          await resize("resize", [{
            name: "main",
            resources: { requests: { cpu: "300m" }, limits: { cpu: "300m" } },
          }]);
          const deferred = await e2e.waitPod(
            "resize",
            (p) => p.status?.conditions?.some((c) => c.type === "PodResizePending") ?? false,
            { ...wait, what: "PodResizePending" },
          );
          const c = deferred.status!.conditions!.find((c) => c.type === "PodResizePending")!;
          assert.equal(c.reason, "Deferred");
          assert.equal(
            c.message,
            `Node didn't have enough resource: cpu, requested: 400, used: ${alloc - 300}, ` +
              `capacity: ${alloc}`,
          );
          assert.equal(c.observedGeneration, deferred.metadata?.generation);
          assert.equal(status(deferred, "main")?.allocatedResources?.cpu, "100m");
          await waitFor(async () => (await events("resize")).includes("Warning ResizeDeferred"), {
            ...wait,
            what: "ResizeDeferred event",
          });

          await e2e.kubectl(["delete", "pod", "filler", "--wait=false"]);
          const p = await e2e.waitPod(
            "resize",
            (p) => status(p, "main")?.resources?.limits?.cpu === "300m" && noResizeConditions(p),
            {
              ...wait,
              what: "the deferred resize done",
            },
          );
          assert.equal(idOf(p, "main"), mainId);
          assert.equal(await read(`${mainCg("cpu")}/cpu.cfs_quota_us`), "30000");
        },
      );

      await step("RestartContainer restarts that container only", async () => {
        await resize("resize", [{
          name: "restarter",
          resources: { requests: { memory: "48Mi" }, limits: { memory: "96Mi" } },
        }]);
        const p = await e2e.waitPod(
          "resize",
          (p) =>
            idOf(p, "restarter") !== restarterId && status(p, "restarter")?.state?.running !==
              undefined &&
            noResizeConditions(p),
          { ...wait, what: "restarter restarted" },
        );
        assert.equal(status(p, "restarter")?.restartCount, 1);
        assert.deepEqual(status(p, "restarter")?.resources?.limits, {
          cpu: "100m",
          memory: "96Mi",
        });
        assert.equal(idOf(p, "main"), mainId, "main kept");
        assert.equal(status(p, "main")?.restartCount, 0);
        const cg = `${CG}/memory/${podCgroup(p)}/${idOf(p, "restarter")}`;
        assert.equal(await read(`${cg}/memory.limit_in_bytes`), `${96 * MI}`);
      });

      await step(
        "pod-level resources resize the pod cgroup and the containers using them",
        async () => {
          await e2e.apply({
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name: "podlevel", namespace: "default" },
            spec: {
              nodeName: node,
              terminationGracePeriodSeconds: 1,
              resources: {
                requests: { cpu: "100m", memory: "32Mi" },
                limits: { cpu: "200m", memory: "64Mi" },
              },
              containers: [{
                name: "main",
                image: BUSYBOX,
                imagePullPolicy: "IfNotPresent",
                command: ["sh", "-c", "sleep 3600"],
              }],
            },
          });
          const up = await e2e.waitPod(
            "podlevel",
            (p) =>
              status(p, "main")?.state?.running !== undefined &&
              (p.status as PodLevelStatus).resources?.limits?.cpu === "200m",
            {
              ...wait,
              what: "podlevel running",
            },
          );
          assert.deepEqual((up.status as PodLevelStatus).allocatedResources, {
            cpu: "100m",
            memory: "32Mi",
          });
          const id = idOf(up, "main");
          await e2e.kubectl([
            "patch",
            "pod",
            "podlevel",
            "--subresource",
            "resize",
            "--type",
            "merge",
            "-p",
            JSON.stringify({ spec: { resources: { limits: { cpu: "300m", memory: "64Mi" } } } }),
          ]);
          const p = await e2e.waitPod(
            "podlevel",
            (p) =>
              (p.status as PodLevelStatus).resources?.limits?.cpu === "300m" &&
              noResizeConditions(p),
            { ...wait, what: "pod-level resize done" },
          );
          assert.equal(idOf(p, "main"), id);
          assert.equal(status(p, "main")?.restartCount, 0);
          const pcg = `${CG}/cpu/${podCgroup(p)}`;
          assert.equal(await read(`${pcg}/cpu.cfs_quota_us`), "30000");
          assert.equal(await read(`${pcg}/${id}/cpu.cfs_quota_us`), "30000", "the pod's limit");
          await e2e.kubectl(["delete", "pod", "podlevel", "--wait=false"]);
        },
      );

      await step(
        "a static pod with a fixed UID resized beyond the node is Infeasible",
        async () => {
          const manifest = (cpu: string) =>
            toYaml({
              apiVersion: "v1",
              kind: "Pod",
              metadata: { name: "static-resize", namespace: "default", uid: "static-resize-uid" },
              spec: {
                terminationGracePeriodSeconds: 1,
                containers: [box("main", { cpu: [cpu, cpu], memory: ["16Mi", "16Mi"] })],
              },
            });
          const path = `${e2e.manifestDir}/static-resize.yaml`;
          await Deno.writeTextFile(path, manifest("100m"));
          const mirror = `static-resize-${node}`;
          const up = await e2e.waitPod(
            mirror,
            (p) => status(p, "main")?.state?.running !== undefined,
            { ...wait, what: "static pod up" },
          );
          await Deno.writeTextFile(path, manifest("1000"));
          const p = await e2e.waitPod(
            mirror,
            (p) => p.status?.conditions?.some((c) => c.type === "PodResizePending") ?? false,
            { ...wait, what: "static pod PodResizePending" },
          );
          const c = p.status!.conditions!.find((c) => c.type === "PodResizePending")!;
          assert.equal(c.reason, "Infeasible");
          assert.match(
            c.message ?? "",
            /^Node didn't have enough capacity: cpu, requested: 1000000, capacity: \d+$/,
          );
          assert.equal(idOf(p, "main"), idOf(up, "main"), "not restarted");
          await Deno.remove(path);
        },
      );
    } finally {
      // What the agent did is the first thing to look at when a step fails.
      if (failed) console.error(`agent log tail:\n${await e2e.agent.logTail(150)}`);
      await e2e.kubectl(["delete", "pod", "resize", "filler", "--ignore-not-found", "--wait=false"])
        .catch(() => undefined);
      await e2e.close();
    }
  },
});
