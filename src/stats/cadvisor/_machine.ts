/**
 * The machine as cAdvisor's MachineInfo and VersionInfo describe it (`machine_*` and
 * `cadvisor_version_info`), the block devices it names I/O after, and the filesystems the root
 * cgroup reports. Read at the first scrape and again every few minutes, as cAdvisor refreshes
 * its machine info; only the filesystems' usage and disk counters are read per scrape.
 */
import { readMachineInfo } from "../../node/mod.ts";
import type { FsCapacity } from "../../util/statfs.ts";
import { readOptionalSync } from "../_cgroup.ts";
import {
  type DiskStats,
  meminfoBytes,
  type MountInfo,
  parseCpuinfo,
  parseDiskstats,
  parseMountinfo,
} from "./_parse.ts";

export interface MachineFacts {
  /** When these were read (the `machine_*` samples' timestamp), ms. */
  timestampMs: number;
  cores: number;
  physicalCores: number;
  sockets: number;
  memoryBytes: number;
  swapBytes: number;
  machineId: string;
  systemUuid: string;
  bootId: string;
  kernelVersion: string;
  osVersion: string;
  bootTimeMs: number;
  /** `major:minor` → "/dev/<name>" of the machine's disks (cAdvisor's DiskMap). */
  disks: Map<string, string>;
  /** The filesystems of the root cgroup's `container_fs_*` series. */
  filesystems: RootFilesystem[];
}

export interface RootFilesystem {
  /** "/dev/sda1"; a tmpfs is named by its mount point, as cAdvisor's tmpfs plugin does. */
  device: string;
  mountpoint: string;
  major: number;
  minor: number;
}

export interface MachineRoots {
  proc: string;
  sys: string;
  etc: string;
}

export async function readMachineFacts(roots: MachineRoots, nowMs: number): Promise<MachineFacts> {
  const base = await readMachineInfo(roots);
  const text = (p: string) => readOptionalSync(p) ?? "";
  const cpus = parseCpuinfo(text(`${roots.proc}/cpuinfo`));
  const meminfo = text(`${roots.proc}/meminfo`);
  const btime = /^btime\s+(\d+)/m.exec(text(`${roots.proc}/stat`));
  const mounts = parseMountinfo(text(`${roots.proc}/self/mountinfo`));
  return {
    timestampMs: nowMs,
    cores: cpus.cores || base.cpus,
    physicalCores: cpus.physicalCores || countTopology(roots.sys, "core_id"),
    sockets: cpus.sockets || countTopology(roots.sys, "physical_package_id"),
    memoryBytes: meminfoBytes(meminfo, "MemTotal"),
    swapBytes: meminfoBytes(meminfo, "SwapTotal"),
    // cAdvisor falls back to dbus' copy of the machine id.
    machineId: base.machineID || text("/var/lib/dbus/machine-id").trim(),
    systemUuid: base.systemUUID,
    bootId: base.bootID,
    kernelVersion: base.kernelVersion,
    osVersion: base.osImage,
    bootTimeMs: btime ? Number(btime[1]) * 1000 : 0,
    disks: readDisks(roots.sys),
    filesystems: rootFilesystems(mounts),
  };
}

/** sysfs topology fallback when /proc/cpuinfo has no `core id`/`physical id` (some ARM). */
function countTopology(sys: string, attr: string): number {
  const values = new Set<string>();
  try {
    for (const e of Deno.readDirSync(`${sys}/devices/system/cpu`)) {
      if (!/^cpu\d+$/.test(e.name)) continue;
      const v = readOptionalSync(`${sys}/devices/system/cpu/${e.name}/topology/${attr}`);
      if (v !== undefined) values.add(v.trim());
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return values.size;
}

/** /sys/block without loop, ram and optical devices, and nvme's hidden path devices. */
function readDisks(sys: string): Map<string, string> {
  const out = new Map<string, string>();
  try {
    for (const e of Deno.readDirSync(`${sys}/block`)) {
      if (/^(loop|ram|sr)/.test(e.name) || /^nvme\d+c\d+n\d+$/.test(e.name)) continue;
      const dev = readOptionalSync(`${sys}/block/${e.name}/dev`)?.trim();
      if (dev && /^\d+:\d+$/.test(dev)) out.set(dev, `/dev/${e.name}`);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out;
}

/** cAdvisor's vfs plugin's filesystem types. */
const VFS_TYPES = new Set([
  "xfs",
  "squashfs",
  "f2fs",
  "jfs",
  "reiserfs",
  "hfs",
  "hfsplus",
  "ntfs",
  "vfat",
  "fat",
  "msdos",
  "exfat",
  "udf",
  "iso9660",
]);

/**
 * The partitions cAdvisor's plugins take from mountinfo: disk filesystems once per source (a
 * bind mount is skipped), each tmpfs under its mount point.
 */
export function rootFilesystems(mounts: MountInfo[]): RootFilesystem[] {
  const out = new Map<string, RootFilesystem>();
  for (const m of mounts) {
    const disk = m.fsType.startsWith("ext") || VFS_TYPES.has(m.fsType);
    if (!disk && m.fsType !== "tmpfs") continue;
    const device = disk ? m.source : m.mountpoint;
    if (out.has(device)) continue;
    out.set(device, { device, mountpoint: m.mountpoint, major: m.major, minor: m.minor });
  }
  return [...out.values()];
}

/** A root filesystem's usage and disk counters, as cAdvisor's FsStats. */
export interface FilesystemReading {
  device: string;
  capacity: FsCapacity;
  disk?: DiskStats;
}

/** Usage of each filesystem (statfs) and its line of /proc/diskstats; gone ones are skipped. */
export async function readFilesystems(
  filesystems: RootFilesystem[],
  opts: {
    procRoot: string;
    statfs: (path: string) => Promise<FsCapacity>;
    onError: (fs: RootFilesystem, err: unknown) => void;
  },
): Promise<FilesystemReading[]> {
  const disks = parseDiskstats(readOptionalSync(`${opts.procRoot}/diskstats`) ?? "");
  const byName = new Map([...disks.values()].map((d) => [`/dev/${d.name}`, d]));
  const out: FilesystemReading[] = [];
  for (const fs of filesystems) {
    try {
      const capacity = await opts.statfs(fs.mountpoint);
      const disk = byName.get(fs.device) ?? disks.get(`${fs.major}:${fs.minor}`);
      out.push({ device: fs.device, capacity, disk });
    } catch (err) {
      opts.onError(fs, err);
    }
  }
  return out;
}
