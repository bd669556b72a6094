/**
 * Env files (fileKeyRef, EnvFiles beta upstream) on the real containerd: an init container
 * writes `KEY='value'` lines into an emptyDir and the app container gets the value as an env var.
 */
import assert from "node:assert/strict";
import { E2E_TEST, setupE2E, shellPod } from "./_helpers.ts";

Deno.test({
  name: "env files: a value an init container wrote reaches the app container's env",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    try {
      const pod = shellPod("envfile", "echo DB=$DB_HOST; sleep 3600", {
        volumes: [{ name: "config", emptyDir: {} }],
        initContainers: [{
          name: "write",
          image: "denolet.test/busybox:1.35",
          imagePullPolicy: "IfNotPresent",
          command: ["sh", "-c", "printf \"DB_HOST='db.example'\\n\" > /config/app.env"],
          volumeMounts: [{ name: "config", mountPath: "/config" }],
        }],
      });
      pod.spec!.containers[0].env = [{
        name: "DB_HOST",
        valueFrom: { fileKeyRef: { volumeName: "config", path: "app.env", key: "DB_HOST" } },
      }];
      await e2e.writePod("envfile.yaml", pod);
      const running = await e2e.waitPod("envfile", (p) => p.status?.phase === "Running", {
        what: "envfile running",
        timeoutMs: 60_000,
      });
      assert.match(await e2e.waitLog(running, "main", ["DB="]), /DB=db\.example/);
    } finally {
      await e2e.close();
    }
  },
});
