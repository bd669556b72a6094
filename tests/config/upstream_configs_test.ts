/**
 * Real configurations written for the upstream kubelet load: kubeadm v1.37's config.yaml and
 * command line, and k3s v1.37's kubelet arguments. What they set that denolet does not
 * implement is upstream's default (accepted).
 * kubeadm's cgroupDriver: systemd is implemented (the systemd cgroup driver).
 */
import assert from "node:assert/strict";
import { K3S_ARGS, KUBEADM_ARGS, KUBEADM_CONFIG } from "./_kubeadm_v1_37.ts";
import { fails, run } from "./_helpers.ts";

const PATH = "/var/lib/kubelet/config.yaml";
/** k3s writes its KubeletConfiguration into the --config-dir drop-in directory. */
const K3S_DROPINS = {
  "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf":
    "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n",
};
Deno.test("kubeadm's stock config loads silently, cgroupDriver: systemd included", async () => {
  const { config, warnings } = await run(KUBEADM_ARGS, { [PATH]: KUBEADM_CONFIG });
  assert.deepEqual(warnings, []);
  assert.equal(config.cgroupDriver, "systemd");
  // The 0s durations are upstream's defaults, as SetDefaults fills them in.
  assert.equal(config.syncFrequencyMs, 60_000);
  assert.equal(config.nodeStatusUpdateFrequencyMs, 10_000);
  assert.equal(config.shutdownGracePeriodMs, 0);
  assert.equal(config.imageMaximumGCAgeMs, 0);
  assert.equal(config.authenticationTokenWebhookCacheTTLMs, 120_000);
  assert.equal(config.clientCAFile, "/etc/kubernetes/pki/ca.crt");
  assert.equal(config.anonymousAuth, false);
  assert.equal(config.authorizationMode, "Webhook");
  assert.equal(config.resolvConf, "/run/systemd/resolve/resolv.conf");
  assert.deepEqual(config.clusterDNS, ["10.96.0.10"]);
});

Deno.test("kubeadm's config with a setting changed from the default is refused, naming it", async () => {
  const text = KUBEADM_CONFIG.replace("volumeStatsAggPeriod: 0s", "volumeStatsAggPeriod: 30s");
  await fails(
    KUBEADM_ARGS,
    `${PATH}: volumeStatsAggPeriod`,
    /^\/var\/lib\/kubelet\/config.yaml: volumeStatsAggPeriod: 30s: denolet does not implement /,
    { [PATH]: text },
  );
});

Deno.test("kubeadm's config with graceful node shutdown on loads it", async () => {
  const text = KUBEADM_CONFIG.replace("shutdownGracePeriod: 0s", "shutdownGracePeriod: 30s")
    .replace("shutdownGracePeriodCriticalPods: 0s", "shutdownGracePeriodCriticalPods: 10s");
  const { config } = await run(KUBEADM_ARGS, { [PATH]: text });
  assert.equal(config.shutdownGracePeriodMs, 30_000);
  assert.equal(config.shutdownGracePeriodCriticalPodsMs, 10_000);
});

Deno.test("k3s's kubelet arguments load, credential providers included; --runtime-cgroups noted", async () => {
  const { config, warnings } = await run(K3S_ARGS, K3S_DROPINS);
  assert.equal(config.nodeName, "edge-1");
  assert.equal(config.readOnlyPort, 0);
  assert.equal(config.imageCredentialProviderBinDir, "/var/lib/rancher/credentialprovider/bin");
  assert.equal(
    config.imageCredentialProviderConfig,
    "/var/lib/rancher/credentialprovider/config.yaml",
  );
  assert.deepEqual(warnings, [
    "--runtime-cgroups: \"/k3s\": the runtime system container's stats come from the runtime's " +
    "process, not from this cgroup; accepted, as it changes no pod or node",
  ]);
});

Deno.test("k3s's rootless gate is accepted: it is upstream's default", async () => {
  await run([...K3S_ARGS, "--feature-gates=KubeletInUserNamespace=true"], K3S_DROPINS);
});
