/**
 * The stats provider: a background sampler that reads the node's usage every period (what the
 * eviction manager watches) and keeps the last sample. Pods and containers are sampled too while
 * someone reads them (`/stats/summary`, `/metrics/resource`, an eviction ranking pods): per-pod
 * stats cost a CRI stats list and a dozen cgroup files per pod, ~0.3 % of a core at 110 pods,
 * for nobody on a node no one scrapes. A reader after a quiet spell pays for one sample.
 */
import type { FilesystemUsage, PodSandboxStats } from "../cri/types.ts";
import { errorMessage } from "../util/log.ts";
import { type FsCapacity, type Statfs, statfs as defaultStatfs } from "../util/statfs.ts";
import { type CgroupReader, createCgroupReader, detectCgroupMode } from "./_cgroup.ts";
import { dirUsage as defaultDirUsage } from "./_fs.ts";
import { cpuStats, fsStats, imageFsStats, memoryStats, readRootCgroup } from "./_node.ts";
import { podStats } from "./_pods.ts";
import { CpuRateTracker } from "./_rate.ts";
import { onlyCpuAndMemory } from "./_filter.ts";
import {
  findRuntimePid,
  networkStats,
  processContainerStats,
  readHostInfo,
  readNetDev,
  readProcess,
  readRlimit,
} from "./_system.ts";
import {
  type ContainerStats,
  type NodeStats,
  type StatsProvider,
  type StatsProviderDeps,
  type Summary,
  type SummaryOptions,
  SYSTEM_CONTAINER_KUBELET,
  SYSTEM_CONTAINER_RUNTIME,
} from "./types.ts";

const DEFAULT_SAMPLE_PERIOD_MS = 10_000;
/**
 * After a read of pod stats, pods are sampled in the background this long: a poller at any
 * interval up to this keeps them sampled every period (and gets CPU rates, as upstream).
 */
const POD_READERS_WINDOW_MS = 10 * 60_000;
const SANDBOX_STATS_RETRY_MS = 5 * 60_000;
const LABEL_NODE_NAME = "io.denolet.node-name";
const LABEL_POD_UID = "io.kubernetes.pod.uid";

/** Extra seams for tests; production uses the defaults. */
export interface StatsProviderTestDeps {
  statfs?: Statfs;
  dirUsage?: typeof defaultDirUsage;
  cgroups?: CgroupReader;
}

export function createStatsProvider(
  deps: StatsProviderDeps & StatsProviderTestDeps,
): StatsProvider {
  return new Sampler(deps);
}

class Sampler implements StatsProvider {
  readonly #deps: StatsProviderDeps & StatsProviderTestDeps;
  readonly #period: number;
  readonly #cgroupRoot: string;
  readonly #procRoot: string;
  readonly #rates: CpuRateTracker;
  readonly #log;
  #cgroups: CgroupReader | undefined;
  /** The last sample with pods, and the last sample of the node (either kind). */
  #latest: Sample | undefined;
  #latestNode: Sample | undefined;
  #inflight: { pods: boolean; sample: Promise<Summary> } | undefined;
  /** Until when the background samples include pods (someone reads them). */
  #podReadersUntil = 0;
  /** run()'s signal: a shared sample is the sampler's, never one caller's to cancel. */
  #runSignal: AbortSignal | undefined;
  #runtimePid: number | undefined;
  /** When to try CRI ListPodSandboxStats again after it failed (ms since the epoch). */
  #sandboxStatsRetryAt = 0;

  constructor(deps: StatsProviderDeps & StatsProviderTestDeps) {
    this.#deps = deps;
    this.#period = deps.samplePeriodMs ?? DEFAULT_SAMPLE_PERIOD_MS;
    // Pods sampled for a reader 15 s apart (metrics-server) still get rates; an hour apart not.
    this.#rates = new CpuRateTracker(3 * this.#period);
    this.#cgroupRoot = deps.cgroupRoot ?? "/sys/fs/cgroup";
    this.#procRoot = deps.procRoot ?? "/proc";
    this.#cgroups = deps.cgroups;
    this.#log = deps.logger.child({ component: "stats" });
  }

  latest(): Summary | undefined {
    return this.#latest?.summary;
  }

  latestNode(): NodeStats | undefined {
    return this.#latestNode?.summary.node;
  }

  async summary(opts: SummaryOptions = {}): Promise<Summary> {
    const now = this.#deps.clock.monotonic();
    const pods = opts.pods !== false;
    if (pods) this.#podReadersUntil = now + POD_READERS_WINDOW_MS;
    const last = pods ? this.#latest : this.#latestNode;
    // Older than two periods: the background samples had no pods, or no sampler runs.
    const s = last === undefined || now - last.at > 2 * this.#period
      ? await this.#sampleShared(pods, opts.signal)
      : last.summary;
    return opts.onlyCpuAndMemory ? onlyCpuAndMemory(s) : s;
  }

  async sampleNow(opts: { signal?: AbortSignal } = {}): Promise<Summary> {
    // A sample already under way may have started before what the caller waits for.
    if (this.#inflight) await this.#inflight.sample.catch(() => undefined);
    return await this.#sampleShared(true, opts.signal);
  }

  async run({ signal }: { signal: AbortSignal }): Promise<void> {
    this.#runSignal = signal;
    while (!signal.aborted) {
      try {
        await this.#sampleShared(this.#deps.clock.monotonic() < this.#podReadersUntil, signal);
      } catch (err) {
        if (signal.aborted) return;
        this.#log.warn("Cannot sample resource usage; keeping the previous sample", { err });
      }
      try {
        await this.#deps.clock.sleep(this.#period, { signal });
      } catch (err) {
        if (signal.aborted) return;
        throw err;
      }
    }
  }

  /**
   * One sample at a time: concurrent callers share it (one with pods serves either kind). It
   * runs under the sampler's own signal; a caller's signal ends only that caller's wait, so a
   * scraper that hangs up cancels nobody else's sample.
   */
  async #sampleShared(pods: boolean, signal: AbortSignal | undefined): Promise<Summary> {
    for (;;) {
      const cur = this.#inflight;
      if (cur && (cur.pods || !pods)) return await untilAborted(cur.sample, signal);
      if (!cur) break;
      await untilAborted(cur.sample.catch(() => undefined), signal);
    }
    const sample = this.#sample(pods, this.#runSignal).finally(() => {
      this.#inflight = undefined;
    });
    this.#inflight = { pods, sample };
    return await untilAborted(sample, signal);
  }

  async #sample(withPods: boolean, signal: AbortSignal | undefined): Promise<Summary> {
    const d = this.#deps;
    const cgroups = this.#cgroups ??= createCgroupReader(
      this.#cgroupRoot,
      await detectCgroupMode(this.#cgroupRoot),
    );
    const statfs = d.statfs ?? defaultStatfs;
    const dirUsage = d.dirUsage ?? defaultDirUsage;
    const now = new Date(d.clock.now());
    const monoMs = d.clock.monotonic();
    const call = { signal };
    const nodeSel = { labelSelector: { [LABEL_NODE_NAME]: d.nodeName } };

    const [lists, imageFs] = await Promise.all([
      withPods
        ? Promise.all([
          d.runtime.listPodSandbox({ ...nodeSel, state: { state: "SANDBOX_READY" } }, call),
          d.runtime.listContainers({ ...nodeSel, state: { state: "CONTAINER_RUNNING" } }, call),
          d.runtime.listContainerStats(nodeSel, call),
        ])
        : undefined,
      d.image.imageFsInfo(call).catch((err) => {
        this.#log.debug(2, "CRI ImageFsInfo failed; imagefs stats omitted", { err });
        return [];
      }),
    ]);
    const nodefs = await this.#statfs(statfs, d.rootDir, signal);
    const imageMount = imageFs[0]?.fsId?.mountpoint;
    const imagefs = imageMount ? await this.#statfs(statfs, imageMount, signal) : undefined;

    const env = {
      cgroups,
      rates: this.#rates,
      procRoot: this.#procRoot,
      rootDir: d.rootDir,
      podLogsDir: d.podLogsDir,
      podCgroupPath: d.podCgroupPath,
      claimVolumes: d.claimVolumes,
      nodefs,
      imagefs,
      dirUsage: (dir: string) => dirUsage(dir, { signal }),
      statfs: (path: string) => statfs(path, { signal }),
      now,
      monoMs,
    };
    const pods = [];
    if (lists) {
      const [sandboxes, containers, criStats] = lists;
      const sandboxStats = await this.#sandboxStats(nodeSel.labelSelector, signal);
      const podsByUid = new Map(d.pods().map((p) => [p.metadata?.uid ?? "", p]));
      const criById = new Map(criStats.map((s) => [s.attributes.id, s]));
      for (const sb of newestPerPod(sandboxes)) {
        pods.push(
          await podStats({
            sandbox: sb,
            containers: containers.filter((c) => c.podSandboxId === sb.id),
            criStats: criById,
            sandboxStats: sandboxStats?.get(sb.id),
            pod: podsByUid.get(sb.metadata.uid) ?? podsByUid.get(sb.labels[LABEL_POD_UID] ?? ""),
          }, env),
        );
      }
    }
    const node = await this.#node(cgroups, { now, monoMs, nodefs, imagefs, imageFs: imageFs[0] });
    const summary: Summary = { node, pods };
    const sample = { summary, at: monoMs };
    this.#latestNode = sample;
    if (lists) {
      // Pods' rate points are kept between samples with pods (past maxGap they give no rate).
      this.#rates.sweep();
      this.#latest = sample;
    }
    return summary;
  }

  async #node(
    cgroups: CgroupReader,
    p: {
      now: Date;
      monoMs: number;
      nodefs?: FsCapacity;
      imagefs?: FsCapacity;
      imageFs?: FilesystemUsage;
    },
  ): Promise<NodeStats> {
    const { now, monoMs } = p;
    const host = await readHostInfo(this.#procRoot);
    const root = await readRootCgroup(cgroups, { cgroupRoot: this.#cgroupRoot, host });
    const at = now.getTime();
    return {
      nodeName: this.#deps.nodeName,
      systemContainers: await this.#systemContainers(now, { monoMs, bootTimeMs: host.bootTimeMs }),
      startTime: new Date(host.bootTimeMs ?? at),
      cpu: cpuStats(
        now,
        root.cpuNs,
        root.cpuNs === undefined ? undefined : this.#rates.update("node", root.cpuNs, monoMs),
      ),
      memory: root.memory ? memoryStats(now, root.memory, host.memTotalBytes) : undefined,
      network: networkStats(await readNetDev(this.#procRoot, "self"), now),
      fs: p.nodefs ? fsStats(now, p.nodefs) : undefined,
      runtime: { imageFs: imageFsStats(now, p.imageFs, p.imagefs) },
      rlimit: await readRlimit(this.#procRoot, now),
    };
  }

  async #systemContainers(
    now: Date,
    t: { monoMs: number; bootTimeMs: number | undefined },
  ): Promise<ContainerStats[]> {
    const { monoMs: at, bootTimeMs } = t;
    const out: ContainerStats[] = [];
    const self = await readProcess(this.#procRoot, "self", bootTimeMs);
    if (self) {
      const rate = this.#rates.update("sys/kubelet", self.cpuNs, at);
      out.push(
        processContainerStats(SYSTEM_CONTAINER_KUBELET, self, { time: now, nanoCores: rate }),
      );
    }
    const rt = await this.#runtimeProcess(bootTimeMs);
    if (rt) {
      const rate = this.#rates.update("sys/runtime", rt.cpuNs, at);
      out.push(processContainerStats(SYSTEM_CONTAINER_RUNTIME, rt, { time: now, nanoCores: rate }));
    }
    return out;
  }

  async #runtimeProcess(bootTimeMs: number | undefined) {
    const socket = this.#deps.runtimeEndpoint?.replace(/^unix:\/\//, "");
    if (socket === undefined) return undefined;
    if (this.#runtimePid !== undefined) {
      const p = await readProcess(this.#procRoot, this.#runtimePid, bootTimeMs);
      if (p) return p;
    }
    this.#runtimePid = await findRuntimePid(this.#procRoot, socket);
    return this.#runtimePid === undefined
      ? undefined
      : await readProcess(this.#procRoot, this.#runtimePid, bootTimeMs);
  }

  /**
   * CRI sandbox stats by sandbox id. containerd 1.6 fails the whole call when any matching
   * sandbox has no cgroup parent; then the cgroup files are used, and the call is retried only
   * every SANDBOX_STATS_RETRY_MS (it would fail every period, costing a round trip and a log).
   */
  async #sandboxStats(
    labelSelector: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<Map<string, PodSandboxStats> | undefined> {
    if (this.#deps.clock.monotonic() < this.#sandboxStatsRetryAt) return undefined;
    try {
      const list = await this.#deps.runtime.listPodSandboxStats({ labelSelector }, { signal });
      return new Map(list.map((s) => [s.attributes.id, s]));
    } catch (err) {
      signal?.throwIfAborted();
      const fields = { err: errorMessage(err) };
      const msg = "CRI ListPodSandboxStats is not usable; pod stats come from cgroups";
      if (this.#sandboxStatsRetryAt === 0) this.#log.info(msg, fields);
      else this.#log.debug(4, msg, fields);
      this.#sandboxStatsRetryAt = this.#deps.clock.monotonic() + SANDBOX_STATS_RETRY_MS;
      return undefined;
    }
  }

  async #statfs(
    statfs: Statfs,
    path: string,
    signal: AbortSignal | undefined,
  ): Promise<FsCapacity | undefined> {
    try {
      return await statfs(path, { signal });
    } catch (err) {
      signal?.throwIfAborted();
      this.#log.warn("Cannot read filesystem capacity", { path, err });
      return undefined;
    }
  }
}

/** A summary and when it was taken (ms). */
interface Sample {
  summary: Summary;
  at: number;
}

/** `p`, or the signal's reason once it aborts (`p` goes on; its failure is then ignored). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      p.catch(() => undefined);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The newest ready sandbox of each pod (a restarted pod briefly has two). */
function newestPerPod<T extends { createdAt: number; metadata: { uid: string } }>(list: T[]): T[] {
  const best = new Map<string, T>();
  for (const s of list) {
    const cur = best.get(s.metadata.uid);
    if (cur === undefined || s.createdAt > cur.createdAt) best.set(s.metadata.uid, s);
  }
  return [...best.values()];
}
