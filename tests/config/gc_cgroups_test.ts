import assert from "node:assert/strict";
import { ConfigError } from "../../src/util/errors.ts";
import { run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

Deno.test("cgroup and garbage collection flags set their fields", async () => {
  const { config } = await run([
    "--cgroups-per-qos=false",
    // Upstream refuses --cgroups-per-qos=false while "pods" (the default) is enforced.
    "--enforce-node-allocatable=",
    "--cgroup-root=/edge",
    "--cgroup-driver=cgroupfs",
    "--minimum-container-ttl-duration=1m",
    "--maximum-dead-containers-per-container=2",
    "--maximum-dead-containers=100",
    "--image-gc-high-threshold=90",
    "--image-gc-low-threshold=70",
    "--image-minimum-gc-age=5m",
    "--container-log-max-size=5Mi",
    "--container-log-max-files=3",
  ]);
  assert.equal(config.cgroupsPerQOS, false);
  assert.equal(config.cgroupRoot, "/edge");
  assert.equal(config.minimumContainerTTLDurationMs, 60_000);
  assert.equal(config.maxPerPodContainerCount, 2);
  assert.equal(config.maxContainerCount, 100);
  assert.equal(config.imageGCHighThresholdPercent, 90);
  assert.equal(config.imageGCLowThresholdPercent, 70);
  assert.equal(config.imageMinimumGCAgeMs, 300_000);
  assert.equal(config.containerLogMaxSizeBytes, 5 * 1024 * 1024);
  assert.equal(config.containerLogMaxFiles, 3);
});

Deno.test("cgroup and garbage collection fields are read from the config file", async () => {
  const { config, warnings } = await run(["--config", "/k.yaml"], {
    "/k.yaml": HEAD + `
cgroupsPerQOS: false
enforceNodeAllocatable: []
cgroupRoot: /edge
cgroupDriver: cgroupfs
imageGCHighThresholdPercent: 95
imageGCLowThresholdPercent: 90
imageMinimumGCAge: 30s
containerLogMaxSize: 1M
containerLogMaxFiles: 2
containerLogMonitorInterval: 20s
`,
  });
  assert.deepEqual(warnings, []);
  assert.equal(config.cgroupsPerQOS, false);
  assert.equal(config.cgroupRoot, "/edge");
  assert.equal(config.imageGCHighThresholdPercent, 95);
  assert.equal(config.imageGCLowThresholdPercent, 90);
  assert.equal(config.imageMinimumGCAgeMs, 30_000);
  assert.equal(config.containerLogMaxSizeBytes, 1_000_000);
  assert.equal(config.containerLogMaxFiles, 2);
  assert.equal(config.containerLogMonitorIntervalMs, 20_000);
});

async function rejects(args: string[], pattern: RegExp) {
  await assert.rejects(
    run(args),
    (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
  );
}

Deno.test("bad cgroup and garbage collection settings are refused at startup", async () => {
  await rejects(["--cgroup-driver=foo"], /unknown cgroup driver "foo"; use cgroupfs or systemd/);
  await rejects(["--cgroup-root=edge"], /cgroup-root.*absolute/);
  await rejects(["--image-gc-high-threshold=101"], /between 0 and 100/);
  await rejects(
    ["--image-gc-high-threshold=50", "--image-gc-low-threshold=60"],
    /image-gc-low-threshold.*must not be greater/,
  );
  await rejects(["--container-log-max-files=1"], /at least 2/);
  await rejects(["--container-log-max-size=ten"], /container-log-max-size/);
});

Deno.test("an empty cgroup root is upstream's default and means the root", async () => {
  assert.equal((await run(["--cgroup-root="])).config.cgroupRoot, "/");
  const { config } = await run(["--config", "/k.yaml"], { "/k.yaml": HEAD + 'cgroupRoot: ""\n' });
  assert.equal(config.cgroupRoot, "/");
});

Deno.test("--minimum-image-ttl-duration, upstream's name, sets the image minimum age", async () => {
  assert.equal(
    (await run(["--minimum-image-ttl-duration=5m"])).config.imageMinimumGCAgeMs,
    300_000,
  );
});

Deno.test("image pull credential verification: policy and allowlist from the file, upstream's checks", async () => {
  const { config } = await run(["--config", "/k.yaml"], {
    "/k.yaml": HEAD +
      "imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages\n" +
      'preloadedImagesVerificationAllowlist: ["registry.k8s.io/pause", "reg.example.com/*"]\n',
  });
  assert.equal(config.imagePullCredentialsVerificationPolicy, "NeverVerifyAllowlistedImages");
  assert.deepEqual(config.preloadedImagesVerificationAllowlist, [
    "registry.k8s.io/pause",
    "reg.example.com/*",
  ]);
  const fails = async (body: string, re: RegExp) => {
    await assert.rejects(run(["--config", "/k.yaml"], { "/k.yaml": HEAD + body }), (e) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, re);
      return true;
    });
  };
  await fails("imagePullCredentialsVerificationPolicy: Sometimes\n", /"Sometimes" is not valid/);
  await fails(
    'preloadedImagesVerificationAllowlist: ["busybox"]\n',
    /can't be set if imagePullCredentialsVerificationPolicy is not "NeverVerifyAllowlistedImages"/,
  );
  await fails(
    "imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages\n" +
      'preloadedImagesVerificationAllowlist: ["busybox:1"]\n',
    /neither tag nor digest is accepted/,
  );
  await fails(
    "featureGates: {KubeletEnsureSecretPulledImages: false}\n" +
      "imagePullCredentialsVerificationPolicy: AlwaysVerify\n",
    /must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled/,
  );
});

Deno.test("credential provider flags set their fields", async () => {
  const { config, warnings } = await run([
    "--image-credential-provider-config=/etc/kubernetes/credential-providers.yaml",
    "--image-credential-provider-bin-dir",
    "/usr/libexec/kubernetes/credential-providers",
  ]);
  assert.deepEqual(warnings, []);
  assert.equal(config.imageCredentialProviderConfig, "/etc/kubernetes/credential-providers.yaml");
  assert.equal(
    config.imageCredentialProviderBinDir,
    "/usr/libexec/kubernetes/credential-providers",
  );
});

Deno.test("image pull parallelism, rate and maximum age: flags, file and upstream's defaulting", async () => {
  const flags = await run([
    "--serialize-image-pulls=false",
    "--registry-qps=0",
    "--registry-burst=3",
  ]);
  assert.equal(flags.config.serializeImagePulls, false);
  assert.equal(flags.config.registryPullQPS, 0);
  assert.equal(flags.config.registryBurst, 3);
  assert.deepEqual(flags.warnings, []);
  // A file with maxParallelImagePulls >= 2 and no serializeImagePulls pulls in parallel.
  const file = await run(["--config", "/k.yaml"], {
    "/k.yaml": HEAD + "maxParallelImagePulls: 3\nregistryPullQPS: 10\nimageMaximumGCAge: 72h\n",
  });
  assert.equal(file.config.serializeImagePulls, false);
  assert.equal(file.config.maxParallelImagePulls, 3);
  assert.equal(file.config.registryPullQPS, 10);
  assert.equal(file.config.imageMaximumGCAgeMs, 72 * 3600_000);
  assert.deepEqual(file.warnings, []);
  const fails = async (body: string, re: RegExp) => {
    await assert.rejects(run(["--config", "/k.yaml"], { "/k.yaml": HEAD + body }), (e) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, re);
      return true;
    });
  };
  await fails(
    "serializeImagePulls: true\nmaxParallelImagePulls: 2\n",
    /maxParallelImagePulls: cannot be larger than 1 unless SerializeImagePulls/,
  );
  await fails("maxParallelImagePulls: 0\n", /maxParallelImagePulls: 0 must be a positive number/);
  await fails("registryBurst: -1\n", /registryBurst: -1 must not be a negative number/);
  await fails(
    "imageMaximumGCAge: 1m\nimageMinimumGCAge: 2m\n",
    /imageMaximumGCAge: 1m0s must be greater than imageMinimumGCAge 2m0s/,
  );
});

Deno.test("the systemd cgroup driver is accepted, as kubeadm and k3s set it", async () => {
  assert.equal((await run(["--cgroup-driver=systemd"])).config.cgroupDriver, "systemd");
});
