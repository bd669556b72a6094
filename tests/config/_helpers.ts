import assert from "node:assert/strict";
import { ConfigError } from "../../src/util/errors.ts";
import { type AgentConfig, loadConfig, type LoadResult } from "../../src/config/mod.ts";

/** What the fake node is: cgroup v2 unless said otherwise. */
export interface FakeNode {
  cgroupV2?: boolean;
}

/**
 * Fake environment: hostname "Node-1", cwd /etc/kubernetes, files from `files` by absolute path,
 * a cgroup v2 node unless `node` says otherwise.
 */
export function depsWith(files: Record<string, string> = {}, node: FakeNode = {}) {
  const reads: string[] = [];
  return {
    reads,
    hostname: () => "Node-1",
    cwd: () => "/etc/kubernetes",
    cgroupV2: () => node.cgroupV2 ?? true,
    readFile: (p: string) => {
      reads.push(p);
      const abs = p.startsWith("/") ? p : `/etc/kubernetes/${p}`;
      const text = files[abs];
      if (text === undefined) {
        return Promise.reject(new Deno.errors.NotFound(`no such file ${abs}`));
      }
      return Promise.resolve(text);
    },
    /** Directories are whatever the files' paths imply. */
    async *readDir(p: string) {
      const dir = p.replace(/\/+$/, "") + "/";
      const names = new Map<string, boolean>();
      for (const f of Object.keys(files)) {
        if (!f.startsWith(dir)) continue;
        const [first, ...rest] = f.slice(dir.length).split("/");
        names.set(first, rest.length > 0);
      }
      if (names.size === 0) throw new Deno.errors.NotFound(`no such directory ${p}`);
      for (const [name, isDirectory] of names) yield { name, isDirectory };
    },
  };
}

export async function run(
  argv: string[],
  files: Record<string, string> = {},
  node: FakeNode = {},
): Promise<{ config: AgentConfig; warnings: string[] }> {
  const r: LoadResult = await loadConfig(argv, depsWith(files, node));
  assert.equal(r.kind, "run");
  if (r.kind !== "run") throw new Error("unreachable");
  return r;
}

/** Asserts loading fails with a ConfigError on `field` whose message matches `message`. */
export async function fails(
  argv: string[],
  field: string,
  message: RegExp,
  files: Record<string, string> = {},
  node: FakeNode = {},
): Promise<ConfigError> {
  let err: unknown;
  try {
    await loadConfig(argv, depsWith(files, node));
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${err}`);
  assert.equal(err.field, field);
  assert.match(err.message, message);
  return err;
}
