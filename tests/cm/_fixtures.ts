/** cgroupfs fixtures over plain temp directories, for the cm tests. */
import { type CgroupFs, dirCgroupFs } from "../../src/cm/mod.ts";

export const fs = dirCgroupFs({ plainDirs: true });

/** A cgroup v1 mount: combined cpu,cpuacct with symlinks, as on most distros. */
export async function v1Fixture(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "denolet-cgv1-" });
  for (const h of ["cpu,cpuacct", "memory", "pids", "cpuset", "systemd", "unified"]) {
    await Deno.mkdir(`${root}/${h}`);
  }
  await Deno.symlink(`${root}/cpu,cpuacct`, `${root}/cpu`);
  await Deno.symlink(`${root}/cpu,cpuacct`, `${root}/cpuacct`);
  await Deno.writeTextFile(`${root}/cpuset/cpuset.cpus`, "0-3\n");
  await Deno.writeTextFile(`${root}/cpuset/cpuset.mems`, "0\n");
  return root;
}

export async function v2Fixture(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "denolet-cgv2-" });
  await Deno.writeTextFile(
    `${root}/cgroup.controllers`,
    "cpuset cpu io memory hugetlb pids rdma\n",
  );
  await Deno.writeTextFile(`${root}/cgroup.subtree_control`, "memory\n");
  return root;
}

/**
 * cgroup v2 semantics over plain files: writing "+x" to cgroup.subtree_control enables x, and a
 * new cgroup's cgroup.controllers lists what its parent delegates.
 */
export const v2fs: CgroupFs = {
  ...fs,
  async mkdir(path) {
    const parent = path.replace(/\/[^/]+$/, "");
    await fs.mkdir(path);
    await Deno.writeTextFile(
      `${path}/cgroup.controllers`,
      (await fs.readFile(`${parent}/cgroup.subtree_control`)) ?? "",
    );
  },
  async writeFile(path, data) {
    if (!path.endsWith("/cgroup.subtree_control")) return await fs.writeFile(path, data);
    const enabled = new Set(((await fs.readFile(path)) ?? "").split(/\s+/).filter((x) => x));
    for (const op of data.split(" ")) {
      if (op.startsWith("+")) enabled.add(op.slice(1));
      else enabled.delete(op.slice(1));
    }
    await Deno.writeTextFile(path, [...enabled].join(" "));
  },
};
