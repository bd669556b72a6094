/**
 * Which cgroups `/metrics/cadvisor` reports, as the kubelet's cAdvisor watches them: the root
 * ("/"), everything under the node allocatable root (`<cgroup-root>/kubepods`, or
 * `/kubepods.slice` with the systemd driver: QoS classes, pod cgroups, the containers in them) and the agent's own cgroup (upstream's kubelet cgroup).
 * Names are cAdvisor's container names: absolute cgroup paths, "/" for the root.
 */
import { readOptionalSync } from "../_cgroup.ts";

/**
 * - root: "/", the machine.
 * - raw: a cgroup cAdvisor's raw handler reports (QoS classes, the agent's own, nested ones).
 * - pod: a pod cgroup (`pod<uid>`), raw but labelled with its pod.
 * - child: a directory directly in a pod cgroup (or in containerd's default parent without pod
 *   cgroups): a container or sandbox when the runtime knows its id.
 */
export type CgroupKind = "root" | "raw" | "pod" | "child";

export interface CgroupEntry {
  name: string;
  kind: CgroupKind;
  /** A pod cgroup's uid. */
  podUid?: string;
  /** A child's directory name: the container (or sandbox) id. */
  id?: string;
}

export interface WalkOptions {
  /** The node allocatable root, e.g. "/kubepods"; undefined without --cgroups-per-qos. */
  podsRoot?: string;
  /** Without pod cgroups, containerd's default parent ("/k8s.io"): its children are listed. */
  defaultParent?: string;
  /** More raw cgroups to report when they exist (the agent's own). */
  extra?: string[];
}

const POD_DIR = /^pod([0-9a-fA-F-]+)$/;
/** The systemd driver's pod slice: kubepods[-<qos>]-pod<uid, "-" as "_">.slice. */
const POD_SLICE = /^kubepods(?:-[a-z]+)?-pod([0-9a-fA-F_]+)\.slice$/;
/** The scope containerd puts a container in under the systemd driver. */
const CONTAINER_SCOPE = /^(?:cri-containerd|crio|docker)-([0-9a-f]+)\.scope$/;

/**
 * Lists the reported cgroups under `hierarchy` (the directory of one v1 hierarchy, or the v2
 * mount): one readdir per cgroup under the pods root, nothing else.
 */
export function walkCgroups(hierarchy: string, opts: WalkOptions): CgroupEntry[] {
  const out: CgroupEntry[] = [{ name: "/", kind: "root" }];
  const podsRoot = opts.podsRoot ? normalize(opts.podsRoot) : undefined;
  if (podsRoot && podsRoot !== "/" && isDir(hierarchy + podsRoot)) {
    out.push({ name: podsRoot, kind: "raw" });
    walk(hierarchy, podsRoot, 0, out);
  } else if (opts.defaultParent) {
    const parent = normalize(opts.defaultParent);
    for (const id of subdirs(hierarchy + parent)) {
      out.push({ name: `${parent}/${id}`, kind: "child", id });
    }
  }
  for (const extra of opts.extra ?? []) {
    const name = normalize(extra);
    if (name === "/" || out.some((e) => e.name === name) || !isDir(hierarchy + name)) continue;
    if (podsRoot && name.startsWith(`${podsRoot}/`)) continue;
    out.push({ name, kind: "raw" });
  }
  return out;
}

/** Pod cgroups sit at depth 1 (Guaranteed) or 2 (in a QoS class); their children are depth+1. */
function walk(hierarchy: string, dir: string, depth: number, out: CgroupEntry[]): void {
  const parent = out[out.length - 1];
  for (const name of subdirs(hierarchy + dir)) {
    const path = `${dir}/${name}`;
    const pod = depth <= 1 ? POD_DIR.exec(name) ?? POD_SLICE.exec(name) : null;
    let entry: CgroupEntry;
    if (parent.name === dir && parent.kind === "pod") {
      entry = { name: path, kind: "child", id: CONTAINER_SCOPE.exec(name)?.[1] ?? name };
    } else if (pod) {
      entry = { name: path, kind: "pod", podUid: pod[1].replaceAll("_", "-") };
    } else {
      entry = { name: path, kind: "raw" };
    }
    out.push(entry);
    walk(hierarchy, path, depth + 1, out);
  }
}

function subdirs(dir: string): string[] {
  const names: string[] = [];
  try {
    for (const e of Deno.readDirSync(dir)) if (e.isDirectory) names.push(e.name);
  } catch (err) {
    // A cgroup removed while we list it.
    if (err instanceof Deno.errors.NotFound) return names;
    throw err;
  }
  return names.sort();
}

function isDir(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

function normalize(path: string): string {
  return ("/" + path.replace(/^\/+|\/+$/g, "")).replace(/\/+/g, "/");
}

/**
 * The cgroup this process is in, from /proc/self/cgroup: the memory controller's line on v1,
 * the unified line on v2. undefined when not found.
 */
export function ownCgroup(procRoot: string, mode: "v1" | "v2"): string | undefined {
  const text = readOptionalSync(`${procRoot}/self/cgroup`) ?? "";
  for (const line of text.split("\n")) {
    const [, controllers, path] = line.split(/:(.*?):/);
    if (path === undefined) continue;
    if (
      mode === "v2"
        ? controllers === "" && line.startsWith("0::")
        : controllers.split(",").includes("memory")
    ) {
      return path;
    }
  }
  return undefined;
}

/**
 * Creation times of cgroups as cAdvisor's GetSpec takes them: the older of the directory's and
 * its `cgroup.clone_children` (v1) or `cgroup.events` (v2) modification times, never before
 * boot. A cgroup's is read once and kept while the cgroup is reported.
 */
export class CreationTimes {
  readonly #cache = new Map<string, number | undefined>();
  #seen = new Set<string>();

  constructor(
    private readonly hierarchy: string,
    private readonly marker: "cgroup.clone_children" | "cgroup.events",
  ) {}

  /** ms since the epoch; undefined when the cgroup is gone. */
  get(name: string, bootTimeMs: number): number | undefined {
    this.#seen.add(name);
    if (this.#cache.has(name)) return this.#cache.get(name);
    const dir = this.hierarchy + (name === "/" ? "" : name);
    const times = [mtime(dir), mtime(`${dir}/${this.marker}`)].filter((t) => t !== undefined);
    const t = times.length === 0 ? undefined : Math.max(bootTimeMs, Math.min(...times));
    this.#cache.set(name, t);
    return t;
  }

  /** Forgets the cgroups not asked about since the last sweep. */
  sweep(): void {
    for (const name of this.#cache.keys()) if (!this.#seen.has(name)) this.#cache.delete(name);
    this.#seen = new Set();
  }
}

function mtime(path: string): number | undefined {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? undefined;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/** The lowest PID of a cgroup: its first process (a container's init, a sandbox's pause). */
export function firstProcess(procs: number[]): number | undefined {
  return procs.length === 0 ? undefined : Math.min(...procs);
}
