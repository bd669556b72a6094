import assert from "node:assert/strict";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const FILE = "/etc/kubernetes/kubelet.yaml";

Deno.test("--pod-max-pids / podPidsLimit: default -1, from the file, the flag wins", async () => {
  assert.equal((await run([])).config.podPidsLimit, -1);
  const flagged = await run(["--pod-max-pids=4096"]);
  assert.equal(flagged.config.podPidsLimit, 4096);
  assert.deepEqual(flagged.warnings, [], "implemented, so no longer an ignored upstream flag");
  const files = { [FILE]: HEAD + "podPidsLimit: 100\n" };
  const fromFile = await run(["--config", FILE], files);
  assert.equal(fromFile.config.podPidsLimit, 100);
  assert.deepEqual(fromFile.warnings, []);
  assert.equal(
    (await run(["--config", FILE, "--pod-max-pids", "-1"], files)).config.podPidsLimit,
    -1,
  );
  // A pointer upstream: an explicit 0 is kept (no limit, as -1).
  const zero = await run(["--config", FILE], { [FILE]: HEAD + "podPidsLimit: 0\n" });
  assert.equal(zero.config.podPidsLimit, 0);
  await fails(["--pod-max-pids=many"], "--pod-max-pids", /expected an integer/);
  await fails(["--config", FILE], `${FILE}: podPidsLimit`, /expected an integer/, {
    [FILE]: HEAD + 'podPidsLimit: "100"\n',
  });
});

Deno.test("--enforce-node-allocatable and the reserved cgroups: defaults, flags and file", async () => {
  const { config } = await run([]);
  assert.deepEqual(config.enforceNodeAllocatable, ["pods"]);
  assert.equal(config.kubeReservedCgroup, "");
  assert.equal(config.systemReservedCgroup, "");
  const flagged = await run([
    "--enforce-node-allocatable=pods,kube-reserved",
    "--enforce-node-allocatable",
    "system-reserved-compressible",
    "--kube-reserved-cgroup=/kube.slice",
    "--system-reserved-cgroup",
    "/system.slice",
  ]);
  assert.deepEqual(flagged.config.enforceNodeAllocatable, [
    "pods",
    "kube-reserved",
    "system-reserved-compressible",
  ]);
  assert.equal(flagged.config.kubeReservedCgroup, "/kube.slice");
  assert.equal(flagged.config.systemReservedCgroup, "/system.slice");
  assert.deepEqual(flagged.warnings, []);
  const files = {
    [FILE]: HEAD +
      "enforceNodeAllocatable: [pods, system-reserved]\nsystemReservedCgroup: /system.slice\n",
  };
  const fromFile = await run(["--config", FILE], files);
  assert.deepEqual(fromFile.config.enforceNodeAllocatable, ["pods", "system-reserved"]);
  assert.equal(fromFile.config.systemReservedCgroup, "/system.slice");
  assert.deepEqual(fromFile.warnings, []);
  // An empty list given is kept: nothing is enforced.
  const none = await run(["--config", FILE], { [FILE]: HEAD + "enforceNodeAllocatable: []\n" });
  assert.deepEqual(none.config.enforceNodeAllocatable, []);
  assert.deepEqual((await run(["--enforce-node-allocatable="])).config.enforceNodeAllocatable, []);
});

Deno.test("--enforce-node-allocatable is checked as upstream validates it", async () => {
  const flag = "--enforce-node-allocatable";
  await fails(
    [`${flag}=pods,cpu`],
    flag,
    /invalid configuration: option "cpu" specified for enforceNodeAllocatable \(--enforce-node-allocatable\)\. Valid options are "pods", "system-reserved", "system-reserved-compressible", "kube-reserved", "kube-reserved-compressible" or "none"/,
  );
  await fails([`${flag}=pods,pods`], flag, /duplicated enforcements "pods"/);
  await fails([`${flag}=none,pods`], flag, /may not contain additional enforcements when "none"/);
  await fails(
    [`${flag}=kube-reserved,kube-reserved-compressible`, "--kube-reserved-cgroup=/k"],
    flag,
    /both "kube-reserved" and "kube-reserved-compressible" cannot be specified together/,
  );
  await fails(
    [`${flag}=system-reserved`],
    "systemReservedCgroup",
    /systemReservedCgroup \(--system-reserved-cgroup\) must be specified when "system-reserved" or "system-reserved-compressible" included/,
  );
  await fails(
    [`${flag}=kube-reserved-compressible`],
    "kubeReservedCgroup",
    /kubeReservedCgroup \(--kube-reserved-cgroup\) must be specified/,
  );
  // The default "pods" needs pod cgroups, as upstream: --cgroups-per-qos=false alone is refused.
  await fails(
    ["--cgroups-per-qos=false"],
    "--cgroups-per-qos",
    /cgroupsPerQOS \(--cgroups-per-qos\) must be set to true when "pods" contained in enforceNodeAllocatable/,
  );
  await run(["--cgroups-per-qos=false", `${flag}=none`]);
  await fails(
    [`${flag}=kube-reserved`, "--kube-reserved-cgroup=kube"],
    "--kube-reserved-cgroup",
    /must be an absolute cgroup name/,
  );
});

Deno.test("--local-storage-capacity-isolation / localStorageCapacityIsolation: default true", async () => {
  assert.equal((await run([])).config.localStorageCapacityIsolation, true);
  const flagged = await run(["--local-storage-capacity-isolation=false"]);
  assert.equal(flagged.config.localStorageCapacityIsolation, false);
  assert.deepEqual(flagged.warnings, []);
  const files = { [FILE]: HEAD + "localStorageCapacityIsolation: false\n" };
  const fromFile = await run(["--config", FILE], files);
  assert.equal(fromFile.config.localStorageCapacityIsolation, false);
  assert.deepEqual(fromFile.warnings, []);
});

Deno.test("--fail-swap-on / failSwapOn (default true) and memorySwap.swapBehavior", async () => {
  const { config } = await run([]);
  assert.equal(config.failSwapOn, true);
  assert.equal(config.memorySwapBehavior, "");
  const flagged = await run(["--fail-swap-on=false"]);
  assert.equal(flagged.config.failSwapOn, false);
  assert.deepEqual(flagged.warnings, [], "implemented, so no longer an ignored upstream flag");
  const files = {
    [FILE]: HEAD + "failSwapOn: false\nmemorySwap:\n  swapBehavior: LimitedSwap\n",
  };
  const fromFile = await run(["--config", FILE], files);
  assert.equal(fromFile.config.failSwapOn, false);
  assert.equal(fromFile.config.memorySwapBehavior, "LimitedSwap");
  assert.deepEqual(fromFile.warnings, []);
  await fails(
    ["--config", FILE],
    `${FILE}: memorySwap.swapBehavior`,
    /invalid configuration: memorySwap\.swapBehavior "UnlimitedSwap" must be one of: "", "LimitedSwap" or "NoSwap"/,
    { [FILE]: HEAD + "memorySwap:\n  swapBehavior: UnlimitedSwap\n" },
  );
  await fails(["--config", FILE], `${FILE}: memorySwap.swapMax`, /unknown field/, {
    [FILE]: HEAD + "memorySwap:\n  swapMax: 1\n",
  });
});
