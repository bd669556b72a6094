/**
 * CSI on a denolet node with the real sidecars, deployed as clusters deploy a CSI driver: a
 * DaemonSet on the node with the driver (csi-mock: csi-test/v5's driver server), its registrar
 * (k8s.io/kubelet's pluginregistration API, as node-driver-registrar), external-provisioner v6
 * and external-attacher v4, privileged, host paths to the plugin directories with
 * Bidirectional propagation; the scheduler and controller manager running. Proves registration
 * (the CSINode entry), a claim provisioned, attached (VolumeAttachment), staged and published
 * at upstream's paths and unpublished then unstaged when its pod goes, an inline ephemeral
 * volume, the CSINode made before any driver registers, and the secrets a volume names given
 * to the driver. Minutes long (Go builds on a new machine): `deno task test:storage`.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { waitFor } from "../support/agent.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { ensureCsiImage } from "../support/storage_components.ts";
import { BUSYBOX, type ClusterE2E, E2E_TEST, setupCluster } from "./_cluster.ts";
import { isRunning } from "./_helpers.ts";

const TIMEOUT = 180_000;
const DRIVER = "mock.csi.denolet.test";
const NS = "csi-mock";

function csiObjects(image: string, opts: { server: URL; rootDir: string; data: string }) {
  const env = [
    { name: "KUBERNETES_SERVICE_HOST", value: opts.server.hostname },
    { name: "KUBERNETES_SERVICE_PORT", value: opts.server.port },
  ];
  const socketDir = `${opts.rootDir}/plugins/${DRIVER}`;
  const sidecar = (name: string, args: string[]) => ({
    name,
    image,
    imagePullPolicy: "IfNotPresent",
    command: [`/usr/bin/${name}`, ...args],
    env,
    volumeMounts: [{ name: "socket-dir", mountPath: "/csi" }],
  });
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "csi-mock", namespace: NS } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "csi-mock" },
      rules: [
        {
          apiGroups: [""],
          resources: ["persistentvolumes", "persistentvolumeclaims", "nodes", "events", "pods"],
          verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
        },
        {
          apiGroups: ["storage.k8s.io"],
          resources: [
            "storageclasses",
            "csinodes",
            "volumeattachments",
            "volumeattachments/status",
            "csidrivers",
          ],
          verbs: ["get", "list", "watch", "update", "patch"],
        },
        {
          apiGroups: ["coordination.k8s.io"],
          resources: ["leases"],
          verbs: ["get", "list", "watch", "create", "update", "patch"],
        },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "csi-mock" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "csi-mock" },
      subjects: [{ kind: "ServiceAccount", name: "csi-mock", namespace: NS }],
    },
    {
      apiVersion: "storage.k8s.io/v1",
      kind: "CSIDriver",
      metadata: { name: DRIVER },
      spec: {
        attachRequired: true,
        podInfoOnMount: true,
        volumeLifecycleModes: ["Persistent", "Ephemeral"],
      },
    },
    {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: "csi-mock" },
      provisioner: DRIVER,
      volumeBindingMode: "Immediate",
      reclaimPolicy: "Delete",
    },
    {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "csi-mock", namespace: NS },
      spec: {
        selector: { matchLabels: { app: "csi-mock" } },
        template: {
          metadata: { labels: { app: "csi-mock" } },
          spec: {
            serviceAccountName: "csi-mock",
            hostNetwork: true,
            containers: [
              {
                name: "driver",
                image,
                imagePullPolicy: "IfNotPresent",
                command: [
                  "/usr/bin/csi-mock",
                  "driver",
                  "--endpoint=/csi/csi.sock",
                  `--name=${DRIVER}`,
                  "--data=/data",
                  "--node-id=$(NODE_NAME)",
                ],
                args: [],
                env: [{
                  name: "NODE_NAME",
                  valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } },
                }],
                securityContext: { privileged: true },
                volumeMounts: [
                  { name: "socket-dir", mountPath: "/csi" },
                  { name: "data", mountPath: "/data" },
                  // The node's paths at the same paths: staging and publish targets.
                  {
                    name: "root-dir",
                    mountPath: opts.rootDir,
                    mountPropagation: "Bidirectional",
                  },
                ],
              },
              {
                name: "registrar",
                image,
                imagePullPolicy: "IfNotPresent",
                command: [
                  "/usr/bin/csi-mock",
                  "registrar",
                  `--name=${DRIVER}`,
                  `--socket=/registration/${DRIVER}-reg.sock`,
                  `--kubelet-registration-path=${socketDir}/csi.sock`,
                ],
                volumeMounts: [{ name: "registration-dir", mountPath: "/registration" }],
              },
              sidecar("csi-provisioner", ["--csi-address=/csi/csi.sock", "--v=3"]),
              sidecar("csi-attacher", ["--csi-address=/csi/csi.sock", "--v=3"]),
            ],
            volumes: [
              { name: "socket-dir", hostPath: { path: socketDir, type: "DirectoryOrCreate" } },
              {
                name: "registration-dir",
                hostPath: { path: `${opts.rootDir}/plugins_registry`, type: "Directory" },
              },
              { name: "root-dir", hostPath: { path: opts.rootDir, type: "Directory" } },
              { name: "data", hostPath: { path: opts.data, type: "Directory" } },
            ],
          },
        },
      },
    },
  ];
}

function userPod(name: string, volume: Record<string, unknown>, script: string): V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      terminationGracePeriodSeconds: 2,
      automountServiceAccountToken: false,
      containers: [{
        name: "main",
        image: BUSYBOX,
        imagePullPolicy: "IfNotPresent",
        command: ["sh", "-c", `${script}; trap 'exit 0' TERM; sleep 3600 & wait`],
        volumeMounts: [{ name: "vol", mountPath: "/vol" }],
      }],
      volumes: [{ name: "vol", ...volume }],
    },
  } as V1Pod;
}

/** The driver's calls (its calls.log, one RPC a line). */
async function calls(data: string): Promise<string[]> {
  const text = await Deno.readTextFile(`${data}/calls.log`).catch(() => "");
  return text.split("\n").filter((l) => l !== "");
}

function waitCall(data: string, pred: (line: string) => boolean, what: string) {
  return waitFor(async () => (await calls(data)).find(pred), {
    timeoutMs: TIMEOUT,
    intervalMs: 500,
    what,
  });
}

async function makeShared(dir: string): Promise<void> {
  // A CSI driver's Bidirectional mounts need the node's directory on a shared mount, which a
  // systemd host's / is; this test machine's is private, so the agent's root dir is made one.
  for (const args of [["--bind", dir, dir], ["--make-rshared", dir]]) {
    const out = await new Deno.Command("mount", { args }).output();
    if (!out.success) {
      throw new Error(`mount ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
    }
  }
}

Deno.test({
  name: "CSI: a driver with its registrar, external-provisioner and external-attacher as pods; " +
    "a claim staged and published, unpublished and unstaged; an inline ephemeral volume",
  ...E2E_TEST,
  async fn(t) {
    const image = await ensureCsiImage(await ensureContainerd());
    const c: ClusterE2E = await setupCluster();
    const data = await Deno.makeTempDir({ prefix: "denolet-e2e-csi-data-" });
    try {
      const rootDir = await Deno.realPath(c.rootDir);
      await makeShared(rootDir);
      await waitFor(async () => {
        const n = await c.getJson<V1Node>(["node", c.nodeName]);
        return n?.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True");
      }, { timeoutMs: 60_000, what: "the node Ready" });

      await t.step(
        "the CSINode is there before any driver registers, owned by the Node, as upstream's",
        async () => {
          const node = await c.getJson<V1Node>(["node", c.nodeName]);
          const csiNode = await c.getJson<{
            metadata: {
              annotations?: Record<string, string>;
              ownerReferences?: { kind: string; name: string; uid: string }[];
            };
            spec: { drivers?: unknown[] | null };
          }>(["csinode", c.nodeName]);
          assert.ok(csiNode, "a CSINode");
          assert.deepEqual(csiNode.spec.drivers ?? [], []);
          assert.deepEqual(
            csiNode.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]),
            [["Node", c.nodeName, node!.metadata!.uid]],
          );
          assert.match(
            csiNode.metadata.annotations?.["storage.alpha.kubernetes.io/migrated-plugins"] ?? "",
            /^kubernetes.io\/aws-ebs,.*,kubernetes.io\/vsphere-volume$/,
          );
        },
      );
      await c.apply(...csiObjects(image, { server: new URL(c.cp.server), rootDir, data }));

      await t.step(
        "the driver registers: the CSINode lists it with upstream's fields",
        async () => {
          const driver = await waitFor(async () => {
            const n = await c.getJson<{ spec: { drivers?: Record<string, unknown>[] } }>([
              "csinode",
              c.nodeName,
            ]);
            return n?.spec.drivers?.find((d) => d.name === DRIVER);
          }, { timeoutMs: TIMEOUT, intervalMs: 1000, what: "the driver in the CSINode" });
          assert.deepEqual(driver, {
            name: DRIVER,
            nodeID: c.nodeName,
            topologyKeys: ["topology.mock.csi/node"],
            allocatable: { count: 16 },
          });
        },
      );

      let handle = "";
      let target = "";
      await t.step("a claim: provisioned, attached, staged and published for its pod", async () => {
        await c.apply({
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          metadata: { name: "csi-claim", namespace: "default" },
          spec: {
            accessModes: ["ReadWriteOnce"],
            storageClassName: "csi-mock",
            resources: { requests: { storage: "1Mi" } },
          },
        });
        await c.apply(
          userPod(
            "csi-user",
            { persistentVolumeClaim: { claimName: "csi-claim" } },
            "echo csi >/vol/f",
          ),
        );
        const pod = await c.waitPod("csi-user", isRunning, { timeoutMs: TIMEOUT });
        const pvc = await c.getJson<{ spec: { volumeName: string } }>(["pvc", "csi-claim"]);
        const pv = await c.getJson<{ spec: { csi: { volumeHandle: string } } }>([
          "pv",
          pvc!.spec.volumeName,
        ]);
        handle = pv!.spec.csi.volumeHandle;
        const hash = await sha256(handle);
        const staging = `${rootDir}/plugins/kubernetes.io/csi/${DRIVER}/${hash}/globalmount`;
        target = `${rootDir}/pods/${pod.metadata!.uid}/volumes/kubernetes.io~csi/${
          pvc!.spec.volumeName
        }/mount`;
        const log = await calls(data);
        const stage = log.findIndex((l) =>
          l === `NodeStageVolume ${handle} ${staging} /dev/mock-${handle}`
        );
        const publish = log.findIndex((l) =>
          l === `NodePublishVolume ${handle} ${target} ${staging} pod=csi-user ephemeral=false`
        );
        assert.ok(stage >= 0 && publish > stage, `stage then publish:\n${log.join("\n")}`);
        assert.equal((await Deno.readTextFile(`${data}/${handle}/f`)).trim(), "csi");
      });

      await t.step("the pod goes: unpublished, then unstaged; the data stays", async () => {
        await c.kubectl(["delete", "pod", "csi-user", "--wait=true", "--timeout=90s"]);
        const unstage = await waitCall(
          data,
          (l) => l.startsWith(`NodeUnstageVolume ${handle} `),
          "NodeUnstageVolume",
        );
        const log = await calls(data);
        assert.ok(
          log.indexOf(`NodeUnpublishVolume ${handle} ${target}`) < log.indexOf(unstage),
          `unpublish then unstage:\n${log.join("\n")}`,
        );
        assert.equal((await Deno.readTextFile(`${data}/${handle}/f`)).trim(), "csi");
      });

      await t.step(
        "an inline ephemeral volume is published with the pod's info and removed with it",
        async () => {
          await c.apply(
            userPod(
              "csi-inline",
              { csi: { driver: DRIVER, volumeAttributes: { size: "1Mi" } } },
              "echo inline >/vol/f",
            ),
          );
          const pod = await c.waitPod("csi-inline", isRunning, { timeoutMs: TIMEOUT });
          const inlineHandle = `csi-${await sha256(`${pod.metadata!.uid}vol`)}`;
          const path = `${rootDir}/pods/${pod.metadata!.uid}/volumes/kubernetes.io~csi/vol/mount`;
          assert.ok(
            (await calls(data)).includes(
              `NodePublishVolume ${inlineHandle} ${path}  pod=csi-inline ephemeral=true`,
            ),
          );
          await c.kubectl(["delete", "pod", "csi-inline", "--wait=true", "--timeout=90s"]);
          await waitCall(
            data,
            (l) => l === `NodeUnpublishVolume ${inlineHandle} ${path}`,
            "the inline volume unpublished",
          );
        },
      );

      await t.step(
        "secrets named by the StorageClass's csi.storage.k8s.io parameters reach NodeStage and " +
          "NodePublish; an inline volume's publish secret too",
        async () => {
          await c.apply(
            {
              apiVersion: "v1",
              kind: "Secret",
              metadata: { name: "csi-stage", namespace: "default" },
              stringData: { user: "alice" },
            },
            {
              apiVersion: "v1",
              kind: "Secret",
              metadata: { name: "csi-publish", namespace: "default" },
              stringData: { token: "t0ken" },
            },
            {
              apiVersion: "storage.k8s.io/v1",
              kind: "StorageClass",
              metadata: { name: "csi-mock-secrets" },
              provisioner: DRIVER,
              volumeBindingMode: "Immediate",
              reclaimPolicy: "Delete",
              parameters: {
                "csi.storage.k8s.io/node-stage-secret-name": "csi-stage",
                "csi.storage.k8s.io/node-stage-secret-namespace": "default",
                "csi.storage.k8s.io/node-publish-secret-name": "csi-publish",
                "csi.storage.k8s.io/node-publish-secret-namespace": "default",
              },
            },
            {
              apiVersion: "v1",
              kind: "PersistentVolumeClaim",
              metadata: { name: "csi-secret-claim", namespace: "default" },
              spec: {
                accessModes: ["ReadWriteOnce"],
                storageClassName: "csi-mock-secrets",
                resources: { requests: { storage: "1Mi" } },
              },
            },
          );
          await c.apply(
            userPod(
              "csi-secret-user",
              { persistentVolumeClaim: { claimName: "csi-secret-claim" } },
              "echo s >/vol/f",
            ),
          );
          const pod = await c.waitPod("csi-secret-user", isRunning, { timeoutMs: TIMEOUT });
          const pvc = await c.getJson<{ spec: { volumeName: string } }>([
            "pvc",
            "csi-secret-claim",
          ]);
          const pv = await c.getJson<{
            spec: { csi: { volumeHandle: string; nodeStageSecretRef?: unknown } };
          }>(["pv", pvc!.spec.volumeName]);
          assert.deepEqual(pv!.spec.csi.nodeStageSecretRef, {
            name: "csi-stage",
            namespace: "default",
          });
          const h = pv!.spec.csi.volumeHandle;
          const staging = `${rootDir}/plugins/kubernetes.io/csi/${DRIVER}/${await sha256(
            h,
          )}/globalmount`;
          const path = `${rootDir}/pods/${pod.metadata!.uid}/volumes/kubernetes.io~csi/${
            pvc!.spec.volumeName
          }/mount`;
          const log = await calls(data);
          assert.ok(
            log.includes(`NodeStageVolume ${h} ${staging} /dev/mock-${h} secrets=user=alice`),
            `the stage secret:\n${log.join("\n")}`,
          );
          assert.ok(
            log.includes(
              `NodePublishVolume ${h} ${path} ${staging} pod=csi-secret-user ephemeral=false ` +
                "secrets=token=t0ken",
            ),
            `the publish secret:\n${log.join("\n")}`,
          );

          await c.apply(
            userPod(
              "csi-inline-secret",
              {
                csi: {
                  driver: DRIVER,
                  volumeAttributes: { size: "1Mi" },
                  nodePublishSecretRef: { name: "csi-publish" },
                },
              },
              "echo inline >/vol/f",
            ),
          );
          const inline = await c.waitPod("csi-inline-secret", isRunning, { timeoutMs: TIMEOUT });
          const inlineHandle = `csi-${await sha256(`${inline.metadata!.uid}vol`)}`;
          const inlinePath = `${rootDir}/pods/${
            inline.metadata!.uid
          }/volumes/kubernetes.io~csi/vol/mount`;
          assert.ok(
            (await calls(data)).includes(
              `NodePublishVolume ${inlineHandle} ${inlinePath}  pod=csi-inline-secret ` +
                "ephemeral=true secrets=token=t0ken",
            ),
          );
          await c.kubectl([
            "delete",
            "pod",
            "csi-secret-user",
            "csi-inline-secret",
            "--wait=true",
            "--timeout=90s",
          ]);
        },
      );
    } finally {
      await c.kubectl(["delete", "daemonset", "csi-mock", "-n", NS, "--wait=false"]).catch(() =>
        undefined
      );
      await c.close();
      await Deno.remove(data, { recursive: true }).catch(() => undefined);
    }
  },
});

async function sha256(s: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
