/**
 * Reads one cgroup's CPU, memory and PID counters, on cgroup v1 (one hierarchy per controller)
 * or v2 (the unified hierarchy). Paths are relative to the hierarchy root, e.g.
 * `k8s.io/<container id>` or `kubepods/burstable/pod<uid>`, as containerd's cgroupfs driver
 * and the QoS manager name them.
 */
import { limitOrUndefined, parseFlatKeyed, parseSingleValue } from "./_parse.ts";

export type CgroupMode = "v1" | "v2";

export interface CgroupMemory {
  usageBytes: number;
  /** usage - inactive_file, floored at 0 (cAdvisor's working set). */
  workingSetBytes: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
  /** undefined when unlimited. */
  limitBytes?: number;
}

export interface CgroupSample {
  /** Cumulative CPU time of all tasks, ns. */
  cpuUsageNs?: number;
  memory?: CgroupMemory;
  /** Tasks in the cgroup (`pids.current`). */
  pids?: number;
}

export interface CgroupReader {
  readonly mode: CgroupMode;
  /** The cgroup's counters; undefined when it does not exist (pod gone, never created). */
  read(path: string): Promise<CgroupSample | undefined>;
  /**
   * The cgroup's memory limit alone (undefined `limitBytes` when unlimited); undefined when the
   * cgroup does not exist. One file, for containers whose other counters the runtime reports.
   */
  memoryLimit(path: string): Promise<{ limitBytes?: number } | undefined>;
  /** PIDs of the processes directly in the cgroup; empty when it does not exist. */
  procs(path: string): Promise<number[]>;
}

/** v1 when per-controller hierarchies are mounted (hybrid hosts too), else v2. */
export async function detectCgroupMode(root: string): Promise<CgroupMode> {
  if (await exists(`${root}/memory/memory.stat`)) return "v1";
  return "v2";
}

export function createCgroupReader(root: string, mode: CgroupMode): CgroupReader {
  return mode === "v1" ? new V1Reader(root) : new V2Reader(root);
}

const V1_CPUACCT_DIRS = ["cpuacct", "cpu,cpuacct", "cpuacct,cpu"];

class V1Reader implements CgroupReader {
  readonly mode = "v1";
  #cpuacctDir: string | undefined;

  constructor(private readonly root: string) {}

  async read(path: string): Promise<CgroupSample | undefined> {
    const rel = clean(path);
    const memDir = join(this.root, "memory", rel);
    const memStatText = await readOptional(`${memDir}/memory.stat`);
    if (memStatText === undefined) return undefined;
    const stat = parseFlatKeyed(memStatText);
    const usage = parseSingleValue(await readOptional(`${memDir}/memory.usage_in_bytes`) ?? "");
    const limit = parseSingleValue(await readOptional(`${memDir}/memory.limit_in_bytes`) ?? "");
    const cpuacct = await this.#cpuacct();
    const cpu = cpuacct === undefined ? undefined : parseSingleValue(
      await readOptional(join(this.root, cpuacct, rel, "cpuacct.usage")) ?? "",
    );
    const pids = parseSingleValue(
      await readOptional(join(this.root, "pids", rel, "pids.current")) ?? "",
    );
    return {
      cpuUsageNs: cpu,
      memory: usage === undefined ? undefined : memory(usage, {
        // total_* include child cgroups; a pod cgroup's usage is its containers' usage.
        inactiveFile: stat.get("total_inactive_file") ?? stat.get("inactive_file"),
        rss: stat.get("total_rss") ?? stat.get("rss"),
        pageFaults: stat.get("total_pgfault") ?? stat.get("pgfault"),
        majorPageFaults: stat.get("total_pgmajfault") ?? stat.get("pgmajfault"),
        limit: limitOrUndefined(limit),
      }),
      pids,
    };
  }

  async memoryLimit(path: string): Promise<{ limitBytes?: number } | undefined> {
    const text = await readOptional(
      join(this.root, "memory", clean(path), "memory.limit_in_bytes"),
    );
    return text === undefined
      ? undefined
      : { limitBytes: limitOrUndefined(parseSingleValue(text)) };
  }

  async procs(path: string): Promise<number[]> {
    return parseProcs(await readOptional(join(this.root, "memory", clean(path), "cgroup.procs")));
  }

  async #cpuacct(): Promise<string | undefined> {
    if (this.#cpuacctDir !== undefined) return this.#cpuacctDir;
    for (const d of V1_CPUACCT_DIRS) {
      if (await exists(`${this.root}/${d}/cpuacct.usage`)) return (this.#cpuacctDir = d);
    }
    return undefined;
  }
}

class V2Reader implements CgroupReader {
  readonly mode = "v2";

  constructor(private readonly root: string) {}

  async read(path: string): Promise<CgroupSample | undefined> {
    const dir = join(this.root, clean(path));
    const cpuText = await readOptional(`${dir}/cpu.stat`);
    if (cpuText === undefined) return undefined;
    const usec = parseFlatKeyed(cpuText).get("usage_usec");
    const statText = await readOptional(`${dir}/memory.stat`);
    const usage = parseSingleValue(await readOptional(`${dir}/memory.current`) ?? "");
    const stat = parseFlatKeyed(statText ?? "");
    return {
      cpuUsageNs: usec === undefined ? undefined : usec * 1000,
      memory: usage === undefined ? undefined : memory(usage, {
        inactiveFile: stat.get("inactive_file"),
        rss: stat.get("anon"),
        pageFaults: stat.get("pgfault"),
        majorPageFaults: stat.get("pgmajfault"),
        limit: parseSingleValue(await readOptional(`${dir}/memory.max`) ?? ""),
      }),
      pids: parseSingleValue(await readOptional(`${dir}/pids.current`) ?? ""),
    };
  }

  async memoryLimit(path: string): Promise<{ limitBytes?: number } | undefined> {
    const text = await readOptional(join(this.root, clean(path), "memory.max"));
    return text === undefined
      ? undefined
      : { limitBytes: limitOrUndefined(parseSingleValue(text)) };
  }

  async procs(path: string): Promise<number[]> {
    return parseProcs(await readOptional(join(this.root, clean(path), "cgroup.procs")));
  }
}

interface MemoryParts {
  inactiveFile?: number;
  rss?: number;
  pageFaults?: number;
  majorPageFaults?: number;
  limit?: number;
}

/** Builds the memory view the way cAdvisor does (working set = usage - inactive file). */
export function memory(usage: number, p: MemoryParts): CgroupMemory {
  return {
    usageBytes: usage,
    workingSetBytes: Math.max(0, usage - (p.inactiveFile ?? 0)),
    rssBytes: p.rss,
    pageFaults: p.pageFaults,
    majorPageFaults: p.majorPageFaults,
    limitBytes: limitOrUndefined(p.limit),
  };
}

function parseProcs(text: string | undefined): number[] {
  if (text === undefined) return [];
  return text.split("\n").map((l) => Number(l.trim())).filter((n) => Number.isInteger(n) && n > 0);
}

function clean(path: string): string {
  return path.replace(/^\/+|\/+$/g, "");
}

function join(...parts: string[]): string {
  return parts.filter((p) => p !== "").join("/");
}

/**
 * File contents, or undefined when it (or its cgroup) does not exist. For the kernel's pseudo
 * files (cgroupfs, procfs) only: they are answered from memory, so the read is synchronous —
 * an async read costs three times the CPU (a hop through the blocking thread pool and back),
 * and a sample at 110 pods makes about a thousand of them.
 */
// deno-lint-ignore require-await -- async so that a failure is a rejection, as for any read
export async function readOptional(path: string): Promise<string | undefined> {
  return readOptionalSync(path);
}

/** `readOptional` for callers that read many such files in one synchronous pass. */
export function readOptionalSync(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch (err) {
    // A cgroup removed between listing and reading fails with ENOENT or ENODEV.
    if (err instanceof Deno.errors.NotFound || isNoDevice(err)) return undefined;
    throw err;
  }
}

function isNoDevice(err: unknown): boolean {
  return err instanceof Error && /ENODEV|No such device/.test(err.message);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
