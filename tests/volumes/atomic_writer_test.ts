import assert from "node:assert/strict";
import {
  type FileProjection,
  validatePayloadPath,
  writeAtomically,
} from "../../src/volumes/mod.ts";
import { ConfigError } from "../../src/util/errors.ts";

const NOW = Date.UTC(2026, 1, 3, 4, 5, 6);
const enc = (s: string) => new TextEncoder().encode(s);

function payload(files: Record<string, string | [string, number]>): Map<string, FileProjection> {
  return new Map(
    Object.entries(files).map(([p, v]) => {
      const [text, mode] = typeof v === "string" ? [v, 0o644] : v;
      return [p, { data: enc(text), mode }];
    }),
  );
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-aw-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function entries(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

const mode = async (p: string) => (await Deno.stat(p)).mode! & 0o7777;

Deno.test("atomic writer: files live in a timestamped dir behind ..data and top-level links", () =>
  withDir(async (dir) => {
    const prev = Deno.umask(0o077);
    try {
      const written = await writeAtomically(
        dir,
        payload({ "a.conf": "A", "nested/deep/b": ["B", 0o600], "x": ["X", 0o755] }),
        { now: NOW },
      );
      assert.equal(written, true);
    } finally {
      Deno.umask(prev);
    }
    const names = await entries(dir);
    const ts = names.find((n) => n.startsWith("..2026_02_03_04_05_06."));
    assert.ok(ts, names.join(" "));
    assert.deepEqual(names, [ts, "..data", "a.conf", "nested", "x"].sort());
    assert.equal(await Deno.readLink(`${dir}/..data`), ts);
    assert.equal(await Deno.readLink(`${dir}/a.conf`), "..data/a.conf");
    assert.equal(await Deno.readLink(`${dir}/nested`), "..data/nested");
    assert.equal(await Deno.readTextFile(`${dir}/nested/deep/b`), "B");
    // Modes are the projection's, whatever the umask was.
    assert.equal(await mode(`${dir}/a.conf`), 0o644);
    assert.equal(await mode(`${dir}/nested/deep/b`), 0o600);
    assert.equal(await mode(`${dir}/x`), 0o755);
    assert.equal(await mode(`${dir}/${ts}`), 0o755);
  }));

Deno.test("atomic writer: unchanged content is not written again", () =>
  withDir(async (dir) => {
    const files = payload({ a: "1", "d/b": "2" });
    await writeAtomically(dir, files, { now: NOW });
    const before = await Deno.readLink(`${dir}/..data`);
    assert.equal(await writeAtomically(dir, files, { now: NOW + 5000 }), false);
    assert.equal(await Deno.readLink(`${dir}/..data`), before);
  }));

Deno.test("atomic writer: an update swaps ..data and drops what the payload no longer has", () =>
  withDir(async (dir) => {
    await writeAtomically(dir, payload({ keep: "1", gone: "2", "sub/x": "3", "sub/y": "4" }), {
      now: NOW,
    });
    const old = await Deno.readLink(`${dir}/..data`);
    // A reader holding the old generation (by its real path) keeps reading it until the swap.
    const oldKeep = await Deno.readTextFile(`${dir}/${old}/keep`);
    assert.equal(
      await writeAtomically(dir, payload({ keep: "1b", "sub/x": "3", added: "5" }), {
        now: NOW + 1000,
      }),
      true,
    );
    const next = await Deno.readLink(`${dir}/..data`);
    assert.notEqual(next, old);
    assert.equal(oldKeep, "1");
    assert.equal(await Deno.readTextFile(`${dir}/keep`), "1b");
    assert.equal(await Deno.readTextFile(`${dir}/added`), "5");
    assert.equal(await Deno.readTextFile(`${dir}/sub/x`), "3");
    await assert.rejects(Deno.lstat(`${dir}/gone`), Deno.errors.NotFound);
    await assert.rejects(Deno.lstat(`${dir}/sub/y`), Deno.errors.NotFound);
    await assert.rejects(Deno.lstat(`${dir}/${old}`), Deno.errors.NotFound);
    assert.deepEqual(await entries(dir), [next, "..data", "added", "keep", "sub"].sort());
  }));

Deno.test("atomic writer: a mode change alone is written", () =>
  withDir(async (dir) => {
    await writeAtomically(dir, payload({ a: ["x", 0o644] }), { now: NOW });
    assert.equal(await writeAtomically(dir, payload({ a: ["x", 0o400] }), { now: NOW }), true);
    assert.equal(await mode(`${dir}/a`), 0o400);
  }));

Deno.test("atomic writer: an empty payload empties the volume", () =>
  withDir(async (dir) => {
    await writeAtomically(dir, payload({ a: "1", "d/b": "2" }), { now: NOW });
    assert.equal(await writeAtomically(dir, new Map(), { now: NOW }), true);
    const names = await entries(dir);
    assert.equal(names.length, 2, names.join(" "));
    assert.ok(names.includes("..data"));
  }));

Deno.test("atomic writer: a leftover ..data_tmp from a stopped agent does not block a write", () =>
  withDir(async (dir) => {
    await Deno.symlink("nowhere", `${dir}/..data_tmp`);
    await writeAtomically(dir, payload({ a: "1" }), { now: NOW });
    assert.equal(await Deno.readTextFile(`${dir}/a`), "1");
    await assert.rejects(Deno.lstat(`${dir}/..data_tmp`), Deno.errors.NotFound);
  }));

Deno.test("atomic writer refuses bad paths before writing anything", () =>
  withDir(async (dir) => {
    const bad = ["", "/abs", "a/../b", "..", "..hidden", "..data", "x".repeat(256), "ok/\0"];
    for (const p of bad) {
      await assert.rejects(
        writeAtomically(dir, payload({ fine: "1", [p]: "2" }), { now: NOW }),
        ConfigError,
        JSON.stringify(p),
      );
    }
    assert.deepEqual(await entries(dir), []);
    assert.equal(validatePayloadPath("a/./b/"), "a/b");
    assert.equal(validatePayloadPath("a..b/c"), "a..b/c");
  }));
