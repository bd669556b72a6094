/**
 * --config-dir drop-ins, as upstream's mergeKubeletConfigurations: every `*.conf` file under the
 * directory (subdirectories too, in lexical order as Go's WalkDir visits them) is a
 * KubeletConfiguration merged into the configuration so far (defaults and --config) with a JSON
 * merge patch: maps merge key by key (an evictionHard drop-in keeps the other signals), lists
 * and values replace, `null` puts back the default. Later files win; flags still win over all.
 * Other files are skipped (listed in a warning); relative paths in drop-ins are left relative to
 * the working directory, as upstream reads drop-ins without resolving them.
 */
import { posix } from "node:path";
import { ConfigError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { configDocument, mergePatch } from "./_document.ts";
import { applyConfigDocument, parseConfigDocument, upstreamTableFor } from "./_file.ts";
import type { Given } from "./_upstream_given.ts";
import type { AgentConfig } from "./types.ts";

export interface DropinFs {
  readFile(path: string): Promise<string>;
  readDir(path: string): AsyncIterable<{ name: string; isDirectory: boolean }>;
}

/** The drop-in files under `dir` in the order they apply, and the files skipped. */
export async function listDropins(
  dir: string,
  fs: DropinFs,
): Promise<{ files: string[]; skipped: string[] }> {
  const files: string[] = [];
  const skipped: string[] = [];
  const walk = async (d: string) => {
    const entries = [];
    try {
      for await (const e of fs.readDir(d)) entries.push(e);
    } catch (err) {
      throw new ConfigError(
        "--config-dir",
        `failed to walk through kubelet dropin directory ${JSON.stringify(d)}: ${
          errorMessage(err)
        }`,
        { cause: err },
      );
    }
    // Go's WalkDir: each directory's entries sorted by name, directories entered in place.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const path = posix.join(d, e.name);
      if (e.isDirectory) await walk(path);
      else if (posix.extname(e.name) === ".conf") files.push(path);
      else skipped.push(path);
    }
  };
  await walk(dir);
  return { files, skipped };
}

/**
 * Merges the drop-ins of `dir` onto `cfg` (already holding the defaults and the --config file),
 * recording each field set by a drop-in with that file as its origin. `defaults` is the
 * configuration before any file, for fields a drop-in sets to null. Returns warnings and
 * the upstream fields the table decides.
 */
export async function applyDropins(
  cfg: AgentConfig,
  origin: Map<keyof AgentConfig, string>,
  opts: { dir: string; cwd: string; defaults: AgentConfig; fs: DropinFs },
): Promise<{ warnings: string[]; given: Given[] }> {
  const { files, skipped } = await listDropins(opts.dir, opts.fs);
  const warnings = skipped.length
    ? [`--config-dir: skipped files that are not *.conf: ${skipped.join(", ")}`]
    : [];
  let merged: Record<string, unknown> = configDocument(cfg);
  const setBy = new Map<string, string>();
  for (const file of files) {
    let text: string;
    try {
      text = await opts.fs.readFile(file);
    } catch (err) {
      throw new ConfigError(file, `failed to load kubelet dropin file: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    if (text.trim() === "") throw new ConfigError(file, "the drop-in file is empty");
    const doc = parseConfigDocument(text, file);
    merged = mergePatch(merged, doc) as Record<string, unknown>;
    for (const key of Object.keys(doc)) setBy.set(key, file);
  }
  const defaults = configDocument(opts.defaults);
  // Each field a drop-in touched, as merged, applied in the name of the last file that set it.
  const byFile = new Map<string, Record<string, unknown>>();
  for (const [key, file] of setBy) {
    const value = key in merged ? merged[key] : defaults[key];
    if (value === undefined) continue; // an ignored upstream field set to null
    const doc = byFile.get(file) ?? {};
    doc[key] = value;
    byFile.set(file, doc);
  }
  const given: Given[] = [];
  for (const file of files) {
    const doc = byFile.get(file);
    if (!doc) continue;
    const table = await upstreamTableFor(doc);
    const out = applyConfigDocument(cfg, origin, {
      doc,
      file,
      dir: opts.cwd,
      defaulting: false,
      table,
    });
    warnings.push(...out.warnings);
    given.push(...out.given);
  }
  return { warnings, given };
}
