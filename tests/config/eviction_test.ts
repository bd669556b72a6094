import assert from "node:assert/strict";
import { fails, run } from "./_helpers.ts";

const FILE = "/etc/kubernetes/kubelet.yaml";
const head = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

Deno.test("eviction defaults: upstream hard thresholds, 5m transition, no max grace", async () => {
  const { config } = await run([]);
  assert.deepEqual(config.evictionHard, {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
  });
  assert.deepEqual(config.evictionSoft, {});
  assert.equal(config.evictionPressureTransitionPeriodMs, 300_000);
  assert.equal(config.evictionMaxPodGracePeriod, 0);
  assert.equal(config.evictStaticPods, false);
});

Deno.test("--eviction-hard replaces the defaults; repeats add to it", async () => {
  const { config } = await run([
    "--eviction-hard=memory.available<1Gi, nodefs.available < 5%",
    "--eviction-hard",
    "pid.available<10%",
  ]);
  assert.deepEqual(config.evictionHard, {
    "memory.available": "1Gi",
    "nodefs.available": "5%",
    "pid.available": "10%",
  });
});

Deno.test("every eviction flag sets its field", async () => {
  const { config } = await run([
    "--eviction-soft=memory.available<500Mi",
    "--eviction-soft-grace-period=memory.available=1m30s",
    "--eviction-minimum-reclaim=memory.available=0Mi,nodefs.available=500Mi",
    "--eviction-pressure-transition-period=30s",
    "--eviction-max-pod-grace-period=20",
    "--evict-static-pods",
  ]);
  assert.deepEqual(config.evictionSoft, { "memory.available": "500Mi" });
  assert.deepEqual(config.evictionSoftGracePeriod, { "memory.available": "1m30s" });
  assert.deepEqual(config.evictionMinimumReclaim, {
    "memory.available": "0Mi",
    "nodefs.available": "500Mi",
  });
  assert.equal(config.evictionPressureTransitionPeriodMs, 30_000);
  assert.equal(config.evictionMaxPodGracePeriod, 20);
  assert.equal(config.evictStaticPods, true);
});

Deno.test("a partial evictionHard in the file drops the other defaults, as upstream", async () => {
  const { config } = await run(["--config", FILE], {
    [FILE]: head + "evictionHard:\n  memory.available: 200Mi\n",
  });
  assert.deepEqual(config.evictionHard, { "memory.available": "200Mi" });
});

Deno.test("mergeDefaultEvictionSettings keeps the defaults the file does not name", async () => {
  const { config } = await run(["--config", FILE], {
    [FILE]: head +
      "mergeDefaultEvictionSettings: true\nevictionHard:\n  memory.available: 200Mi\n" +
      "evictionSoft:\n  nodefs.available: 20%\nevictionSoftGracePeriod:\n  nodefs.available: 2m\n" +
      "evictionPressureTransitionPeriod: 10s\nevictionMaxPodGracePeriod: 30\n",
  });
  assert.deepEqual(config.evictionHard, {
    "memory.available": "200Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
  });
  assert.deepEqual(config.evictionSoft, { "nodefs.available": "20%" });
  assert.equal(config.evictionPressureTransitionPeriodMs, 10_000);
  assert.equal(config.evictionMaxPodGracePeriod, 30);
});

Deno.test("bad eviction values fail at load, naming the flag or file field", async () => {
  await fails(["--eviction-hard=memory.available<lots"], "--eviction-hard", /memory\.available/);
  await fails(["--eviction-hard=memory.available=1Gi"], "--eviction-hard", /expect string<string/);
  await fails(["--eviction-soft=memory.available<1Gi"], "--eviction-soft", /grace period/);
  await fails(
    ["--eviction-minimum-reclaim=disk.available=1Gi"],
    "--eviction-minimum-reclaim",
    /unsupported eviction signal "disk\.available"/,
  );
  await fails(["--config", FILE], `${FILE}: evictionHard`, /must be <= 100%/, {
    [FILE]: head + "evictionHard:\n  nodefs.available: 101%\n",
  });
  await fails(["--config", FILE], `${FILE}: evictionHard.memory.available`, /expected a string/, {
    [FILE]: head + "evictionHard:\n  memory.available: 100\n",
  });
  await fails(
    ["--eviction-max-pod-grace-period=-1"],
    "--eviction-max-pod-grace-period",
    /negative/,
  );
});
