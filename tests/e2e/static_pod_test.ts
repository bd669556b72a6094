/**
 * A static pod from a manifest file runs on the real containerd: status, naming, annotations,
 * conditions, logs, environment expansion and volumes, as a user of the node API sees them.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { runtimeNetwork } from "../support/containerd.ts";
import {
  BUSYBOX,
  containerStatus,
  E2E_TEST,
  ipInCidr,
  isRunning,
  POD_UID_LABEL,
  setupE2E,
} from "./_helpers.ts";

const WRITER = [
  "echo greeting=$(GREETING) name=$(POD_NAME) shell-ip=$POD_IP combined=$(COMBINED)",
  // `$$(X)` escapes a reference and an undefined `$(X)` stays as written (upstream expansion).
  "echo 'escaped=$$(GREETING) undefined=$(NOT_DEFINED)'",
  "echo from-writer > /data/data.txt",
  "echo host-write > /host/out.txt",
  "echo writer-done",
  "sleep 3600",
].join("; ");

const READER = [
  "while [ ! -f /scratch/sub/data.txt ]; do sleep 1; done",
  'echo "read=`cat /scratch/sub/data.txt`"',
  'echo "hostin=`cat /in.txt`"',
  "if touch /scratch/denied 2>/dev/null; then echo ro-dir-allowed; else echo ro-dir-refused; fi",
  "if echo x >> /in.txt 2>/dev/null; then echo ro-file-allowed; else echo ro-file-refused; fi",
  "echo reader-done",
  "sleep 3600",
].join("; ");

function volumesPod(hostDir: string): V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "vols", namespace: "default", labels: { app: "vols" } },
    spec: {
      terminationGracePeriodSeconds: 2,
      volumes: [
        { name: "scratch", emptyDir: {} },
        { name: "host", hostPath: { path: hostDir, type: "Directory" } },
      ],
      containers: [
        {
          name: "writer",
          image: BUSYBOX,
          imagePullPolicy: "IfNotPresent",
          command: ["sh", "-c"],
          args: [WRITER],
          env: [
            { name: "GREETING", value: "hello" },
            { name: "COMBINED", value: "$(GREETING)-world" },
            { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
          ],
          volumeMounts: [
            { name: "scratch", mountPath: "/data", subPath: "sub" },
            { name: "host", mountPath: "/host" },
          ],
        },
        {
          name: "reader",
          image: BUSYBOX,
          imagePullPolicy: "IfNotPresent",
          command: ["sh", "-c", READER],
          volumeMounts: [
            { name: "scratch", mountPath: "/scratch", readOnly: true },
            { name: "host", mountPath: "/in.txt", subPath: "in.txt", readOnly: true },
          ],
        },
      ],
    },
  };
}

Deno.test({
  name:
    "static pod: runs with an IP, node-suffixed name, annotations, conditions, logs, env, volumes",
  ...E2E_TEST,
  async fn(t) {
    const e2e = await setupE2E();
    try {
      const hostDir = `${e2e.tmp}/hostdir`;
      await Deno.mkdir(hostDir);
      await Deno.writeTextFile(`${hostDir}/in.txt`, "from-host\n");
      await e2e.writePod("vols.yaml", volumesPod(hostDir));
      const pod = await e2e.waitPod("vols", isRunning, { what: "pod vols to be Running" });
      const uid = pod.metadata?.uid ?? "";
      const podIP = pod.status?.podIP ?? "";

      await t.step("name, uid, IP and phase", () => {
        assert.equal(pod.metadata?.name, `vols-${e2e.agent.hostname}`);
        assert.equal(pod.metadata?.namespace, "default");
        assert.ok(uid.length > 0, "pod has a uid");
        assert.equal(pod.status?.phase, "Running");
        const { subnet } = runtimeNetwork();
        assert.ok(ipInCidr(podIP, subnet), `pod IP ${podIP} is in ${subnet}`);
        assert.deepEqual(pod.status?.podIPs?.map((p) => p.ip), [podIP]);
        assert.ok(pod.status?.hostIP, "hostIP is set");
        assert.ok(pod.status?.startTime, "startTime is set");
        assert.equal(pod.spec?.nodeName, e2e.agent.hostname);
      });

      await t.step("config annotations", () => {
        const a = pod.metadata?.annotations ?? {};
        assert.match(a["kubernetes.io/config.hash"] ?? "", /^[0-9a-f]+$/);
        assert.equal(a["kubernetes.io/config.source"], "file");
        assert.ok(a["kubernetes.io/config.seen"], "config.seen is set");
        assert.ok(
          !Number.isNaN(Date.parse(a["kubernetes.io/config.seen"])),
          "config.seen is a time",
        );
      });

      await t.step("conditions are all True", () => {
        const conds = new Map((pod.status?.conditions ?? []).map((c) => [c.type, c.status]));
        for (
          const type of [
            "PodReadyToStartContainers",
            "Initialized",
            "Ready",
            "ContainersReady",
            "PodScheduled",
          ]
        ) {
          assert.equal(conds.get(type), "True", `condition ${type}`);
        }
      });

      await t.step("container statuses carry containerd ids", () => {
        for (const name of ["writer", "reader"]) {
          const cs = containerStatus(pod, name);
          assert.ok(cs, `status of ${name}`);
          assert.match(cs.containerID ?? "", /^containerd:\/\/[0-9a-f]{64}$/);
          assert.equal(cs.ready, true);
          assert.equal(cs.started, true);
          assert.equal(cs.restartCount, 0);
          assert.equal(cs.image, BUSYBOX);
          assert.ok(cs.imageID, `imageID of ${name}`);
          assert.ok(cs.state?.running?.startedAt, `${name} is running`);
        }
      });

      await t.step("a CRI sandbox carries the pod's uid label", async () => {
        const sandboxes = await e2e.sandboxes(uid);
        const ready = sandboxes.filter((s) => s.state === "SANDBOX_READY");
        assert.equal(ready.length, 1, `one ready sandbox for ${uid}`);
        assert.equal(ready[0].labels[POD_UID_LABEL], uid);
        assert.equal(ready[0].metadata.name, pod.metadata?.name);
        assert.equal(ready[0].metadata.namespace, "default");
        assert.equal(ready[0].metadata.uid, uid);
        const status = await e2e.cri.runtime.podSandboxStatus(ready[0].id);
        assert.equal(status.network?.ip, podIP);
      });

      await t.step("log files hold env expansion and fieldRef values", async () => {
        const log = await e2e.waitLog(pod, "writer", ["writer-done"]);
        assert.match(log, / stdout [FP] /, "CRI log format");
        assert.ok(
          log.includes(
            `greeting=hello name=vols-${e2e.agent.hostname} shell-ip=${podIP} combined=hello-world`,
          ),
          `writer log:\n${log}`,
        );
        assert.ok(
          log.includes("escaped=$(GREETING) undefined=$(NOT_DEFINED)"),
          `escaped and undefined references:\n${log}`,
        );
      });

      await t.step("emptyDir with subPath, hostPath, and readOnly mounts", async () => {
        const log = await e2e.waitLog(pod, "reader", ["reader-done"]);
        assert.ok(log.includes("read=from-writer"), `reader sees the writer's file:\n${log}`);
        assert.ok(log.includes("hostin=from-host"), `reader sees the hostPath file:\n${log}`);
        assert.ok(log.includes("ro-dir-refused"), `readOnly emptyDir refuses writes:\n${log}`);
        assert.ok(
          log.includes("ro-file-refused"),
          `readOnly hostPath subPath refuses writes:\n${log}`,
        );
        assert.equal((await Deno.readTextFile(`${hostDir}/out.txt`)).trim(), "host-write");
        assert.equal(
          (await Deno.readTextFile(`${hostDir}/in.txt`)).trim(),
          "from-host",
          "host file unchanged",
        );
      });
    } finally {
      await e2e.close();
    }
  },
});
