/**
 * ConfigMaps, Secrets, service-account tokens and the downward API in API mode, against the real
 * control plane and containerd: a configMap volume with items and modes, secret env
 * (secretKeyRef, envFrom), secret and projected volumes on tmpfs, the `kube-api-access-*` volume
 * the API server injects (the API server itself reviews the token the pod read), a ConfigMap
 * update reaching the running container, and missing objects holding a pod back with
 * upstream's messages until they are created. The downward API needs no API server: a static
 * pod of a standalone agent has it too.
 */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
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
import { BUSYBOX, setupE2E } from "./_helpers.ts";

const TIMEOUT = 120_000;
const TOKEN_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

const waitRunning = (c: ClusterE2E, pod: string) => waitMainRunning(c, pod, TIMEOUT);

async function read(c: ClusterE2E, pod: string, script: string): Promise<string> {
  const r = await execMain(c, pod, script);
  assert.equal(r.code, 0, `${script}: ${r.err}`);
  return r.out;
}

function podWith(
  c: ClusterE2E,
  name: string,
  main: Partial<V1Container>,
  spec: Partial<V1Pod["spec"]> = {},
) {
  const pod = busyboxPod(name, "sleep 3600", { node: c.nodeName, extra: spec });
  Object.assign(pod.spec!.containers[0], main);
  return pod;
}

/** Mount points under the pod's directory (relative to it) with their file system type. */
async function podMounts(c: ClusterE2E, uid: string): Promise<Map<string, string>> {
  const base = `${await Deno.realPath(c.rootDir)}/pods/${uid}/`;
  const out = new Map<string, string>();
  for (const line of (await Deno.readTextFile("/proc/self/mountinfo")).split("\n")) {
    const f = line.split(" ");
    const sep = f.indexOf("-");
    if (f[4]?.startsWith(base)) out.set(f[4].slice(base.length), f[sep + 1]);
  }
  return out;
}

Deno.test({
  name: "API mode: configMaps, secrets, tokens and the downward API reach the pods",
  ...E2E_TEST,
  async fn(t) {
    const c = await setupCluster();
    try {
      await t.step("configMap volume with items and modes, secret env, tmpfs, token", async () => {
        await c.apply(
          {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "app-config", namespace: "default" },
            data: { "app.conf": "greeting=hello", mode: "fast", unused: "x" },
          },
          {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "app-secret", namespace: "default" },
            stringData: { password: "s3cr3t", user: "admin" },
          },
        );
        const pod = podWith(c, "objects", {
          env: [{
            name: "PASSWORD",
            valueFrom: { secretKeyRef: { name: "app-secret", key: "password" } },
          }],
          envFrom: [{ prefix: "SEC_", secretRef: { name: "app-secret" } }],
          volumeMounts: [
            { name: "cfg", mountPath: "/etc/cfg" },
            { name: "sec", mountPath: "/etc/sec" },
            { name: "info", mountPath: "/etc/info" },
            { name: "cfg", mountPath: "/etc/app.conf", subPath: "conf/app.conf" },
          ],
        }, {
          volumes: [
            {
              name: "cfg",
              configMap: {
                name: "app-config",
                defaultMode: 0o440,
                items: [
                  { key: "app.conf", path: "conf/app.conf" },
                  { key: "mode", path: "mode", mode: 0o400 },
                ],
              },
            },
            { name: "sec", secret: { secretName: "app-secret" } },
            {
              name: "info",
              downwardAPI: {
                items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }],
              },
            },
          ],
        });
        pod.metadata!.labels = { app: "objects" };
        await c.apply(pod);
        await waitRunning(c, "objects");

        assert.equal(await read(c, "objects", "cat /etc/cfg/conf/app.conf"), "greeting=hello");
        assert.equal(await read(c, "objects", "cat /etc/app.conf"), "greeting=hello");
        assert.equal(await read(c, "objects", "stat -L -c %a /etc/cfg/conf/app.conf"), "440");
        assert.equal(await read(c, "objects", "stat -L -c %a /etc/cfg/mode"), "400");
        assert.deepEqual(
          (await read(c, "objects", "ls -A /etc/cfg")).split(/\s+/).filter((n) =>
            !n.startsWith("..2")
          ),
          ["..data", "conf", "mode"],
        );
        const touched = await execMain(c, "objects", "touch /etc/cfg/new");
        assert.notEqual(touched.code, 0, "configMap volumes are mounted read-only");
        assert.equal(await read(c, "objects", "cat /etc/sec/user"), "admin");
        assert.equal(
          await read(c, "objects", 'echo "$PASSWORD|$SEC_user|$SEC_password"'),
          "s3cr3t|admin|s3cr3t",
        );
        assert.equal(await read(c, "objects", "cat /etc/info/labels"), 'app="objects"');

        // The API server injected kube-api-access-*: a bound token, the cluster CA, the namespace.
        const apiPod = await c.pod("objects");
        const access = apiPod?.spec?.volumes?.find((v) => v.name.startsWith("kube-api-access-"));
        assert.ok(access?.projected, "the API server injects the projected volume");
        assert.equal(await read(c, "objects", `cat ${TOKEN_DIR}/namespace`), "default");
        assert.match(
          await read(c, "objects", `cat ${TOKEN_DIR}/ca.crt`),
          /^-----BEGIN CERTIFICATE-----/,
        );
        const token = await read(c, "objects", `cat ${TOKEN_DIR}/token`);
        const review = JSON.parse(
          await c.kubectl(["create", "-f", "-", "-o", "json"], {
            stdin: JSON.stringify({
              apiVersion: "authentication.k8s.io/v1",
              kind: "TokenReview",
              spec: { token },
            }),
          }),
        );
        assert.equal(review.status?.authenticated, true, JSON.stringify(review.status));
        assert.equal(review.status.user.username, "system:serviceaccount:default:default");
        assert.deepEqual(review.status.user.extra?.["authentication.kubernetes.io/pod-name"], [
          "objects",
        ]);

        // Secrets and tokens never touch the node's disk.
        const mounts = await podMounts(c, apiPod!.metadata!.uid!);
        assert.equal(
          mounts.get("volumes/kubernetes.io~secret/sec"),
          "tmpfs",
          [...mounts].join(" "),
        );
        assert.equal(mounts.get(`volumes/kubernetes.io~projected/${access.name}`), "tmpfs");
        assert.equal(mounts.has("volumes/kubernetes.io~configmap/cfg"), false);
      });

      await t.step("a configMap update reaches the running container", async () => {
        const before = await runningMain(c, "objects");
        await c.apply({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "app-config", namespace: "default" },
          data: { "app.conf": "greeting=bonjour", mode: "fast", unused: "x" },
        });
        await waitFor(
          async () =>
            (await read(c, "objects", "cat /etc/cfg/conf/app.conf")) === "greeting=bonjour",
          { timeoutMs: 60_000, intervalMs: 500, what: "the new configMap content in the pod" },
        );
        assert.equal(
          await runningMain(c, "objects"),
          before,
          "the container was not restarted",
        );
        // As upstream, a subPath mount keeps the file it was given when the container started.
        assert.equal(await read(c, "objects", "cat /etc/app.conf"), "greeting=hello");
      });

      await t.step("a missing configMap for env holds the container until it exists", async () => {
        await c.apply(podWith(c, "late-env", {
          env: [{
            name: "K",
            valueFrom: { configMapKeyRef: { name: "late-env-config", key: "k" } },
          }],
        }));
        const waiting = await c.waitPod(
          "late-env",
          (p) =>
            p.status?.containerStatuses?.[0]?.state?.waiting?.reason ===
              "CreateContainerConfigError",
          {
            timeoutMs: TIMEOUT,
            what: "late-env to report CreateContainerConfigError",
          },
        );
        assert.equal(
          waiting.status?.containerStatuses?.[0]?.state?.waiting?.message,
          'configmap "late-env-config" not found',
        );
        await c.apply({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "late-env-config", namespace: "default" },
          data: { k: "arrived" },
        });
        await waitRunning(c, "late-env");
        assert.equal(await read(c, "late-env", "echo $K"), "arrived");
      });

      await t.step(
        "a missing configMap volume fails the mount, naming it, until it exists",
        async () => {
          await c.apply(
            podWith(c, "late-vol", { volumeMounts: [{ name: "cfg", mountPath: "/etc/cfg" }] }, {
              volumes: [{ name: "cfg", configMap: { name: "late-vol-config" } }],
            }),
          );
          // The log quotes the message as a JSON string, so its quotes come escaped.
          const failedMount = new RegExp(
            String.raw`reason=FailedMount .*MountVolume\.SetUp failed for volume \\?"cfg\\?" : ` +
              String.raw`configmap \\?"late-vol-config\\?" not found`,
          );
          await waitFor(async () => failedMount.test(await c.agent.logTail(5000)), {
            timeoutMs: TIMEOUT,
            intervalMs: 500,
            what: "the FailedMount message in the agent's log",
          });
          assert.equal(await runningMain(c, "late-vol"), undefined);
          await c.apply({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "late-vol-config", namespace: "default" },
            data: { "settings.ini": "ready=yes" },
          });
          await waitRunning(c, "late-vol");
          assert.equal(await read(c, "late-vol", "cat /etc/cfg/settings.ini"), "ready=yes");
        },
      );

      await t.step("service-link env: the kubernetes service and the namespace's", async () => {
        await c.apply(
          { apiVersion: "v1", kind: "Namespace", metadata: { name: "svc-env" } },
          {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "backend-api", namespace: "svc-env" },
            spec: { ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
          },
          {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "headless", namespace: "svc-env" },
            spec: { clusterIP: "None", ports: [{ port: 80 }] },
          },
        );
        const pod = busyboxPod("svc-env", "env; sleep 3600", {
          node: c.nodeName,
          namespace: "svc-env",
        });
        pod.spec!.containers[0].env = [{ name: "BACKEND_API_SERVICE_PORT_HTTP", value: "mine" }];
        // The namespace's default service account comes from the controller manager shortly.
        await waitFor(() => c.apply(pod).then(() => true, () => undefined), {
          timeoutMs: 30_000,
          intervalMs: 500,
          what: "the pod to be accepted in the new namespace",
        });
        const id = await waitFor(async () => {
          const list = await c.cri.runtime.listContainers({
            labelSelector: {
              "io.kubernetes.pod.name": "svc-env",
              "io.kubernetes.pod.namespace": "svc-env",
            },
            state: { state: "CONTAINER_RUNNING" },
          });
          return list[0]?.id;
        }, { timeoutMs: TIMEOUT, intervalMs: 500, what: "svc-env's container to run" });
        // The container's own output, from the log file the runtime writes (CRI log format).
        const { logPath } = await c.cri.runtime.containerStatus(id);
        const env = await waitFor(async () => {
          const lines = (await Deno.readTextFile(logPath)).split("\n");
          const vars = new Map(
            lines.map((l) => l.split(" ").slice(3).join(" ")).filter((l) => l.includes("="))
              .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
          );
          return vars.has("HOSTNAME") ? vars : undefined;
        }, { timeoutMs: 30_000, intervalMs: 500, what: "the env in svc-env's log" });
        const clusterIP = (ns: string, name: string) =>
          c.kubectl(["get", "service", name, "-n", ns, "-o", "jsonpath={.spec.clusterIP}"]);
        const apiIP = await clusterIP("default", "kubernetes");
        const backendIP = await clusterIP("svc-env", "backend-api");
        assert.equal(env.get("KUBERNETES_SERVICE_HOST"), apiIP);
        assert.equal(env.get("KUBERNETES_SERVICE_PORT"), "443");
        assert.equal(env.get("KUBERNETES_SERVICE_PORT_HTTPS"), "443");
        assert.equal(env.get("KUBERNETES_PORT"), `tcp://${apiIP}:443`);
        assert.equal(env.get("KUBERNETES_PORT_443_TCP_ADDR"), apiIP);
        assert.equal(env.get("BACKEND_API_SERVICE_HOST"), backendIP);
        assert.equal(env.get("BACKEND_API_PORT_8080_TCP"), `tcp://${backendIP}:8080`);
        assert.equal(env.get("BACKEND_API_PORT_8080_TCP_PROTO"), "tcp");
        // The pod's own variable wins; a headless service gets none.
        assert.equal(env.get("BACKEND_API_SERVICE_PORT_HTTP"), "mine");
        assert.equal([...env.keys()].some((k) => k.startsWith("HEADLESS_")), false);
        await c.kubectl(["delete", "namespace", "svc-env", "--wait=false"]);
      });

      await t.step("a deleted pod's tmpfs and subPath mounts go with it", async () => {
        const uid = (await c.pod("objects"))!.metadata!.uid!;
        // secret and projected tmpfs, and the subPath's bind mount.
        assert.equal((await podMounts(c, uid)).size, 3, [...await podMounts(c, uid)].join(" "));
        await c.kubectl(["delete", "pod", "objects", "--wait=false"]);
        await waitFor(async () => (await podMounts(c, uid)).size === 0, {
          timeoutMs: TIMEOUT,
          intervalMs: 500,
          what: "the deleted pod's volumes to be unmounted",
        });
      });
    } finally {
      await c.close();
    }
  },
});

Deno.test({
  name: "standalone: a static pod's downwardAPI volume holds its fields and resources",
  ...E2E_TEST,
  async fn() {
    const e = await setupE2E();
    try {
      const pod: V1Pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "downward", namespace: "default", labels: { app: "downward" } },
        spec: {
          terminationGracePeriodSeconds: 2,
          volumes: [{
            name: "info",
            downwardAPI: {
              items: [
                { path: "name", fieldRef: { fieldPath: "metadata.name" } },
                { path: "labels", fieldRef: { fieldPath: "metadata.labels" } },
                {
                  path: "mem",
                  resourceFieldRef: {
                    containerName: "main",
                    resource: "limits.memory",
                    divisor: "1Mi",
                  },
                },
              ],
            },
          }],
          containers: [{
            name: "main",
            image: BUSYBOX,
            imagePullPolicy: "IfNotPresent",
            resources: { limits: { memory: "32Mi" } },
            volumeMounts: [{ name: "info", mountPath: "/etc/info" }],
            command: ["sh", "-c"],
            args: [
              'echo "name=$(cat /etc/info/name) labels=$(cat /etc/info/labels) ' +
              'mem=$(cat /etc/info/mem)"; sleep 3600',
            ],
          }],
        },
      };
      await e.writePod("downward.yaml", pod);
      const running = await e.waitPod(
        "downward",
        (p) => p.status?.containerStatuses?.[0]?.state?.running !== undefined,
        { what: "the downward pod to run", timeoutMs: TIMEOUT },
      );
      await e.waitLog(running, "main", [
        `name=${e.podName("downward")} labels=app="downward" mem=32`,
      ], { timeoutMs: TIMEOUT });
    } finally {
      await e.close();
    }
  },
});
