/**
 * Fixture trees for the /metrics/cadvisor tests: a node with one Burstable pod (a sandbox and
 * one container) under /kubepods, on cgroup v1 (per-controller hierarchies) and v2 (unified),
 * with the /proc, /sys and /etc files the collector reads. Written into a temp dir per test, so
 * the file contents sit next to the assertions that depend on them.
 */

export const POD_UID = "0c1d2e3f-4a5b-6c7d-8e9f-a0b1c2d3e4f5";
export const SANDBOX_ID = "5b".padEnd(64, "a");
export const CONTAINER_ID = "c0".padEnd(64, "b");
export const POD_CGROUP = `/kubepods/burstable/pod${POD_UID}`;
export const SANDBOX_PID = 4242;
export const CONTAINER_PID = 4300;
/** /proc/stat btime: 2026-01-01T00:00:00Z. */
export const BOOT_S = 1767225600;
/** When the fixture's cgroups were created (their directories' mtime). */
export const CGROUP_MTIME_S = BOOT_S + 600;

type Tree = Record<string, string>;

const MEMORY_STAT_V1 = (usage: number, inactive: number) =>
  [
    "cache 0",
    "rss 0",
    "mapped_file 0",
    "swap 0",
    "pgfault 1200",
    "pgmajfault 3",
    "inactive_file 0",
    "active_file 0",
    `total_cache ${inactive + 4096}`,
    `total_rss ${usage - inactive - 4096}`,
    "total_mapped_file 8192",
    "total_swap 0",
    "total_pgfault 9999",
    "total_pgmajfault 7",
    `total_inactive_file ${inactive}`,
    "total_active_file 4096",
  ].join("\n") + "\n";

/** One v1 cgroup's files in every hierarchy. */
function v1Cgroup(
  path: string,
  p: {
    usage: number;
    inactive: number;
    cpuNs: number;
    limit?: number;
    quota?: number;
    procs?: number[];
  },
): Tree {
  const at = (h: string, f: string) => `cgroup/${h}${path === "/" ? "" : path}/${f}`;
  const procs = (p.procs ?? []).map((n) => `${n}\n`).join("");
  const tree: Tree = {
    [at("memory", "memory.stat")]: MEMORY_STAT_V1(p.usage, p.inactive),
    [at("memory", "memory.usage_in_bytes")]: `${p.usage}\n`,
    [at("memory", "memory.max_usage_in_bytes")]: `${p.usage + 1_000_000}\n`,
    [at("memory", "memory.failcnt")]: "2\n",
    [at("memory", "memory.limit_in_bytes")]: `${p.limit ?? 9223372036854771712}\n`,
    [at("memory", "memory.memsw.limit_in_bytes")]: "9223372036854771712\n",
    [at("memory", "memory.soft_limit_in_bytes")]: "9223372036854771712\n",
    [at("memory", "memory.kmem.usage_in_bytes")]: "65536\n",
    [at("memory", "memory.oom_control")]: "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n",
    [at("memory", "cgroup.clone_children")]: "0\n",
    [at("cpuacct", "cpuacct.usage")]: `${p.cpuNs}\n`,
    [at("cpuacct", "cpuacct.stat")]: `user ${p.cpuNs / 2e7}\nsystem ${p.cpuNs / 2e7}\n`,
    [at("cpu", "cpu.stat")]:
      "nr_periods 40\nnr_throttled 4\nthrottled_time 500000000\nnr_bursts 9\nburst_time 9\n",
    [at("cpu", "cpu.shares")]: "102\n",
    [at("cpu", "cpu.cfs_period_us")]: "100000\n",
    [at("cpu", "cpu.cfs_quota_us")]: `${p.quota ?? -1}\n`,
    [at("cpu", "cgroup.procs")]: procs,
    [at("blkio", "blkio.throttle.io_service_bytes_recursive")]:
      "254:0 Read 4096\n254:0 Write 8192\n254:0 Sync 0\n254:0 Async 12288\n254:0 Discard 0\n" +
      "254:0 Total 12288\n7:0 Read 1\n7:0 Write 0\n7:0 Total 1\nTotal 12289\n",
    [at("blkio", "blkio.throttle.io_serviced_recursive")]:
      "254:0 Read 1\n254:0 Write 2\n254:0 Total 3\n7:0 Read 1\n7:0 Total 1\nTotal 4\n",
    [at("blkio", "blkio.bfq.io_serviced_recursive")]: "Total 0\n",
  };
  if (path !== "/") {
    tree[at("pids", "pids.current")] = `${(p.procs ?? []).length * 3}\n`;
    tree[at("pids", "pids.max")] = "max\n";
  } else {
    tree[at("memory", "memory.use_hierarchy")] = "1\n";
  }
  return tree;
}

/** The node's cgroups on v1: root, QoS tree, pod, sandbox (pause) and container `main`. */
export function cgroupV1Tree(): Tree {
  return {
    ...v1Cgroup("/", { usage: 2_000_000_000, inactive: 500_000_000, cpuNs: 900e9, procs: [1] }),
    ...v1Cgroup("/kubepods", { usage: 60_000_000, inactive: 10_000_000, cpuNs: 20e9 }),
    ...v1Cgroup("/kubepods/burstable", { usage: 60_000_000, inactive: 10_000_000, cpuNs: 20e9 }),
    ...v1Cgroup(POD_CGROUP, {
      usage: 60_000_000,
      inactive: 10_000_000,
      cpuNs: 20e9,
      limit: 268435456,
      quota: 50000,
    }),
    ...v1Cgroup(`${POD_CGROUP}/${SANDBOX_ID}`, {
      usage: 1_000_000,
      inactive: 0,
      cpuNs: 0.1e9,
      procs: [SANDBOX_PID],
    }),
    ...v1Cgroup(`${POD_CGROUP}/${CONTAINER_ID}`, {
      usage: 55_000_000,
      inactive: 5_000_000,
      cpuNs: 19.5e9,
      limit: 134217728,
      quota: 50000,
      procs: [CONTAINER_PID, CONTAINER_PID + 1],
    }),
  };
}

function v2Cgroup(path: string, p: { usage: number; cpuUsec: number; procs?: number[] }): Tree {
  const at = (f: string) => `cgroup${path === "/" ? "" : path}/${f}`;
  const tree: Tree = {
    [at("cpu.stat")]: `usage_usec ${p.cpuUsec}\nuser_usec ${p.cpuUsec / 2}\nsystem_usec ${
      p.cpuUsec / 2
    }\nnr_periods 10\nnr_throttled 1\nthrottled_usec 2500\nnr_bursts 1\nburst_usec 700\n`,
    [at("memory.stat")]:
      `anon ${p.usage / 2}\nfile ${p.usage / 4}\nfile_mapped 4096\nfile_dirty 8192\n` +
      `file_writeback 0\nactive_file 1000\ninactive_file ${p.usage / 8}\npgfault 77\n` +
      `pgmajfault 1\npgscan 5\npgsteal 4\nworkingset_refault_anon 2\nworkingset_refault_file 3\n`,
    [at("io.stat")]: "254:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n",
    [at("cgroup.procs")]: (p.procs ?? []).map((n) => `${n}\n`).join(""),
    [at("cgroup.events")]: "populated 1\nfrozen 0\n",
    [at("cpu.pressure")]:
      "some avg10=0.00 avg60=0.00 avg300=0.00 total=3000000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=1000000\n",
    [at("memory.pressure")]:
      "some avg10=0.00 avg60=0.00 avg300=0.00 total=20\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=10\n",
    [at("io.pressure")]:
      "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
  };
  if (path !== "/") {
    Object.assign(tree, {
      [at("memory.current")]: `${p.usage}\n`,
      [at("memory.peak")]: `${p.usage * 2}\n`,
      [at("memory.max")]: "max\n",
      [at("memory.min")]: "0\n",
      [at("memory.swap.current")]: "0\n",
      [at("memory.swap.max")]: "max\n",
      [at("memory.events")]: "low 0\nhigh 3\nmax 4\noom 1\noom_kill 1\n",
      [at("memory.events.local")]: "low 0\nhigh 3\nmax 4\noom 0\noom_kill 0\n",
      [at("cpu.weight")]: "4\n",
      [at("cpu.max")]: "max 100000\n",
      [at("pids.current")]: `${(p.procs ?? []).length}\n`,
      [at("pids.max")]: "max\n",
    });
  }
  return tree;
}

export function cgroupV2Tree(): Tree {
  return {
    "cgroup/cgroup.controllers": "cpuset cpu io memory pids\n",
    ...v2Cgroup("/", { usage: 2_000_000_000, cpuUsec: 900e6, procs: [1] }),
    ...v2Cgroup("/kubepods", { usage: 64_000_000, cpuUsec: 20e6 }),
    ...v2Cgroup("/kubepods/burstable", { usage: 64_000_000, cpuUsec: 20e6 }),
    ...v2Cgroup(POD_CGROUP, { usage: 64_000_000, cpuUsec: 20e6 }),
    ...v2Cgroup(`${POD_CGROUP}/${SANDBOX_ID}`, {
      usage: 800_000,
      cpuUsec: 1e5,
      procs: [SANDBOX_PID],
    }),
    ...v2Cgroup(`${POD_CGROUP}/${CONTAINER_ID}`, {
      usage: 56_000_000,
      cpuUsec: 19.5e6,
      procs: [CONTAINER_PID, CONTAINER_PID + 1],
    }),
    [`cgroup${POD_CGROUP}/${CONTAINER_ID}/memory.events.local`]:
      "low 0\nhigh 3\nmax 4\noom 2\noom_kill 2\n",
    [`cgroup${POD_CGROUP}/${CONTAINER_ID}/memory.max`]: "134217728\n",
    [`cgroup${POD_CGROUP}/${CONTAINER_ID}/cpu.max`]: "50000 100000\n",
  };
}

const NET_DEV = (rx: number) =>
  "Inter-|   Receive                                                |  Transmit\n" +
  " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n" +
  "    lo:     100       1    0    0    0     0          0         0      100       1    0    0    0     0       0          0\n" +
  `  eth0: ${rx}     20    1    2    0     0          0         0     5000      30    3    4    0     0       0          0\n`;

/** /proc, /sys and /etc of the fixture node. */
export function hostTree(): Tree {
  return {
    "proc/stat": `cpu  100 0 100 1000 0 0 0 0 0 0\nbtime ${BOOT_S}\n`,
    "proc/meminfo": "MemTotal:        4000000 kB\nMemFree:         1000000 kB\n" +
      "SwapTotal:        1048576 kB\nSwapFree:          524288 kB\n",
    "proc/cpuinfo": [0, 1, 2, 3].map((i) =>
      `processor\t: ${i}\nphysical id\t: 0\ncore id\t\t: ${i >> 1}\n\n`
    ).join(""),
    "proc/diskstats": " 254       0 vda 100 2 3000 40 200 5 6000 70 0 500 110 0 0 0 0 0 0\n",
    "proc/self/mountinfo": "25 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n" +
      "26 1 254:0 / /var/lib/kubelet rw,relatime - ext4 /dev/vda rw\n" +
      "27 1 0:25 / /dev/shm rw - tmpfs tmpfs rw\n" +
      "28 1 0:5 / /proc rw - proc proc rw\n",
    "proc/self/cgroup": "0::/system.slice/denolet.service\n",
    "proc/sys/kernel/osrelease": "6.1.0-test\n",
    "proc/sys/kernel/random/boot_id": "b00t-1d\n",
    "proc/1/net/dev": NET_DEV(123456),
    [`proc/${SANDBOX_PID}/net/dev`]: NET_DEV(7777),
    [`proc/${SANDBOX_PID}/limits`]:
      "Max open files            1048576              1048576              files\n",
    [`proc/${CONTAINER_PID}/limits`]:
      "Max open files            1024                 4096                 files\n",
    "sys/block/vda/dev": "254:0\n",
    "sys/block/loop0/dev": "7:0\n",
    "sys/class/dmi/id/product_uuid": "uuid-0001\n",
    "etc/machine-id": "m4ch1ne\n",
    "etc/os-release": 'PRETTY_NAME="Test Linux 1"\n',
  };
}

/** Open fds: symlinks as the kernel shows them (two sockets in the container). */
const FDS: Record<number, string[]> = {
  [SANDBOX_PID]: ["/dev/null", "socket:[100]"],
  [CONTAINER_PID]: ["/dev/null", "pipe:[7]", "socket:[101]"],
  [CONTAINER_PID + 1]: ["socket:[102]"],
};

/** Writes a tree under a new temp dir and returns the dir. */
export async function writeFixture(mode: "v1" | "v2"): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-cadvisor-" });
  const tree = { ...hostTree(), ...(mode === "v1" ? cgroupV1Tree() : cgroupV2Tree()) };
  for (const [path, text] of Object.entries(tree)) {
    const file = `${dir}/${path}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(file, text);
  }
  for (const [pid, targets] of Object.entries(FDS)) {
    await Deno.mkdir(`${dir}/proc/${pid}/fd`, { recursive: true });
    targets.forEach((t, i) => Deno.symlinkSync(t, `${dir}/proc/${pid}/fd/${i}`));
  }
  // cgroup directories (and their marker files) carry their creation time.
  const t = new Date(CGROUP_MTIME_S * 1000);
  for (const path of Object.keys(tree)) {
    if (!path.startsWith("cgroup/")) continue;
    const file = `${dir}/${path}`;
    Deno.utimeSync(file, t, t);
    Deno.utimeSync(file.slice(0, file.lastIndexOf("/")), t, t);
  }
  return dir;
}
