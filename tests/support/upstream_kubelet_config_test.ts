import assert from "node:assert/strict";
import { KUBELET_SYSCTLS, renderKubeletConfig } from "./_upstream_kubelet_config.ts";

const opts = {
  manifestDir: "/tmp/u/manifests",
  runtimeEndpoint: "unix:///var/lib/denolet-bench/run/containerd.sock",
  cgroupRoot: "/denolet-upstream-bench",
  podLogsDir: "/tmp/u/pods",
  port: 41001,
  healthzPort: 41002,
  cgroupV1: true,
};

Deno.test("upstream kubelet config keeps it on its own runtime, cgroup root and log dir", () => {
  const c = JSON.parse(renderKubeletConfig(opts));
  assert.equal(c.apiVersion, "kubelet.config.k8s.io/v1beta1");
  assert.equal(c.kind, "KubeletConfiguration");
  assert.equal(c.containerRuntimeEndpoint, opts.runtimeEndpoint);
  assert.equal(c.staticPodPath, opts.manifestDir);
  assert.equal(c.cgroupRoot, "/denolet-upstream-bench");
  assert.equal(c.cgroupDriver, "cgroupfs");
  assert.equal(c.cgroupsPerQOS, true);
  // Its container GC removes the log dirs of every pod it does not know: never /var/log/pods.
  assert.equal(c.podLogsDir, opts.podLogsDir);
  assert.equal(c.failSwapOn, false);
});

Deno.test("upstream kubelet config allows cgroup v1 only on a v1 host", () => {
  assert.equal(JSON.parse(renderKubeletConfig(opts)).failCgroupV1, false);
  assert.equal(
    "failCgroupV1" in JSON.parse(renderKubeletConfig({ ...opts, cgroupV1: false })),
    false,
  );
});

Deno.test("upstream kubelet config: loopback ports, no read-only port, no image GC", () => {
  const c = JSON.parse(renderKubeletConfig(opts));
  assert.deepEqual([c.address, c.port], ["127.0.0.1", 41001]);
  assert.deepEqual([c.healthzBindAddress, c.healthzPort], ["127.0.0.1", 41002]);
  assert.equal(c.readOnlyPort, 0);
  assert.equal(c.imageGCHighThresholdPercent, 100);
  assert.ok(c.imageGCLowThresholdPercent < c.imageGCHighThresholdPercent);
  assert.equal(c.authorization.mode, "AlwaysAllow");
  assert.equal(c.authentication.webhook.enabled, false);
  assert.equal(c.fileCheckFrequency, "20s");
});

Deno.test("upstream kubelet config joined to a cluster: every interface, cluster CA, webhooks", () => {
  const c = JSON.parse(renderKubeletConfig({ ...opts, cluster: { clientCAFile: "/cp/ca.crt" } }));
  assert.equal(c.address, "0.0.0.0");
  assert.equal(c.healthzBindAddress, "127.0.0.1");
  assert.equal(c.authentication.anonymous.enabled, false);
  assert.equal(c.authentication.webhook.enabled, true);
  assert.equal(c.authentication.x509.clientCAFile, "/cp/ca.crt");
  assert.equal(c.authorization.mode, "Webhook");
});

Deno.test("the sysctls put back after the kubelet are paths under /proc/sys", () => {
  for (const k of KUBELET_SYSCTLS) assert.match(k, /^(vm|kernel)\/[a-z_/]+$/);
});
