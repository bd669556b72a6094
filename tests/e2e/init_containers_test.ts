/**
 * Init containers run one after another to completion before the app containers start, and a
 * failing one with restartPolicy Never fails the pod without starting the app.
 */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import {
  containerStatus,
  E2E_TEST,
  initStatus,
  isRunning,
  POD_UID_LABEL,
  setupE2E,
  shellContainer,
  time,
} from "./_helpers.ts";

const sh = (name: string, script: string, mounts = true): V1Container =>
  shellContainer(
    name,
    script,
    mounts ? { volumeMounts: [{ name: "work", mountPath: "/work" }] } : {},
  );

const ORDERED: V1Pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "init-order", namespace: "default" },
  spec: {
    terminationGracePeriodSeconds: 2,
    volumes: [{ name: "work", emptyDir: {} }],
    initContainers: [
      // The first sleeps so that running the two at once would put "two" first.
      sh("first", "sleep 2; printf one >> /work/f"),
      sh("second", "printf ' two' >> /work/f"),
    ],
    containers: [sh("app", 'echo "content=`cat /work/f`"; echo app-started; sleep 3600')],
  },
};

const FAILING: V1Pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "init-fail", namespace: "default" },
  spec: {
    terminationGracePeriodSeconds: 2,
    restartPolicy: "Never",
    volumes: [{ name: "work", emptyDir: {} }],
    initContainers: [sh("ok", "exit 0"), sh("broken", "echo broken-init; exit 3")],
    containers: [sh("app", "echo app-ran; sleep 3600")],
  },
};

Deno.test({
  name: "init containers: run in order to completion before the app; a failure fails the pod",
  ...E2E_TEST,
  async fn(t) {
    const e2e = await setupE2E();
    try {
      await e2e.writePod("init-order.yaml", ORDERED);
      await e2e.writePod("init-fail.yaml", FAILING);

      await t.step("ordered init containers complete, then the app prints their file", async () => {
        const pod = await e2e.waitPod("init-order", isRunning, {
          what: "pod init-order to be Running",
        });
        for (const name of ["first", "second"]) {
          const st = initStatus(pod, name);
          assert.ok(st, `init status of ${name}`);
          assert.equal(st.state?.terminated?.reason, "Completed", `${name} Completed`);
          assert.equal(st.state?.terminated?.exitCode, 0);
          assert.equal(st.restartCount, 0);
          assert.match(st.containerID ?? "", /^containerd:\/\//);
        }
        const first = initStatus(pod, "first")?.state?.terminated;
        const second = initStatus(pod, "second")?.state?.terminated;
        const firstDone = time(first?.finishedAt);
        const secondStart = time(second?.startedAt);
        const secondDone = time(second?.finishedAt);
        const appStart = time(containerStatus(pod, "app")?.state?.running?.startedAt);
        assert.ok(
          firstDone <= secondStart,
          "second init container started after the first finished",
        );
        assert.ok(secondDone <= appStart, "app started after the init containers finished");
        const initialized = pod.status?.conditions?.find((c) => c.type === "Initialized");
        assert.equal(initialized?.status, "True");
        const log = await e2e.waitLog(pod, "app", ["app-started"]);
        assert.ok(log.includes("content=one two"), `app log:\n${log}`);
      });

      await t.step("a failing init container with restartPolicy Never fails the pod", async () => {
        const pod = await e2e.waitPod("init-fail", (p) => p.status?.phase === "Failed", {
          what: "pod init-fail to be Failed",
        });
        const broken = initStatus(pod, "broken");
        assert.equal(broken?.state?.terminated?.exitCode, 3);
        assert.equal(broken?.state?.terminated?.reason, "Error");
        assert.equal(broken?.restartCount, 0);
        assert.equal(initStatus(pod, "ok")?.state?.terminated?.reason, "Completed");
        const app = containerStatus(pod, "app");
        assert.ok(app, "the app container has a status");
        assert.equal(app.state?.running, undefined, "app never ran");
        assert.equal(app.state?.waiting?.reason, "PodInitializing");
        assert.equal(app.containerID, undefined, "app was never created");
        const initialized = pod.status?.conditions?.find((c) => c.type === "Initialized");
        assert.equal(initialized?.status, "False");
        const containers = await e2e.cri.runtime.listContainers({
          labelSelector: { [POD_UID_LABEL]: pod.metadata?.uid ?? "" },
        });
        assert.ok(containers.some((c) => c.metadata.name === "broken"), "broken init ran in CRI");
        assert.deepEqual(
          containers.filter((c) => c.metadata.name === "app"),
          [],
          "no app container",
        );
      });
    } finally {
      await e2e.close();
    }
  },
});
