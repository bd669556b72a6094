/**
 * The systemd cgroup driver's pure parts (upstream cgroup_manager_linux.go and
 * opencontainers/cgroups systemd): cgroup names as slices, and a cgroup's values as the unit
 * properties runc's systemd manager sets.
 *
 *   /kubepods/burstable/pod12-34  →  /kubepods.slice/kubepods-burstable.slice/
 *                                     kubepods-burstable-pod12_34.slice
 */
import { CgroupError } from "./_cgroup_fs.ts";
import type { ResourceConfig } from "./_resource_config.ts";
import type { CgroupVersion } from "./_tree.ts";

const SUFFIX = ".slice";
/** systemd's USEC_INFINITY and "infinity" for TasksMax: the largest uint64. */
export const UINT64_MAX = 2n ** 64n - 1n;
/** The kernel's default CFS period (µs), which systemd assumes when none is given. */
const DEFAULT_CPU_PERIOD = 100_000;

/**
 * The systemd form of a cgroup name, always a cgroupfs path (`ToSystemd`): each component's "-"
 * becomes "_", the components joined with "-" make the slice, expanded into its parents. A name
 * whose last component is already a slice (`/system.slice`, as --system-reserved-cgroup is given
 * with this driver) is read as one (`ParseSystemdToCgroupName`) first.
 */
export function systemdCgroupPath(name: string): string {
  const parts = name.split("/").filter((p) => p !== "");
  const last = parts.at(-1);
  const components = last?.endsWith(SUFFIX)
    ? last.slice(0, -SUFFIX.length).split("-").map((p) => p.replaceAll("_", "-"))
    : parts;
  if (components.length === 0) return "/";
  return expandSlice(components.map((p) => p.replaceAll("-", "_")).join("-") + SUFFIX);
}

/** `ExpandSlice`: "a-b-c.slice" → "/a.slice/a-b.slice/a-b-c.slice". */
export function expandSlice(slice: string): string {
  if (!slice.endsWith(SUFFIX) || slice.length <= SUFFIX.length || slice.includes("/")) {
    throw new CgroupError(`invalid slice name: ${slice}`);
  }
  const name = slice.slice(0, -SUFFIX.length);
  if (name === "-") return "/";
  let path = "";
  let prefix = "";
  for (const component of name.split("-")) {
    if (component === "") throw new CgroupError(`invalid slice name: ${slice}`);
    path += `/${prefix}${component}${SUFFIX}`;
    prefix += `${component}-`;
  }
  return path;
}

/** The unit of a systemd cgroup path, and the slice it goes in ("-.slice" at the top). */
export function unitAndParent(path: string): { unit: string; parent: string } {
  const parts = path.split("/").filter((p) => p !== "");
  const unit = parts.at(-1);
  if (unit === undefined) throw new CgroupError("the root cgroup is not a unit");
  return { unit, parent: parts.at(-2) ?? "-.slice" };
}

/** A unit property as a plain triple (name, D-Bus signature, value); made a variant later. */
export type PropertySpec = [
  name: string,
  signature: string,
  value: bigint | boolean | string | string[],
];

/**
 * What StartTransientUnit is given for a slice (`UnifiedManager.Apply` / `LegacyManager.Apply`
 * with pid -1): a description, Wants= its parent, accounting on, no default dependencies. The
 * resources are set afterwards (`resourceProperties`).
 */
export function sliceProperties(unit: string, parent: string): PropertySpec[] {
  return [
    ["Description", "s", `libcontainer container ${unit}`],
    ["Wants", "as", [parent]],
    ["MemoryAccounting", "b", true],
    ["CPUAccounting", "b", true],
    ["IOAccounting", "b", true],
    ["TasksAccounting", "b", true],
    ["DefaultDependencies", "b", false],
  ];
}

/** upstream getCPUWeight: shares [2, 262144] → weight [1, 10000]. */
export function cpuWeight(shares: number): number {
  if (shares >= 262144) return 10000;
  return 1 + Math.floor(((shares - 2) * 9999) / 262142);
}

/**
 * The unit properties for `config` (genV2ResourcesProperties / genV1ResourcesProperties from
 * the kubelet's toResources), and the config to write to cgroupfs afterwards: systemd keeps CPU
 * quotas in whole percent, so a quota is rounded up to 10 ms per second and the files get the
 * rounded value too, as runc's addCPUQuota does.
 */
export function resourceProperties(
  c: ResourceConfig,
  opts: { cgroupVersion: CgroupVersion; systemdVersion: number },
): { props: PropertySpec[]; config: ResourceConfig } {
  const props: PropertySpec[] = [];
  const config = { ...c };
  const memory = c.memoryLimitBytes ?? 0;
  if (memory > 0) {
    props.push([opts.cgroupVersion === 2 ? "MemoryMax" : "MemoryLimit", "t", BigInt(memory)]);
  }
  if (c.cpuShares !== undefined && c.cpuShares > 0) {
    if (opts.cgroupVersion === 2) props.push(["CPUWeight", "t", BigInt(cpuWeight(c.cpuShares))]);
    else props.push(["CPUShares", "t", BigInt(c.cpuShares)]);
  }
  // The kubelet hands runc a quota only with its period; -1 means no limit.
  const period = c.cpuPeriod ?? 0;
  const quota = c.cpuPeriod === undefined ? 0 : c.cpuQuota ?? 0;
  if (period !== 0 && opts.systemdVersion >= 242) {
    props.push(["CPUQuotaPeriodUSec", "t", BigInt(period)]);
  }
  if (quota !== 0 || period !== 0) {
    let perSec = UINT64_MAX;
    if (quota > 0) {
      const p = period || DEFAULT_CPU_PERIOD;
      let us = Math.floor((quota * 1_000_000) / p);
      if (us % 10_000 !== 0) {
        us = (Math.floor(us / 10_000) + 1) * 10_000;
        config.cpuQuota = Math.floor((us * p) / 1_000_000);
      }
      perSec = BigInt(us);
    }
    props.push(["CPUQuotaPerSecUSec", "t", perSec]);
  }
  if (c.pidsLimit !== undefined) {
    // systemd takes no TasksMax=0; "infinity" is the largest uint64.
    const tasks = c.pidsLimit < 0 ? UINT64_MAX : BigInt(Math.max(c.pidsLimit, 1));
    props.push(["TasksMax", "t", tasks]);
  }
  return { props, config };
}

/** `systemdVersionAtoi`: "252.39-1~deb12u2" → 252; -1 when there is no leading number. */
export function systemdVersionNumber(version: string): number {
  const m = /^"?v?(\d+)/.exec(version);
  return m ? Number(m[1]) : -1;
}
