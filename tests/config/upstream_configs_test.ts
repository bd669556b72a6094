/**
 * Real configurations written for the upstream kubelet load: kubeadm v1.37's config.yaml and
 * command line, and k3s v1.37's kubelet arguments. What they set that denolet does not
 * implement is either upstream's default (accepted) or left for issue 26 (warned, ignored).
 */
import assert from "node:assert/strict";
import { K3S_ARGS, KUBEADM_ARGS, KUBEADM_CONFIG } from "./_kubeadm_v1_37.ts";
import { fails, run } from "./_helpers.ts";

const PATH = "/var/lib/kubelet/config.yaml";
const ignored = (where: string) => `${where}: not implemented by denolet; ignored`;

Deno.test("kubeadm's stock config is refused only for cgroupDriver: systemd (issue 26)", async () => {
  await fails(KUBEADM_ARGS, `${PATH}: cgroupDriver`, /"systemd" cgroup driver is not supported/, {
    [PATH]: KUBEADM_CONFIG,
  });
});

Deno.test("kubeadm's config loads with the cgroupfs driver, warning only for what is pending", async () => {
  const text = KUBEADM_CONFIG.replace("cgroupDriver: systemd", "cgroupDriver: cgroupfs");
  const { config, warnings } = await run(KUBEADM_ARGS, { [PATH]: text });
  assert.deepEqual(warnings, [
    ignored("--bootstrap-kubeconfig"),
    ignored(`${PATH}: imageMaximumGCAge`),
    ignored(`${PATH}: rotateCertificates`),
  ]);
  // The 0s durations are upstream's defaults, as SetDefaults fills them in.
  assert.equal(config.syncFrequencyMs, 60_000);
  assert.equal(config.nodeStatusUpdateFrequencyMs, 10_000);
  assert.equal(config.authenticationTokenWebhookCacheTTLMs, 120_000);
  assert.equal(config.clientCAFile, "/etc/kubernetes/pki/ca.crt");
  assert.equal(config.anonymousAuth, false);
  assert.equal(config.authorizationMode, "Webhook");
  assert.equal(config.resolvConf, "/run/systemd/resolve/resolv.conf");
  assert.deepEqual(config.clusterDNS, ["10.96.0.10"]);
});

Deno.test("kubeadm's config with a setting changed from the default is refused, naming it", async () => {
  const text = KUBEADM_CONFIG.replace("cgroupDriver: systemd", "cgroupDriver: cgroupfs")
    .replace("shutdownGracePeriod: 0s", "shutdownGracePeriod: 30s");
  await fails(
    KUBEADM_ARGS,
    `${PATH}: shutdownGracePeriod`,
    /^\/var\/lib\/kubelet\/config.yaml: shutdownGracePeriod: 30s: denolet does not implement graceful node shutdown; only the default 0s is accepted$/,
    { [PATH]: text },
  );
});
Deno.test("k3s's kubelet arguments load; what is pending is warned, --runtime-cgroups noted", async () => {
  const { config, warnings } = await run(K3S_ARGS);
  assert.equal(config.nodeName, "edge-1");
  assert.equal(config.readOnlyPort, 0);
  assert.deepEqual(warnings, [
    ignored("--config-dir"),
    ignored("--image-credential-provider-bin-dir"),
    ignored("--image-credential-provider-config"),
    "--runtime-cgroups: \"/k3s\": the runtime system container's stats come from the runtime's " +
    "process, not from this cgroup; accepted, as it changes no pod or node",
  ]);
});

Deno.test("k3s's rootless gate is accepted: it is upstream's default", async () => {
  await run([...K3S_ARGS, "--feature-gates=KubeletInUserNamespace=true"]);
});
