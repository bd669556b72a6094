/**
 * The systemd cgroup driver: upstream's slice names, the properties runc's systemd manager
 * gives a slice, the pod cgroups made through a test double of systemd's manager over a
 * cgroup v2 fixture, and the driver chosen from the runtime's RuntimeConfig.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  CgroupError,
  expandSlice,
  openPodCgroups,
  resolveCgroupDriver,
  resourceProperties,
  sliceProperties,
  type SystemdAccess,
  systemdCgroupPath,
} from "../../src/cm/mod.ts";
import { DBusCallError, type SystemdManager, type UnitProperty } from "../../src/dbus/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { ConfigError } from "../../src/util/errors.ts";
import { createLogger, nullLogger } from "../../src/util/log.ts";
import { v2Fixture, v2fs } from "./_fixtures.ts";

Deno.test("systemdCgroupPath names cgroups as upstream's ToSystemd", () => {
  // upstream TestCgroupNameToSystemd's cases.
  assert.equal(
    systemdCgroupPath("/kubepods/burstable/pod1234-abcd-5678-efgh"),
    "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_abcd_5678_efgh.slice",
  );
  assert.equal(systemdCgroupPath("/kubepods"), "/kubepods.slice");
  assert.equal(
    systemdCgroupPath("/kubepods/besteffort"),
    "/kubepods.slice/kubepods-besteffort.slice",
  );
  assert.equal(systemdCgroupPath("/"), "/");
  // A --cgroup-root below the root.
  assert.equal(systemdCgroupPath("/edge/kubepods"), "/edge.slice/edge-kubepods.slice");
  // Reserved cgroups are given as slices with this driver (ParseSystemdToCgroupName).
  assert.equal(systemdCgroupPath("/system.slice"), "/system.slice");
  assert.equal(
    systemdCgroupPath("/kube.slice/kube-reserved.slice"),
    "/kube.slice/kube-reserved.slice",
  );
});

Deno.test("expandSlice expands a slice into its parents and refuses bad names", () => {
  assert.equal(expandSlice("test-a-b.slice"), "/test.slice/test-a.slice/test-a-b.slice");
  assert.equal(expandSlice("-.slice"), "/");
  for (const bad of ["test--a.slice", "-test.slice", "a/b.slice", ".slice", "test"]) {
    assert.throws(() => expandSlice(bad), CgroupError, bad);
  }
});

Deno.test("sliceProperties are what runc's Apply(-1) starts a slice with", () => {
  assert.deepEqual(sliceProperties("kubepods-burstable.slice", "kubepods.slice"), [
    ["Description", "s", "libcontainer container kubepods-burstable.slice"],
    ["Wants", "as", ["kubepods.slice"]],
    ["MemoryAccounting", "b", true],
    ["CPUAccounting", "b", true],
    ["IOAccounting", "b", true],
    ["TasksAccounting", "b", true],
    ["DefaultDependencies", "b", false],
  ]);
});

Deno.test("resourceProperties converts a pod cgroup's values as runc's systemd manager", () => {
  const v2 = { cgroupVersion: 2 as const, systemdVersion: 252 };
  // A Guaranteed pod of 500m / 128Mi with --pod-max-pids 100.
  const guaranteed = resourceProperties(
    {
      cpuShares: 512,
      cpuQuota: 50_000,
      cpuPeriod: 100_000,
      memoryLimitBytes: 128 * 2 ** 20,
      pidsLimit: 100,
    },
    v2,
  );
  assert.deepEqual(guaranteed.props, [
    ["MemoryMax", "t", 134217728n],
    ["CPUWeight", "t", 20n],
    ["CPUQuotaPeriodUSec", "t", 100000n],
    ["CPUQuotaPerSecUSec", "t", 500000n],
    ["TasksMax", "t", 100n],
  ]);
  assert.equal(guaranteed.config.cpuQuota, 50_000);
  // systemd keeps whole percents: 15 ms per 100 ms rounds up to 20, and cgroupfs gets it too.
  const odd = resourceProperties({ cpuShares: 2, cpuQuota: 1_500, cpuPeriod: 100_000 }, v2);
  assert.deepEqual(odd.props.find(([n]) => n === "CPUQuotaPerSecUSec"), [
    "CPUQuotaPerSecUSec",
    "t",
    20000n,
  ]);
  assert.equal(odd.config.cpuQuota, 2_000);
  // No quota (-1: --cpu-cfs-quota=false) is "infinity"; so is an unlimited pids.max.
  const unlimited = resourceProperties({ cpuQuota: -1, cpuPeriod: 100_000, pidsLimit: -1 }, v2);
  assert.deepEqual(unlimited.props, [
    ["CPUQuotaPeriodUSec", "t", 100000n],
    ["CPUQuotaPerSecUSec", "t", 2n ** 64n - 1n],
    ["TasksMax", "t", 2n ** 64n - 1n],
  ]);
  // A Burstable pod without limits: shares only; BestEffort's 2 shares are weight 1.
  assert.deepEqual(resourceProperties({ cpuShares: 2 }, v2).props, [["CPUWeight", "t", 1n]]);
  assert.deepEqual(resourceProperties({ cpuShares: 262144 * 2 }, v2).props, [[
    "CPUWeight",
    "t",
    10000n,
  ]]);
  // cgroup v1 names; systemd before 242 has no CPUQuotaPeriodUSec.
  assert.deepEqual(
    resourceProperties({
      cpuShares: 512,
      cpuQuota: 50_000,
      cpuPeriod: 100_000,
      memoryLimitBytes: 1024,
    }, {
      cgroupVersion: 1,
      systemdVersion: 241,
    }).props,
    [["MemoryLimit", "t", 1024n], ["CPUShares", "t", 512n], ["CPUQuotaPerSecUSec", "t", 500000n]],
  );
  // systemd refuses TasksMax=0.
  assert.deepEqual(resourceProperties({ pidsLimit: 0 }, v2).props, [["TasksMax", "t", 1n]]);
});

/** systemd's manager as a test double: units it knows, and every call in order. */
function fakeSystemd() {
  const units = new Map<string, UnitProperty[]>();
  const calls: string[] = [];
  const props = new Map<string, UnitProperty[]>();
  const manager: SystemdManager = {
    startTransientUnit(name, p) {
      calls.push(`start ${name}`);
      if (units.has(name)) {
        return Promise.reject(
          new DBusCallError("org.freedesktop.systemd1.UnitExists", `Unit ${name} already exists.`),
        );
      }
      units.set(name, p);
      return Promise.resolve();
    },
    stopUnit(name) {
      calls.push(`stop ${name}`);
      units.delete(name);
      return Promise.resolve();
    },
    setUnitProperties(name, runtime, p) {
      calls.push(`set ${name}`);
      assert.equal(runtime, true);
      props.set(name, p);
      return Promise.resolve();
    },
    resetFailedUnit: () => Promise.resolve(),
    killUnit: () => Promise.resolve(),
    version: () => Promise.resolve("252.39-1~deb12u2"),
  };
  const access: SystemdAccess = {
    use: (fn) => fn(manager),
    version: () => Promise.resolve(252),
    close: () => {},
  };
  return { access, units, calls, props };
}

function guaranteed(uid: string): V1Pod {
  const r = { cpu: "500m", memory: "128Mi" };
  return {
    metadata: { uid, name: "web", namespace: "default" },
    spec: { containers: [{ name: "c", resources: { requests: r, limits: r } }] },
  };
}

function burstable(uid: string): V1Pod {
  return {
    metadata: { uid, name: "b", namespace: "default" },
    spec: {
      containers: [{
        name: "c",
        resources: { requests: { cpu: "100m" }, limits: { memory: "64Mi" } },
      }],
    },
  };
}

const read = (p: string) => Deno.readTextFile(p).then((s) => s.trim());
const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test("the systemd driver makes the QoS and pod cgroups as slices through systemd", async () => {
  const root = await v2Fixture();
  const systemd = fakeSystemd();
  try {
    const cg = await openPodCgroups(
      { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "systemd", mountRoot: root },
      {
        logger: nullLogger,
        fs: v2fs,
        nodeAllocatable: { cpuMilli: 2000, memoryBytes: 2 ** 30 },
        podPidsLimit: 1024,
        systemd: systemd.access,
        systemdRunning: () => Promise.resolve(true),
      },
    );
    const uid = "1234-abcd";
    const parent = await cg.ensure(guaranteed(uid));
    // The sandbox's cgroup parent, as the kubelet passes it (containerd turns it into
    // "kubepods-pod1234_abcd.slice:cri-containerd:<id>").
    assert.equal(parent, "/kubepods.slice/kubepods-pod1234_abcd.slice");
    assert.deepEqual(systemd.calls.filter((c) => c.startsWith("start")), [
      "start kubepods.slice",
      "start kubepods-besteffort.slice",
      "start kubepods-burstable.slice",
      "start kubepods-pod1234_abcd.slice",
    ]);
    const wants = (unit: string) => systemd.units.get(unit)!.find(([n]) => n === "Wants")![1].value;
    assert.deepEqual(wants("kubepods.slice"), ["-.slice"]);
    assert.deepEqual(wants("kubepods-burstable.slice"), ["kubepods.slice"]);
    assert.deepEqual(wants("kubepods-pod1234_abcd.slice"), ["kubepods.slice"]);
    // The pod's resources went to systemd and to cgroupfs alike.
    const podProps = Object.fromEntries(
      systemd.props.get("kubepods-pod1234_abcd.slice")!.map(([n, v]) => [n, v.value]),
    );
    assert.deepEqual(podProps, {
      MemoryMax: 134217728n,
      CPUWeight: 20n,
      CPUQuotaPeriodUSec: 100000n,
      CPUQuotaPerSecUSec: 500000n,
      TasksMax: 1024n,
    });
    const dir = `${root}/kubepods.slice/kubepods-pod1234_abcd.slice`;
    assert.equal(await read(`${dir}/memory.max`), "134217728");
    assert.equal(await read(`${dir}/cpu.max`), "50000 100000");
    assert.equal(await read(`${dir}/pids.max`), "1024");
    // kubepods is sized to the node allocatable.
    assert.equal(await read(`${root}/kubepods.slice/memory.max`), `${2 ** 30}`);
    const kubepods = Object.fromEntries(
      systemd.props.get("kubepods.slice")!.map(([n, v]) => [n, v.value]),
    );
    assert.equal(kubepods.MemoryMax, BigInt(2 ** 30));

    // A burstable pod lands in kubepods-burstable.slice.
    assert.equal(
      await cg.ensure(burstable("b-1")),
      "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podb_1.slice",
    );
    assert.equal(
      await read(
        `${root}/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podb_1.slice/memory.max`,
      ),
      `${64 * 2 ** 20}`,
    );

    // Removal stops the unit, then removes what is left.
    await cg.remove(uid);
    assert.ok(systemd.calls.includes("stop kubepods-pod1234_abcd.slice"));
    assert.ok(!systemd.units.has("kubepods-pod1234_abcd.slice"));
    assert.ok(!(await exists(dir)));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the systemd driver takes over slices a previous agent started", async () => {
  const root = await v2Fixture();
  const systemd = fakeSystemd();
  try {
    const open = () =>
      openPodCgroups(
        { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "systemd", mountRoot: root },
        {
          logger: nullLogger,
          fs: v2fs,
          systemd: systemd.access,
          systemdRunning: () => Promise.resolve(true),
        },
      );
    await (await open()).ensure(guaranteed("p1"));
    // A restarted agent finds the units there: UnitExists is what it wanted, not an error.
    const again = await open();
    assert.equal(await again.ensure(guaranteed("p2")), "/kubepods.slice/kubepods-podp2.slice");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the systemd driver is refused where systemd is not PID 1", async () => {
  const root = await v2Fixture();
  try {
    await assert.rejects(
      openPodCgroups(
        { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "systemd", mountRoot: root },
        { logger: nullLogger, fs: v2fs, systemdRunning: () => Promise.resolve(false) },
      ),
      (e) => e instanceof CgroupError && /systemd not running on this host/.test(e.message),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("resolveCgroupDriver follows the runtime's RuntimeConfig where it answers", async () => {
  const clock = new FakeClock();
  const lines: string[] = [];
  const logger = createLogger({ write: (l) => lines.push(l) });
  const ask = (answers: Array<() => Promise<unknown>>) => {
    let i = 0;
    return (() => answers[Math.min(i++, answers.length - 1)]()) as never;
  };
  // containerd 2 with SystemdCgroup = true overrides a cgroupfs configuration.
  assert.equal(
    await resolveCgroupDriver("cgroupfs", {
      runtimeConfig: ask([() => Promise.resolve({ linux: { cgroupDriver: "SYSTEMD" } })]),
      logger,
      clock,
    }),
    "systemd",
  );
  assert.ok(
    lines.some((l) => l.includes("Using cgroup driver setting received from the CRI runtime")),
  );
  // containerd 1.x answers Unimplemented: the configured driver.
  assert.equal(
    await resolveCgroupDriver("systemd", {
      runtimeConfig: ask([() => Promise.resolve(undefined)]),
      logger,
      clock,
    }),
    "systemd",
  );
  assert.ok(
    lines.some((l) => l.includes("CRI implementation should be updated to support RuntimeConfig")),
  );
  // A runtime still starting: tried again (upstream: three times, 2 s apart).
  const late = resolveCgroupDriver("cgroupfs", {
    runtimeConfig: ask([
      () => Promise.reject(new Error("connection refused")),
      () => Promise.resolve({ linux: { cgroupDriver: "CGROUPFS" } }),
    ]),
    logger,
    clock,
  });
  let settled = false;
  late.finally(() => settled = true).catch(() => {});
  while (!settled) await clock.advance(500);
  assert.equal(await late, "cgroupfs");
  await assert.rejects(
    resolveCgroupDriver("cgroupfs", {
      runtimeConfig: ask([() => Promise.resolve({ linux: { cgroupDriver: "BOTH" } })]),
      logger,
      clock,
    }),
    ConfigError,
  );
});
