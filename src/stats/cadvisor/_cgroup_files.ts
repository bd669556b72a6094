/** Reading cgroup files the way both cgroup readers need it. */
import { readOptionalSync } from "../_cgroup.ts";

/** runc reports an unlimited pids.max as 0. */
export function unlimitedAsZero(n: number): number {
  return n >= 2 ** 63 ? 0 : n;
}

export function parseProcs(text: string | undefined): number[] {
  if (text === undefined) return [];
  const out: number[] = [];
  for (const line of text.split("\n")) {
    const n = Number(line);
    if (line !== "" && Number.isInteger(n) && n > 0) out.push(n);
  }
  return out;
}

export function firstExisting(root: string, dirs: string[], probe: string): string | undefined {
  return dirs.find((d) => readOptionalSync(`${root}/${d}/${probe}`) !== undefined);
}

/** A file of the cgroup directory `dir` (root, hierarchy, cgroup: empty parts skipped). */
export function read(dir: string[], file: string): string | undefined {
  return readOptionalSync([...dir, file].filter((p) => p !== "").join("/"));
}

export function clean(path: string): string {
  return path.replace(/^\/+|\/+$/g, "");
}
