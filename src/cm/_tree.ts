/**
 * A cgroup as the cgroupfs driver sees it: one name ("/kubepods/burstable/pod<uid>") that is a
 * directory in every v1 hierarchy, or in the single v2 tree. Creating writes the values the
 * kubelet's cgroup manager writes; removing takes leftover child cgroups with it.
 */
import { CgroupError, type CgroupFs } from "./_cgroup_fs.ts";
import { cpuMax, type ResourceConfig, sharesToWeight } from "./_resource_config.ts";

export type CgroupVersion = 1 | 2;
/** --cgroup-driver: who owns the pods' cgroups, the kubelet itself or systemd. */
export type CgroupDriver = "cgroupfs" | "systemd";

export interface CgroupTree {
  readonly version: CgroupVersion;
  /**
   * The cgroup as the hierarchy and the runtime know it: the name itself with the cgroupfs
   * driver, its slice path with the systemd driver (the sandbox's cgroup parent).
   */
  literal(name: string): string;
  /** Creates the cgroup (and missing parents) and applies `config`. Idempotent. */
  create(name: string, config: ResourceConfig): Promise<void>;
  /** Writes `config` to an existing cgroup. */
  update(name: string, config: ResourceConfig): Promise<void>;
  exists(name: string): Promise<boolean>;
  /**
   * The cgroup's cpu and memory values (GetCgroupConfig): v1 shares, or v2 weight converted
   * back to shares; quota -1 when unlimited; no memory limit when unlimited. Undefined when the
   * cgroup does not exist; throws CgroupError for a file that does not parse.
   */
  read(name: string): Promise<ResourceConfig | undefined>;
  /** memory.usage_in_bytes (v1) or memory.current (v2); undefined when missing. */
  memoryUsage(name: string): Promise<number | undefined>;
  /** Child cgroup names (last path element) of `name`, across hierarchies; [] when missing. */
  children(name: string): Promise<string[]>;
  /**
   * Removes the cgroup and its (empty) descendants from every hierarchy; succeeds when already
   * gone. Throws CgroupError while a process is still inside.
   */
  remove(name: string): Promise<void>;
  /** The absolute directory of `name` for a v1 controller ("memory", "cpu") or in the v2 tree. */
  dir(name: string, controller?: string): string;
  /**
   * Throws CgroupError, worded as upstream's cgroup manager Validate, unless `name` exists in
   * every hierarchy the kubelet needs (v1) or has every controller it needs enabled (v2).
   */
  validate(name: string): Promise<void>;
}

/** The cgroup name as upstream prints a CgroupName with %q: `["system.slice" "kubelet"]`. */
export function quotedCgroupName(name: string): string {
  return `[${name.split("/").filter((p) => p !== "").map((p) => JSON.stringify(p)).join(" ")}]`;
}

/** v2 when the mount root is itself a unified hierarchy (has cgroup.controllers). */
export async function detectCgroupVersion(
  fs: CgroupFs,
  mountRoot: string,
): Promise<CgroupVersion> {
  return (await fs.exists(`${mountRoot}/cgroup.controllers`)) ? 2 : 1;
}

export async function openCgroupTree(
  fs: CgroupFs,
  opts: {
    mountRoot: string;
    version: CgroupVersion;
    /** The host's huge page sizes ("2MB", "1GB"), for hugetlb limits; default none. */
    hugePageSizes?: readonly string[];
  },
): Promise<CgroupTree> {
  const sizes = opts.hugePageSizes ?? [];
  if (opts.version === 2) {
    const offered = (await fs.readFile(`${opts.mountRoot}/cgroup.controllers`)) ?? "";
    return new V2Tree(fs, opts.mountRoot, offered.split(/\s+/).includes("hugetlb") ? sizes : []);
  }
  // Each real directory is a hierarchy ("cpu,cpuacct", "memory", "systemd", "unified", ...);
  // the "cpu" -> "cpu,cpuacct" symlinks are skipped so a hierarchy is visited once.
  const hierarchies = await fs.listDirs(opts.mountRoot);
  if (!hierarchies.some((h) => h.split(",").includes("memory"))) {
    throw new CgroupError(`No cgroup v1 memory hierarchy under ${opts.mountRoot}`);
  }
  const hugetlb = hierarchies.some((h) => h.split(",").includes("hugetlb"));
  return new V1Tree(fs, opts.mountRoot, hierarchies, hugetlb ? sizes : []);
}

/**
 * The hugetlb writes for `limits`: the sizes it names, then 0 for the host's other sizes; none
 * when the host has no hugetlb controller (an empty `sizes`).
 */
function hugetlbWrites(
  limits: Record<string, number> | undefined,
  sizes: readonly string[],
): Array<[string, number]> {
  if (limits === undefined || sizes.length === 0) return [];
  const out = Object.entries(limits);
  for (const size of sizes) if (!(size in limits)) out.push([size, 0]);
  return out;
}

/**
 * Writes one hugetlb limit and, where the kernel has it, the same reservation limit (runc's
 * hugetlb Set: `.rsvd` files exist from Linux 5.7).
 */
async function writeHugetlb(
  fs: CgroupFs,
  dir: string,
  files: { limit: string; rsvd: string },
  value: number,
): Promise<void> {
  await fs.writeFile(`${dir}/${files.limit}`, `${value}`);
  if (await fs.exists(`${dir}/${files.rsvd}`)) {
    await fs.writeFile(`${dir}/${files.rsvd}`, `${value}`);
  }
}

/** Memory limits at or above this are the kernel's "unlimited" (v1's PAGE_COUNTER_MAX pages). */
const V1_UNLIMITED_MEMORY = 2 ** 62;

async function readNumber(fs: CgroupFs, file: string): Promise<number | undefined> {
  const text = (await fs.readFile(file))?.trim();
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) throw new CgroupError(`Cannot parse ${JSON.stringify(text)} in ${file}`);
  return n;
}

/** cpuWeightToCPUShares: the kubelet's inverse of the v1 → v2 weight map. */
export function weightToShares(weight: number): number {
  return Math.floor(((weight - 1) * 262142) / 9999) + 2;
}

function join(...parts: string[]): string {
  return parts.join("/").replace(/\/+/g, "/").replace(/\/$/, "");
}

async function removeTree(fs: CgroupFs, path: string): Promise<void> {
  for (const child of await fs.listDirs(path)) await removeTree(fs, `${path}/${child}`);
  await fs.rmdir(path);
}

class V1Tree implements CgroupTree {
  readonly version = 1;
  literal = (name: string) => name;
  constructor(
    private readonly fs: CgroupFs,
    private readonly root: string,
    private readonly hierarchies: string[],
    /** The host's huge page sizes when a hugetlb hierarchy is mounted, else none. */
    private readonly hugePageSizes: readonly string[],
  ) {}

  #hierarchy(controller: string): string | undefined {
    return this.hierarchies.find((h) => h.split(",").includes(controller));
  }

  dir(name: string, controller = "memory"): string {
    return join(this.root, this.#hierarchy(controller) ?? controller, name);
  }

  async create(name: string, config: ResourceConfig): Promise<void> {
    for (const h of this.hierarchies) await this.fs.mkdir(join(this.root, h, name));
    const cpuset = this.#hierarchy("cpuset");
    if (cpuset) await this.#inheritCpuset(join(this.root, cpuset), name);
    await this.update(name, config);
  }

  /** A new cpuset cgroup starts with no CPUs and no memory nodes; copy them down each level. */
  async #inheritCpuset(base: string, name: string): Promise<void> {
    let parent = base;
    for (const part of name.split("/").filter((p) => p !== "")) {
      const dir = `${parent}/${part}`;
      for (const file of ["cpuset.cpus", "cpuset.mems"]) {
        const own = (await this.fs.readFile(`${dir}/${file}`))?.trim();
        if (own) continue;
        const inherited = (await this.fs.readFile(`${parent}/${file}`))?.trim();
        if (inherited) await this.fs.writeFile(`${dir}/${file}`, inherited);
      }
      parent = dir;
    }
  }

  async update(name: string, c: ResourceConfig): Promise<void> {
    const cpu = this.dir(name, "cpu");
    if (c.cpuShares !== undefined) await this.fs.writeFile(`${cpu}/cpu.shares`, `${c.cpuShares}`);
    // Period before quota, as runc does: the kernel checks the quota against the period.
    if (c.cpuPeriod !== undefined && c.cpuQuota !== undefined && c.cpuQuota !== 0) {
      await this.fs.writeFile(`${cpu}/cpu.cfs_period_us`, `${c.cpuPeriod}`);
      await this.fs.writeFile(`${cpu}/cpu.cfs_quota_us`, `${c.cpuQuota}`);
    }
    if (c.memoryLimitBytes !== undefined && c.memoryLimitBytes > 0) {
      await this.fs.writeFile(`${this.dir(name)}/memory.limit_in_bytes`, `${c.memoryLimitBytes}`);
    }
    if (c.pidsLimit !== undefined && this.#hierarchy("pids")) {
      const v = c.pidsLimit < 0 ? "max" : `${c.pidsLimit}`;
      await this.fs.writeFile(`${this.dir(name, "pids")}/pids.max`, v);
    }
    for (const [size, bytes] of hugetlbWrites(c.hugePageLimits, this.hugePageSizes)) {
      await writeHugetlb(this.fs, this.dir(name, "hugetlb"), {
        limit: `hugetlb.${size}.limit_in_bytes`,
        rsvd: `hugetlb.${size}.rsvd.limit_in_bytes`,
      }, bytes);
    }
  }

  exists(name: string): Promise<boolean> {
    return this.fs.exists(this.dir(name));
  }

  async read(name: string): Promise<ResourceConfig | undefined> {
    const cpu = this.dir(name, "cpu");
    const shares = await readNumber(this.fs, `${cpu}/cpu.shares`);
    if (shares === undefined) return undefined;
    const out: ResourceConfig = {
      cpuShares: shares,
      cpuQuota: await readNumber(this.fs, `${cpu}/cpu.cfs_quota_us`) ?? -1,
      cpuPeriod: await readNumber(this.fs, `${cpu}/cpu.cfs_period_us`),
    };
    const memory = await readNumber(this.fs, `${this.dir(name)}/memory.limit_in_bytes`);
    if (memory !== undefined && memory < V1_UNLIMITED_MEMORY) out.memoryLimitBytes = memory;
    return out;
  }

  memoryUsage(name: string): Promise<number | undefined> {
    return readNumber(this.fs, `${this.dir(name)}/memory.usage_in_bytes`);
  }

  async validate(name: string): Promise<void> {
    const missing: string[] = [];
    for (const h of this.hierarchies) {
      if (!h.split(",").some((c) => V1_VALIDATED.has(c))) continue;
      const path = join(this.root, h, name);
      if (!(await this.fs.exists(path))) missing.push(path);
    }
    if (missing.length > 0) {
      throw new CgroupError(
        `cgroup ${quotedCgroupName(name)} has some missing paths: ${missing.join(", ")}`,
      );
    }
  }

  async children(name: string): Promise<string[]> {
    const all = new Set<string>();
    for (const h of this.hierarchies) {
      for (const c of await this.fs.listDirs(join(this.root, h, name))) all.add(c);
    }
    return [...all].sort();
  }

  async remove(name: string): Promise<void> {
    const errors: unknown[] = [];
    for (const h of this.hierarchies) {
      try {
        await removeTree(this.fs, join(this.root, h, name));
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length) {
      throw new CgroupError(`Cannot remove cgroup ${name} from ${errors.length} hierarchies`, {
        cause: errors[0],
      });
    }
  }
}

/** The v1 hierarchies upstream's Validate requires (hugetlb when it is mounted). */
const V1_VALIDATED = new Set(["cpu", "cpuacct", "cpuset", "memory", "systemd", "pids", "hugetlb"]);

/** Controllers a pod cgroup needs enabled from its parents (v2 delegates per level). */
const V2_CONTROLLERS = ["cpu", "cpuset", "memory", "pids", "io", "hugetlb"];
/** What upstream's v2 Validate requires of a cgroup (getSupportedUnifiedControllers). */
const V2_VALIDATED = ["cpu", "cpuset", "memory", "hugetlb", "pids"];

class V2Tree implements CgroupTree {
  readonly version = 2;
  literal = (name: string) => name;
  constructor(
    private readonly fs: CgroupFs,
    private readonly root: string,
    /** The host's huge page sizes when the root offers hugetlb, else none. */
    private readonly hugePageSizes: readonly string[],
  ) {}

  dir(name: string): string {
    return join(this.root, name);
  }

  async create(name: string, config: ResourceConfig): Promise<void> {
    let parent = this.root;
    for (const part of name.split("/").filter((p) => p !== "")) {
      await this.#delegate(parent);
      parent = `${parent}/${part}`;
      await this.fs.mkdir(parent);
    }
    await this.update(name, config);
  }

  /** Enables in `dir`'s cgroup.subtree_control the wanted controllers it has and lacks. */
  async #delegate(dir: string): Promise<void> {
    const available = ((await this.fs.readFile(`${dir}/cgroup.controllers`)) ?? "").split(/\s+/);
    const enabled = ((await this.fs.readFile(`${dir}/cgroup.subtree_control`)) ?? "").split(/\s+/);
    const missing = V2_CONTROLLERS.filter((c) => available.includes(c) && !enabled.includes(c));
    if (missing.length === 0) return;
    await this.fs.writeFile(
      `${dir}/cgroup.subtree_control`,
      missing.map((c) => `+${c}`).join(" "),
    );
  }

  async update(name: string, c: ResourceConfig): Promise<void> {
    const dir = this.dir(name);
    if (c.cpuShares !== undefined) {
      await this.fs.writeFile(`${dir}/cpu.weight`, `${sharesToWeight(c.cpuShares)}`);
    }
    if (c.cpuPeriod !== undefined && c.cpuQuota !== undefined && c.cpuQuota !== 0) {
      await this.fs.writeFile(`${dir}/cpu.max`, cpuMax(c.cpuQuota, c.cpuPeriod));
    }
    if (c.memoryLimitBytes !== undefined && c.memoryLimitBytes > 0) {
      await this.fs.writeFile(`${dir}/memory.max`, `${c.memoryLimitBytes}`);
    }
    if (c.pidsLimit !== undefined) {
      await this.fs.writeFile(`${dir}/pids.max`, c.pidsLimit < 0 ? "max" : `${c.pidsLimit}`);
    }
    for (const [size, bytes] of hugetlbWrites(c.hugePageLimits, this.hugePageSizes)) {
      await writeHugetlb(this.fs, dir, {
        limit: `hugetlb.${size}.max`,
        rsvd: `hugetlb.${size}.rsvd.max`,
      }, bytes);
    }
  }

  exists(name: string): Promise<boolean> {
    return this.fs.exists(this.dir(name));
  }

  async read(name: string): Promise<ResourceConfig | undefined> {
    const dir = this.dir(name);
    const weight = await readNumber(this.fs, `${dir}/cpu.weight`);
    if (weight === undefined) return undefined;
    const out: ResourceConfig = { cpuShares: weightToShares(weight), cpuQuota: -1 };
    const max = (await this.fs.readFile(`${dir}/cpu.max`))?.trim().split(/\s+/);
    if (max?.length === 2) {
      out.cpuQuota = max[0] === "max" ? -1 : Number(max[0]);
      out.cpuPeriod = Number(max[1]);
    }
    const memory = (await this.fs.readFile(`${dir}/memory.max`))?.trim();
    if (memory !== undefined && memory !== "max") out.memoryLimitBytes = Number(memory);
    return out;
  }

  memoryUsage(name: string): Promise<number | undefined> {
    return readNumber(this.fs, `${this.dir(name)}/memory.current`);
  }

  async validate(name: string): Promise<void> {
    const enabled = await this.fs.readFile(`${this.dir(name)}/cgroup.controllers`);
    if (enabled === undefined) {
      throw new CgroupError(
        `could not read controllers for cgroup ${quotedCgroupName(name)}: ` +
          `open ${this.dir(name)}/cgroup.controllers: no such file or directory`,
      );
    }
    // Upstream needs the controllers the root offers among cpu, cpuset, memory, hugetlb, pids.
    const offered = (await this.fs.readFile(`${this.root}/cgroup.controllers`) ?? "").split(/\s+/);
    const has = new Set(enabled.split(/\s+/));
    const missing = V2_VALIDATED.filter((c) => offered.includes(c) && !has.has(c)).sort();
    if (missing.length > 0) {
      throw new CgroupError(
        `cgroup ${quotedCgroupName(name)} has some missing controllers: ${missing.join(", ")}`,
      );
    }
  }

  children(name: string): Promise<string[]> {
    return this.fs.listDirs(this.dir(name));
  }

  remove(name: string): Promise<void> {
    return removeTree(this.fs, this.dir(name));
  }
}
