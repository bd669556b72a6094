/**
 * `/metrics/cadvisor` as the kubelet serves it: cAdvisor's container and machine collectors
 * with the kubelet's label function (`id`, `name`, `image`, `pod`, `namespace`, `container`).
 * cAdvisor samples every cgroup in the background; here nothing is read until a scrape asks,
 * and a scrape reads each cgroup file once, lists cgroups with one readdir each, and asks the
 * CRI only about container ids it has not seen (none on a steady node).
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { Clock } from "../../util/clock.ts";
import { errorMessage, type Logger } from "../../util/log.ts";
import { type Statfs, statfs as defaultStatfs } from "../../util/statfs.ts";
import { type CgroupMode, detectCgroupMode } from "../_cgroup.ts";
import { type CgroupStatsReader, createCgroupStatsReader } from "./_cgroup_stats.ts";
import { Exposition, type LabelPairs, sortPairs } from "./_exposition.ts";
import { CONTAINER_FAMILIES, type ContainerView } from "./_families.ts";
import { Inventory, type InventoryDeps, type KnownContainer } from "./_inventory.ts";
import {
  type FilesystemReading,
  type MachineFacts,
  readFilesystems,
  readMachineFacts,
} from "./_machine.ts";
import {
  addMachine,
  addSpec,
  addVersionInfo,
  CONTAINER_SCRAPE_ERROR,
  MACHINE_SCRAPE_ERROR,
  type SpecTimes,
} from "./_machine_families.ts";
import { countFds, maxOpenFiles, netDev } from "./_procs.ts";
import { type CgroupEntry, CreationTimes, firstProcess, ownCgroup, walkCgroups } from "./_tree.ts";

/** How often the machine facts (and the root's filesystem list) are read again. */
const MACHINE_REFRESH_MS = 5 * 60_000;
/** containerd's cgroup parent for sandboxes without one (pods without pod cgroups). */
const DEFAULT_CGROUP_PARENT = "/k8s.io";

export interface CadvisorCollectorDeps extends InventoryDeps {
  clock: Clock;
  logger: Logger;
  /** The pods bound to this node (pod cgroups are labelled with them); must be cheap. */
  pods: () => V1Pod[];
  /**
   * The node allocatable root, e.g. "/kubepods" (`<cgroup-root>/kubepods`); undefined without
   * --cgroups-per-qos, when containers sit under containerd's default parent.
   */
  podsCgroupRoot?: string;
  /** Default /sys/fs/cgroup, /proc, /sys, /etc. */
  cgroupRoot?: string;
  procRoot?: string;
  sysRoot?: string;
  etcRoot?: string;
  /** Test seams. */
  statfs?: Statfs;
  mode?: CgroupMode;
}

export interface CadvisorCollector {
  /**
   * The exposition. Never rejects for missing data (`container_scrape_error` and
   * `machine_scrape_error` say so, as upstream's collectors do); rejects only when `signal`
   * aborts. Concurrent calls share one collection.
   */
  render(opts?: { signal?: AbortSignal }): Promise<string>;
}

export function createCadvisorCollector(deps: CadvisorCollectorDeps): CadvisorCollector {
  return new Collector(deps);
}

interface Setup {
  reader: CgroupStatsReader;
  /** The hierarchy directory cgroups are listed in. */
  hierarchy: string;
  creation: CreationTimes;
  own?: string;
}

class Collector implements CadvisorCollector {
  readonly #deps: CadvisorCollectorDeps;
  readonly #log: Logger;
  readonly #inventory: Inventory;
  readonly #roots;
  #setup: Setup | undefined;
  #machine: MachineFacts | undefined;
  #inflight: Promise<string> | undefined;
  #criFailing = false;

  constructor(deps: CadvisorCollectorDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ component: "cadvisor" });
    this.#inventory = new Inventory(deps);
    this.#roots = {
      cgroup: deps.cgroupRoot ?? "/sys/fs/cgroup",
      proc: deps.procRoot ?? "/proc",
      sys: deps.sysRoot ?? "/sys",
      etc: deps.etcRoot ?? "/etc",
    };
  }

  render(opts: { signal?: AbortSignal } = {}): Promise<string> {
    this.#inflight ??= this.#collect().finally(() => (this.#inflight = undefined));
    return untilAborted(this.#inflight, opts.signal);
  }

  async #collect(): Promise<string> {
    const out = new Exposition();
    const setup = this.#setup ??= await this.#init();
    const machine = await this.#machineFacts();
    const nowMs = this.#deps.clock.now();
    let containerError = false;

    const entries = walkCgroups(setup.hierarchy, {
      podsRoot: this.#deps.podsCgroupRoot,
      defaultParent: this.#deps.podsCgroupRoot === undefined ? DEFAULT_CGROUP_PARENT : undefined,
      extra: setup.own ? [setup.own] : [],
    });
    const ids = entries.flatMap((e) => (e.kind === "child" && e.id ? [e.id] : []));
    let known = new Map<string, KnownContainer | undefined>();
    try {
      known = await this.#inventory.resolve(ids);
      if (this.#criFailing) this.#log.info("The runtime answers again; container labels are back");
      this.#criFailing = false;
    } catch (err) {
      containerError = true;
      if (!this.#criFailing) {
        this.#log.warn("Cannot list containers from the runtime; their series have no pod labels", {
          err: errorMessage(err),
        });
      }
      this.#criFailing = true;
    }

    const filesystems = machine
      ? await readFilesystems(machine.filesystems, {
        procRoot: this.#roots.proc,
        statfs: this.#deps.statfs ?? defaultStatfs,
        onError: (fs, err) =>
          this.#log.debug(4, "Cannot read a filesystem's usage", {
            mountpoint: fs.mountpoint,
            err: errorMessage(err),
          }),
      })
      : [];
    const pods = new Map(
      this.#deps.pods().map((p) => [p.metadata?.uid ?? "", p.metadata ?? {}]),
    );
    for (const entry of entries) {
      const k = entry.id ? known.get(entry.id) : undefined;
      // Without pod cgroups the default parent is shared with everything containerd runs.
      if (entry.kind === "child" && !k && this.#deps.podsCgroupRoot === undefined) continue;
      try {
        this.#addContainer(out, { entry, known: k, pods, machine, setup, nowMs, filesystems });
      } catch (err) {
        containerError = true;
        this.#log.debug(2, "Cannot read a cgroup for /metrics/cadvisor", {
          cgroup: entry.name,
          err: errorMessage(err),
        });
      }
    }
    setup.creation.sweep();

    if (machine) {
      addVersionInfo(out, machine);
      addMachine(out, machine);
    }
    out.add(CONTAINER_SCRAPE_ERROR, { labels: {}, value: containerError ? 1 : 0 });
    out.add(MACHINE_SCRAPE_ERROR, { labels: {}, value: machine ? 0 : 1 });
    return out.render();
  }

  #addContainer(
    out: Exposition,
    p: {
      entry: CgroupEntry;
      known: KnownContainer | undefined;
      pods: Map<string, { name?: string; namespace?: string }>;
      machine: MachineFacts | undefined;
      setup: Setup;
      nowMs: number;
      filesystems: FilesystemReading[];
    },
  ): void {
    const { entry, known, machine, setup } = p;
    const reading = setup.reader.read(entry.name);
    if (reading === undefined) return; // gone since the listing
    const pod = entry.podUid ? p.pods.get(entry.podUid) : undefined;
    const labels = {
      id: entry.name,
      name: known ? entry.id ?? "" : "",
      image: known?.image ?? "",
      pod: known?.pod ?? pod?.name ?? "",
      namespace: known?.namespace ?? pod?.namespace ?? "",
      container: known?.container ?? "",
    };
    const proc = this.#roots.proc;
    const first = firstProcess(reading.procs);
    const isRoot = entry.kind === "root";
    if (isRoot && machine) {
      // The machine's limits, as cAdvisor's raw handler gives the root.
      reading.spec.hasMemory = true;
      reading.spec.memoryLimit = machine.memoryBytes;
      reading.spec.memorySwapLimit = machine.swapBytes;
    }
    const pairs = sortPairs(Object.entries(labels));
    addSpec(out, pairs, { times: this.#times(entry, known, machine, setup), spec: reading.spec });
    const view: ContainerView = {
      reading,
      timestampMs: p.nowMs,
      // Only a sandbox (its own network namespace) and the machine (PID 1's) have network.
      network: isRoot
        ? netDev(proc, 1)
        : known && known.container === ""
        ? netDev(proc, first)
        : undefined,
      filesystems: isRoot ? p.filesystems : undefined,
      processes: {
        ...countFds(proc, reading.procs),
        maxOpenFiles: known ? maxOpenFiles(proc, first) : undefined,
      },
      deviceName: (major, minor) => this.#deviceName(major, minor),
    };
    this.#addFamilies(out, pairs, view);
  }

  #addFamilies(out: Exposition, base: LabelPairs, view: ContainerView): void {
    const psi = this.#setup?.reader.mode === "v2" && view.reading.cpu.psi !== undefined;
    const quota = view.reading.spec.cpuQuota !== 0;
    for (const f of CONTAINER_FAMILIES) {
      if ((f.needsQuota && !quota) || (f.psi && !psi)) continue;
      for (const [value, extra] of f.values(view)) {
        const pairs = f.extra === undefined
          ? base
          : sortPairs([...base, ...f.extra.map((n, i): [string, string] => [n, extra?.[i] ?? ""])]);
        out.addSorted(f, { pairs, value, timestampMs: view.timestampMs });
      }
    }
  }

  #times(
    entry: CgroupEntry,
    known: KnownContainer | undefined,
    machine: MachineFacts | undefined,
    setup: Setup,
  ): SpecTimes | undefined {
    const cgroup = setup.creation.get(entry.name, machine?.bootTimeMs ?? 0);
    if (cgroup === undefined) return undefined;
    // containerd's handler: created when containerd created it, started with its cgroup.
    if (known && known.createdAtMs > 0) return { creationMs: known.createdAtMs, startMs: cgroup };
    return { creationMs: cgroup, startMs: cgroup };
  }

  #deviceName(major: number, minor: number): string {
    const key = `${major}:${minor}`;
    const disk = this.#machine?.disks.get(key);
    if (disk) return disk;
    return this.#machine?.filesystems.find((f) => `${f.major}:${f.minor}` === key)?.device ?? "";
  }

  async #init(): Promise<Setup> {
    const root = this.#roots.cgroup;
    const mode = this.#deps.mode ?? await detectCgroupMode(root);
    const psi = mode === "v2" && (await exists(`${root}/cpu.pressure`));
    // On v1 every hierarchy has the same cgroups: pids' directories hold the fewest files.
    const hierarchy = mode === "v2"
      ? root
      : (await exists(`${root}/pids/cgroup.procs`))
      ? `${root}/pids`
      : `${root}/memory`;
    return {
      reader: createCgroupStatsReader(root, { mode, procRoot: this.#roots.proc, psi }),
      hierarchy,
      creation: new CreationTimes(
        hierarchy,
        mode === "v1" ? "cgroup.clone_children" : "cgroup.events",
      ),
      own: ownCgroup(this.#roots.proc, mode),
    };
  }

  /** The machine facts, read again every MACHINE_REFRESH_MS; undefined when unreadable. */
  async #machineFacts(): Promise<MachineFacts | undefined> {
    const now = this.#deps.clock.now();
    if (this.#machine && now - this.#machine.timestampMs < MACHINE_REFRESH_MS) return this.#machine;
    try {
      this.#machine = await readMachineFacts(this.#roots, now);
    } catch (err) {
      this.#log.warn("Cannot read the machine's facts for /metrics/cadvisor", {
        err: errorMessage(err),
      });
    }
    return this.#machine;
  }
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

/** `p`, or the signal's reason once it aborts (`p` goes on for other callers). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
