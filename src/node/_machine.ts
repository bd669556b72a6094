/**
 * What the node is made of, from /proc, /sys and /etc (what cAdvisor's MachineInfo gives the
 * upstream kubelet): CPUs, memory, huge pages, and the ids and versions of nodeInfo.
 * Every path sits under an injectable root so tests read fixture trees.
 */
import type { Logger } from "../util/log.ts";
import { errorMessage } from "../util/log.ts";

export interface MachineRoots {
  /** Default "/proc". */
  proc?: string;
  /** Default "/sys". */
  sys?: string;
  /** Default "/etc". */
  etc?: string;
}

export interface MachineInfo {
  cpus: number;
  memoryBytes: number;
  /** SwapTotal: the swap the node has (0 when none is on). */
  swapBytes: number;
  /** The task limit: the smaller of kernel.pid_max and kernel.threads-max; 0 when unknown. */
  maxPids: number;
  /** Huge page size in KiB -> total bytes reserved (`hugepages-2Mi`: nr * size). */
  hugePages: Array<{ sizeKiB: number; bytes: number }>;
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
}

type ReadText = (path: string) => Promise<string>;

/** Reads the machine facts; a missing file leaves its field empty (logged at debug level). */
export async function readMachineInfo(
  roots: MachineRoots = {},
  opts: { logger?: Logger; readText?: ReadText; readDir?: (path: string) => Promise<string[]> } =
    {},
): Promise<MachineInfo> {
  const proc = roots.proc ?? "/proc";
  const sys = roots.sys ?? "/sys";
  const etc = roots.etc ?? "/etc";
  const readText = opts.readText ?? Deno.readTextFile;
  const readDir = opts.readDir ?? listDir;
  const read = async (path: string): Promise<string> => {
    try {
      return await readText(path);
    } catch (err) {
      opts.logger?.debug(4, "Cannot read machine info file", { path, err: errorMessage(err) });
      return "";
    }
  };
  const [cpuinfo, meminfo, machineID, uuid, bootID, release, osRelease, pidMax, threadsMax] =
    await Promise.all([
      read(`${proc}/cpuinfo`),
      read(`${proc}/meminfo`),
      read(`${etc}/machine-id`),
      read(`${sys}/class/dmi/id/product_uuid`),
      read(`${proc}/sys/kernel/random/boot_id`),
      read(`${proc}/sys/kernel/osrelease`),
      read(`${etc}/os-release`),
      read(`${proc}/sys/kernel/pid_max`),
      read(`${proc}/sys/kernel/threads-max`),
    ]);
  return {
    cpus: countProcessors(cpuinfo),
    memoryBytes: memTotalBytes(meminfo),
    swapBytes: meminfoBytes(meminfo, "SwapTotal"),
    maxPids: taskMax(pidMax, threadsMax),
    hugePages: await readHugePages(`${sys}/kernel/mm/hugepages`, read, readDir),
    machineID: machineID.trim(),
    systemUUID: uuid.trim(),
    bootID: bootID.trim(),
    kernelVersion: release.trim(),
    osImage: prettyName(osRelease),
  };
}

export function countProcessors(cpuinfo: string): number {
  return cpuinfo.split("\n").filter((l) => /^processor\s*:/.test(l)).length ||
    navigator.hardwareConcurrency;
}

/** Upstream pidlimit.Stats: the smaller of the two system-wide task limits that are known. */
export function taskMax(...limits: string[]): number {
  const known = limits.map((l) => Number(l.trim())).filter((n) => Number.isSafeInteger(n) && n > 0);
  return known.length ? Math.min(...known) : 0;
}

export function memTotalBytes(meminfo: string): number {
  return meminfoBytes(meminfo, "MemTotal");
}

/** One `<key>: <n> kB` line of /proc/meminfo in bytes; 0 when absent. */
export function meminfoBytes(meminfo: string, key: string): number {
  const m = new RegExp(`^${key}:\\s+(\\d+)\\s*kB`, "m").exec(meminfo);
  return m ? Number(m[1]) * 1024 : 0;
}

/** PRETTY_NAME from os-release, unquoted; "Linux" when absent (cAdvisor's fallback). */
export function prettyName(osRelease: string): string {
  const m = /^PRETTY_NAME=(.*)$/m.exec(osRelease);
  if (!m) return "Linux";
  return m[1].trim().replace(/^(["'])(.*)\1$/, "$2");
}

async function readHugePages(
  dir: string,
  read: (path: string) => Promise<string>,
  readDir: (path: string) => Promise<string[]>,
): Promise<MachineInfo["hugePages"]> {
  let names: string[];
  try {
    names = await readDir(dir);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const out: MachineInfo["hugePages"] = [];
  for (const name of names.sort()) {
    const m = /^hugepages-(\d+)kB$/.exec(name);
    if (!m) continue;
    const sizeKiB = Number(m[1]);
    const nr = Number((await read(`${dir}/${name}/nr_hugepages`)).trim()) || 0;
    out.push({ sizeKiB, bytes: nr * sizeKiB * 1024 });
  }
  return out.sort((a, b) => a.sizeKiB - b.sizeKiB);
}

async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(path)) names.push(e.name);
  return names;
}
