/**
 * k3s's default StorageClass on a denolet node: rancher's local-path-provisioner v0.0.30, built
 * from the Go module proxy and deployed as upstream ships it (its Deployment, RBAC, ConfigMap
 * and StorageClass; host network with the API server's address, as there is no kube-proxy
 * here), with the scheduler and controller manager running. Its helper pods (the node runs
 * them) make and remove the volume directories. A StatefulSet's volumeClaimTemplate data
 * survives the pod's deletion, an agent restart (same container) and an offline reboot (every
 * container and mount gone, the API server away: the pod comes back from the checkpoint with
 * its claim); a generic ephemeral volume on local-path is provisioned for its pod and removed
 * with it. Minutes long (and a Go build on a new machine), so not in `deno task test`: the file
 * name leaves it out; `deno task test:storage` runs it.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod, V1PodList } from "@kubernetes/client-node";
import { systemMounter } from "../../src/volumes/mod.ts";
import { removeAgentSandboxes, removeCgroupTree, waitFor } from "../support/agent.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { ensureLocalPathImage } from "../support/storage_components.ts";
import { BUSYBOX, type ClusterE2E, E2E_TEST, runningMain, setupCluster } from "./_cluster.ts";
import { isRunning } from "./_helpers.ts";

const TIMEOUT = 180_000;
const NS = "local-path-storage";

function localPathObjects(image: string, opts: { server: URL; path: string }) {
  const sa = {
    kind: "ServiceAccount",
    name: "local-path-provisioner-service-account",
    namespace: NS,
  };
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: sa.name, namespace: NS } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "local-path-provisioner-role", namespace: NS },
      rules: [{
        apiGroups: [""],
        resources: ["pods"],
        verbs: ["get", "list", "watch", "create", "patch", "update", "delete"],
      }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "local-path-provisioner-role" },
      rules: [
        {
          apiGroups: [""],
          resources: ["nodes", "persistentvolumeclaims", "configmaps", "pods", "pods/log"],
          verbs: ["get", "list", "watch"],
        },
        {
          apiGroups: [""],
          resources: ["persistentvolumes"],
          verbs: ["get", "list", "watch", "create", "patch", "update", "delete"],
        },
        { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
        {
          apiGroups: ["storage.k8s.io"],
          resources: ["storageclasses"],
          verbs: ["get", "list", "watch"],
        },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "local-path-provisioner-bind", namespace: NS },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "Role",
        name: "local-path-provisioner-role",
      },
      subjects: [sa],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "local-path-provisioner-bind" },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "local-path-provisioner-role",
      },
      subjects: [sa],
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "local-path-config", namespace: NS },
      data: {
        "config.json": JSON.stringify({
          nodePathMap: [{ node: "DEFAULT_PATH_FOR_NON_LISTED_NODES", paths: [opts.path] }],
        }),
        setup: '#!/bin/sh\nset -eu\nmkdir -m 0777 -p "$VOL_DIR"\n',
        teardown: '#!/bin/sh\nset -eu\nrm -rf "$VOL_DIR"\n',
        "helperPod.yaml": [
          "apiVersion: v1",
          "kind: Pod",
          "metadata:",
          "  name: helper-pod",
          "spec:",
          "  priorityClassName: system-node-critical",
          "  tolerations:",
          "    - key: node.kubernetes.io/disk-pressure",
          "      operator: Exists",
          "      effect: NoSchedule",
          "  containers:",
          "  - name: helper-pod",
          `    image: ${BUSYBOX}`,
          "    imagePullPolicy: IfNotPresent",
          "",
        ].join("\n"),
      },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "local-path-provisioner", namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "local-path-provisioner" } },
        template: {
          metadata: { labels: { app: "local-path-provisioner" } },
          spec: {
            serviceAccountName: sa.name,
            // No kube-proxy on the test machine: the service address is the API server's own.
            hostNetwork: true,
            containers: [{
              name: "local-path-provisioner",
              image,
              imagePullPolicy: "IfNotPresent",
              command: [
                "local-path-provisioner",
                "--debug",
                "start",
                "--config",
                "/etc/config/config.json",
              ],
              volumeMounts: [{ name: "config-volume", mountPath: "/etc/config/" }],
              env: [
                {
                  name: "POD_NAMESPACE",
                  valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } },
                },
                { name: "CONFIG_MOUNT_PATH", value: "/etc/config/" },
                { name: "KUBERNETES_SERVICE_HOST", value: opts.server.hostname },
                { name: "KUBERNETES_SERVICE_PORT", value: opts.server.port },
              ],
            }],
            volumes: [{ name: "config-volume", configMap: { name: "local-path-config" } }],
          },
        },
      },
    },
    {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: {
        name: "local-path",
        annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
      },
      provisioner: "rancher.io/local-path",
      volumeBindingMode: "WaitForFirstConsumer",
      reclaimPolicy: "Delete",
    },
  ];
}

const STATEFUL_SET = {
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name: "web", namespace: "default" },
  spec: {
    serviceName: "web",
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        terminationGracePeriodSeconds: 5,
        automountServiceAccountToken: false,
        containers: [{
          name: "main",
          image: BUSYBOX,
          imagePullPolicy: "IfNotPresent",
          command: [
            "sh",
            "-c",
            "[ -f /data/first ] || cat /proc/sys/kernel/random/uuid >/data/first; " +
            "echo start >>/data/starts; trap 'exit 0' TERM; while true; do sleep 1; done",
          ],
          volumeMounts: [{ name: "data", mountPath: "/data" }],
        }],
      },
    },
    volumeClaimTemplates: [{
      metadata: { name: "data" },
      spec: {
        accessModes: ["ReadWriteOnce"],
        storageClassName: "local-path",
        resources: { requests: { storage: "16Mi" } },
      },
    }],
  },
};

async function read(c: ClusterE2E, pod: string, file: string): Promise<string> {
  const id = await waitFor(() => runningMain(c, pod), {
    timeoutMs: TIMEOUT,
    intervalMs: 500,
    what: `pod ${pod} running`,
  });
  const res = await c.cri.runtime.execSync(id, ["cat", file], 30);
  assert.equal(res.exitCode, 0, new TextDecoder().decode(res.stderr));
  return new TextDecoder().decode(res.stdout).trim();
}

const ready = (o: V1Pod | V1Node | undefined) =>
  o?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;

Deno.test({
  name: "local-path-provisioner (k3s's default StorageClass): StatefulSet data survives pod " +
    "deletion, an agent restart and an offline reboot; a generic ephemeral volume on it",
  ...E2E_TEST,
  async fn(t) {
    const image = await ensureLocalPathImage(await ensureContainerd());
    const c = await setupCluster();
    const path = await Deno.makeTempDir({ prefix: "denolet-e2e-local-path-" });
    try {
      await waitFor(async () => ready(await c.getJson<V1Node>(["node", c.nodeName])), {
        timeoutMs: 60_000,
        what: "the node Ready",
      });
      await c.apply(...localPathObjects(image, { server: new URL(c.cp.server), path }));
      let first = "";
      let volumeDir = "";

      await t.step("a StatefulSet's claim is provisioned on the node and mounted", async () => {
        // The Deployment's pod first needs its namespace's service account (controller manager).
        await c.apply(STATEFUL_SET);
        await c.waitPod("web-0", isRunning, { timeoutMs: TIMEOUT });
        first = await read(c, "web-0", "/data/first");
        const pvc = await c.getJson<{ spec: { volumeName: string } }>(["pvc", "data-web-0"]);
        const pv = await c.getJson<{ spec: { hostPath?: { path: string } } }>([
          "pv",
          pvc!.spec.volumeName,
        ]);
        volumeDir = pv!.spec.hostPath!.path;
        assert.ok(volumeDir.startsWith(`${path}/`), `provisioned under ${path}: ${volumeDir}`);
        assert.equal((await Deno.readTextFile(`${volumeDir}/first`)).trim(), first);
      });

      await t.step("the data survives deleting the pod", async () => {
        const uid = (await c.pod("web-0"))!.metadata!.uid;
        await c.kubectl(["delete", "pod", "web-0", "--wait=true", "--timeout=90s"]);
        await c.waitPod("web-0", (p) => p.metadata?.uid !== uid && isRunning(p), {
          timeoutMs: TIMEOUT,
        });
        assert.equal(await read(c, "web-0", "/data/first"), first);
        assert.equal(await read(c, "web-0", "/data/starts"), "start\nstart");
      });

      await t.step("an agent restart leaves the pod and its volume alone", async () => {
        const before = await runningMain(c, "web-0");
        await c.restartAgent();
        await new Promise((r) => setTimeout(r, 5_000)); // a few syncs
        assert.equal(await runningMain(c, "web-0"), before, "same container");
        assert.equal(await read(c, "web-0", "/data/starts"), "start\nstart");
      });

      await t.step("after an offline reboot the pod comes back with its data", async () => {
        await waitFor(async () => {
          const names = await Array.fromAsync(
            Deno.readDir(`${c.rootDir}/checkpoint/persistentvolumeclaims`),
          ).catch(() => []);
          return names.some((e) => e.name === "default_data-web-0.json");
        }, { timeoutMs: 30_000, what: "the claim in the checkpoint" });
        await c.cp.stopApiServer();
        try {
          await c.agent.stop();
          await removeAgentSandboxes(c.cri.runtime, c.nodeName);
          const mounter = systemMounter();
          const mounts = await mounter.mountPointsUnder(c.rootDir);
          for (const m of mounts.sort((a, b) => b.length - a.length)) await mounter.unmount(m);
          await removeCgroupTree(`denolet-e2e/${c.nodeName}`);
          await c.restartAgent();
          await waitFor(async () => {
            const pods: V1PodList = await c.agent.pods();
            return pods.items.some((p) => p.metadata?.name === "web-0" && isRunning(p));
          }, { timeoutMs: TIMEOUT, intervalMs: 500, what: "web-0 Running from the checkpoint" });
          assert.equal(await read(c, "web-0", "/data/first"), first);
          assert.equal(await read(c, "web-0", "/data/starts"), "start\nstart\nstart");
        } finally {
          await c.cp.startApiServer();
        }
        await waitFor(async () => ready(await c.getJson<V1Node>(["node", c.nodeName])), {
          timeoutMs: 120_000,
          what: "the node Ready again",
        });
      });

      await t.step(
        "a generic ephemeral volume on local-path comes and goes with its pod",
        async () => {
          await c.apply({
            apiVersion: "v1",
            kind: "Pod",
            metadata: { name: "scratch", namespace: "default" },
            spec: {
              terminationGracePeriodSeconds: 2,
              automountServiceAccountToken: false,
              containers: [{
                name: "main",
                image: BUSYBOX,
                imagePullPolicy: "IfNotPresent",
                command: [
                  "sh",
                  "-c",
                  "echo eph >/scratch/f; trap 'exit 0' TERM; sleep 3600 & wait",
                ],
                volumeMounts: [{ name: "tmp", mountPath: "/scratch" }],
              }],
              volumes: [{
                name: "tmp",
                ephemeral: {
                  volumeClaimTemplate: {
                    spec: {
                      accessModes: ["ReadWriteOnce"],
                      storageClassName: "local-path",
                      resources: { requests: { storage: "1Mi" } },
                    },
                  },
                },
              }],
            },
          });
          await c.waitPod("scratch", isRunning, { timeoutMs: TIMEOUT });
          assert.equal(await read(c, "scratch", "/scratch/f"), "eph");
          const pvc = await c.getJson<{ spec: { volumeName: string } }>(["pvc", "scratch-tmp"]);
          const pvName = pvc!.spec.volumeName;
          const dir = (await c.getJson<{ spec: { hostPath: { path: string } } }>(["pv", pvName]))!
            .spec.hostPath.path;
          assert.equal((await Deno.readTextFile(`${dir}/f`)).trim(), "eph");
          await c.kubectl(["delete", "pod", "scratch", "--wait=true", "--timeout=90s"]);
          // The claim goes with its pod (garbage collector), the PV with the claim, the directory
          // with the PV: the provisioner's teardown helper pod runs on this node.
          await waitFor(async () => (await c.getJson(["pv", pvName])) === undefined, {
            timeoutMs: TIMEOUT,
            intervalMs: 1000,
            what: `PV ${pvName} deleted`,
          });
          await waitFor(() => Deno.stat(dir).then(() => false, () => true), {
            timeoutMs: 60_000,
            what: `${dir} removed by the teardown helper pod`,
          });
        },
      );
    } finally {
      await c.kubectl(["delete", "statefulset", "web", "--wait=false"]).catch(() => undefined);
      await c.close();
      await Deno.remove(path, { recursive: true }).catch(() => undefined);
    }
  },
});
