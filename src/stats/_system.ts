/**
 * Host-level readers from procfs: node CPU and memory fallbacks, network, rlimit, and the
 * `kubelet`/`runtime` system containers measured from their processes (there are no
 * `--kubelet-cgroups`/`--runtime-cgroups` here, so a process view is the cheap honest one).
 */
import type { ContainerStats, InterfaceStats, NetworkStats, RlimitStats } from "./types.ts";
import { readOptional } from "./_cgroup.ts";
import {
  type NetDevCounters,
  parseLoadavgProcs,
  parseMeminfo,
  parseNetDev,
  parsePidStat,
  parseProcStat,
  parseSingleValue,
} from "./_parse.ts";

/** Interfaces cAdvisor leaves out of network stats (loopback, veth ends, docker bridges). */
const IGNORED_INTERFACE_PREFIXES = ["lo", "veth", "docker", "nerdctl"];
/** Upstream's `network.DefaultInterfaceName`: its counters are inlined in NetworkStats. */
export const DEFAULT_INTERFACE = "eth0";

export function networkStats(counters: NetDevCounters[], time: Date): NetworkStats | undefined {
  const interfaces: InterfaceStats[] = counters
    .filter((c) => !IGNORED_INTERFACE_PREFIXES.some((p) => c.name.startsWith(p)))
    .map((c) => ({ ...c }));
  if (interfaces.length === 0) return undefined;
  const def = interfaces.find((i) => i.name === DEFAULT_INTERFACE);
  return { time, ...def, interfaces };
}

/** Network counters of the namespace `pid` lives in (`self` for the agent's own). */
export async function readNetDev(
  procRoot: string,
  pid: number | "self",
): Promise<NetDevCounters[]> {
  const text = await readOptional(`${procRoot}/${pid}/net/dev`);
  return text === undefined ? [] : parseNetDev(text);
}

export async function readRlimit(procRoot: string, time: Date): Promise<RlimitStats> {
  const pidMax = parseSingleValue(await readOptional(`${procRoot}/sys/kernel/pid_max`) ?? "");
  const procs = parseLoadavgProcs(await readOptional(`${procRoot}/loadavg`) ?? "");
  return { time, maxpid: pidMax, curproc: procs };
}

export interface HostInfo {
  memTotalBytes?: number;
  memFreeBytes?: number;
  /** Busy CPU ns of all cores since boot (fallback when the root cgroup has no counter). */
  cpuBusyNs?: number;
  bootTimeMs?: number;
}

export async function readHostInfo(procRoot: string): Promise<HostInfo> {
  const mem = parseMeminfo(await readOptional(`${procRoot}/meminfo`) ?? "");
  const stat = parseProcStat(await readOptional(`${procRoot}/stat`) ?? "");
  return {
    memTotalBytes: mem.get("MemTotal"),
    memFreeBytes: mem.get("MemFree"),
    cpuBusyNs: stat?.busyNs,
    bootTimeMs: stat?.bootTimeMs,
  };
}

export interface ProcessSample {
  cpuNs: number;
  rssBytes: number;
  anonBytes?: number;
  minorFaults: number;
  majorFaults: number;
  startTimeMs?: number;
}

const PAGE_SIZE = 4096;

/** CPU and memory of one process; undefined when it is gone. */
export async function readProcess(
  procRoot: string,
  pid: number | "self",
  bootTimeMs: number | undefined,
): Promise<ProcessSample | undefined> {
  const stat = parsePidStat(await readOptional(`${procRoot}/${pid}/stat`) ?? "");
  if (stat === undefined) return undefined;
  const status = await readOptional(`${procRoot}/${pid}/status`) ?? "";
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  return {
    cpuNs: stat.cpuNs,
    rssBytes: kb("VmRSS") ?? stat.rssPages * PAGE_SIZE,
    anonBytes: kb("RssAnon"),
    minorFaults: stat.minorFaults,
    majorFaults: stat.majorFaults,
    startTimeMs: bootTimeMs === undefined ? undefined : bootTimeMs + stat.startAfterBootMs,
  };
}

/** A system container entry from a process sample. `nanoCores` comes from the rate tracker. */
export function processContainerStats(
  name: string,
  p: ProcessSample,
  opts: { time: Date; nanoCores?: number },
): ContainerStats {
  const { time } = opts;
  return {
    name,
    startTime: new Date(p.startTimeMs ?? time.getTime()),
    cpu: { time, usageNanoCores: opts.nanoCores, usageCoreNanoSeconds: p.cpuNs },
    memory: {
      time,
      usageBytes: p.rssBytes,
      workingSetBytes: p.rssBytes,
      rssBytes: p.anonBytes ?? p.rssBytes,
      pageFaults: p.minorFaults,
      majorPageFaults: p.majorFaults,
    },
  };
}

/**
 * The pid of the runtime daemon serving `socketPath`: the `containerd` (or `crio`) process
 * holding the listening socket. Several runtimes may run on one host (a system one and ours),
 * so the name alone is not enough. Costs a scan of /proc and of the candidates' fds: call it
 * rarely and cache the answer while the process lives.
 */
export async function findRuntimePid(
  procRoot: string,
  socketPath: string,
  names: string[] = ["containerd", "crio"],
): Promise<number | undefined> {
  const inode = socketInode(await readOptional(`${procRoot}/net/unix`) ?? "", socketPath);
  const candidates: number[] = [];
  for await (const e of Deno.readDir(procRoot)) {
    if (!/^\d+$/.test(e.name)) continue;
    const comm = (await readOptional(`${procRoot}/${e.name}/comm`))?.trim();
    if (comm !== undefined && names.includes(comm)) candidates.push(Number(e.name));
  }
  if (candidates.length <= 1 || inode === undefined) return candidates[0];
  for (const pid of candidates) {
    if (await holdsSocket(procRoot, pid, inode)) return pid;
  }
  return undefined;
}

/** The inode of the listening unix socket bound to `path`, from /proc/net/unix. */
export function socketInode(netUnix: string, path: string): string | undefined {
  for (const line of netUnix.split("\n")) {
    const f = line.trim().split(/\s+/);
    // Num RefCount Protocol Flags Type St Inode Path; flags 00010000 = __SO_ACCEPTCON.
    if (f.length >= 8 && f[7] === path && f[3] === "00010000") return f[6];
  }
  return undefined;
}

async function holdsSocket(procRoot: string, pid: number, inode: string): Promise<boolean> {
  try {
    for await (const fd of Deno.readDir(`${procRoot}/${pid}/fd`)) {
      try {
        if (await Deno.readLink(`${procRoot}/${pid}/fd/${fd.name}`) === `socket:[${inode}]`) {
          return true;
        }
      } catch (err) {
        // fds close while we look; only a vanished fd is expected here.
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) {
      return false;
    }
    throw err;
  }
  return false;
}
