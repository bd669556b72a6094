/**
 * The checkpoint store on a real temp directory: a file per object, only changed objects
 * written, failures injected at every step of a write (the previous file always stays
 * readable), a "power cut" that leaves a temp file, modes 0700/0600, an I/O error that never
 * costs the checkpoint, format versions refused cleanly, corrupt files moved aside one by one,
 * the whole-file format of version 1 migrated, Secrets and tokens kept only when wanted.
 */
import assert from "node:assert/strict";
import {
  CheckpointError,
  type CheckpointFs,
  CheckpointStore,
  denoFs,
  openCheckpoint,
  TEMP_MARK,
} from "../../src/checkpoint/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger, nullLogger } from "../../src/util/log.ts";

type Step = "writeNew" | "rename" | "syncDir" | "remove";

/** The real fs, failing at `step`; `partial` writes half the data before failing. */
function failingFs(step: Step, opts: { partial?: boolean } = {}): CheckpointFs {
  const boom = () => new Error(`injected failure at ${step}`);
  return {
    ...denoFs,
    async writeNew(path, data, mode) {
      if (step !== "writeNew") return denoFs.writeNew(path, data, mode);
      if (opts.partial) await denoFs.writeNew(path, data.subarray(0, data.length >> 1), mode);
      throw boom();
    },
    rename: (a, b) => step === "rename" ? Promise.reject(boom()) : denoFs.rename(a, b),
    syncDir: (d) => step === "syncDir" ? Promise.reject(boom()) : denoFs.syncDir(d),
    remove: (p) => step === "remove" ? Promise.reject(boom()) : denoFs.remove(p),
  };
}

/** The real fs, counting the bytes of every file written. */
function countingFs(): CheckpointFs & { written: number; files: number } {
  const fs = {
    ...denoFs,
    written: 0,
    files: 0,
    writeNew(path: string, data: Uint8Array, mode: number) {
      fs.written += data.length;
      fs.files++;
      return denoFs.writeNew(path, data, mode);
    },
  };
  return fs;
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "denolet-checkpoint-" });
  try {
    await fn(`${root}/checkpoint`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const pod = (name: string, rv = "1") => ({
  metadata: { name, namespace: "default", uid: `uid-${name}`, resourceVersion: rv },
  spec: { containers: [{ name: "c", image: "busybox" }] },
});
const secret = (name: string, rv = "1", size = 10) => ({
  metadata: { name, namespace: "n", uid: `uid-${name}`, resourceVersion: rv },
  data: { k: "x".repeat(size) },
});

function store(dir: string, fs?: CheckpointFs, logger = nullLogger) {
  return new CheckpointStore({ dir, clock: new FakeClock(), logger, fs });
}

const mode = async (path: string) => (await Deno.stat(path)).mode! & 0o777;
const entries = async (dir: string) =>
  (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
const names = <T extends { metadata?: { name?: string } }>(l: { state: string; data?: unknown }) =>
  l.state === "saved"
    ? Object.values(l.data as Record<string, T[]>)[0].map((o) => o.metadata?.name)
    : [];

Deno.test("checkpoint store: a file per object, directories 0700 and files 0600", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.open();
    assert.deepEqual(await s.load("pods"), { state: "none" });
    await s.save("pods", { pods: [pod("a"), pod("b")] as never });
    await s.save("secrets", { objects: [secret("s")] });
    assert.equal(await mode(dir), 0o700);
    assert.equal(await mode(s.path("secrets")), 0o700);
    assert.deepEqual(await entries(s.path("pods")), ["_saved.json", "uid-a.json", "uid-b.json"]);
    assert.deepEqual(await entries(s.path("secrets")), ["_saved.json", "n_s.json"]);
    assert.equal(await mode(`${s.path("secrets")}/n_s.json`), 0o600);
    const loaded = await store(dir).load("pods");
    assert.deepEqual(names(loaded), ["a", "b"]);
    assert.equal(loaded.state === "saved" && loaded.savedAt, Date.UTC(2026, 0, 1));
    const raw = JSON.parse(await Deno.readTextFile(`${s.path("pods")}/uid-a.json`));
    assert.equal(raw.version, 2);
    assert.equal(raw.kind, "pods");
    assert.equal(raw.data.metadata.name, "a");
  });
});

Deno.test("checkpoint store: one Secret changing among many rewrites that one file, not all", async () => {
  await withDir(async (dir) => {
    const fs = countingFs();
    const s = store(dir, fs);
    await s.open();
    const many = Array.from({ length: 100 }, (_, i) => secret(`s${i}`, "1", 10_000));
    await s.save("secrets", { objects: many });
    const first = fs.written;
    assert.ok(first > 100 * 10_000);
    many[42] = secret("s42", "2", 10_000);
    await s.save("secrets", { objects: many });
    const second = fs.written - first;
    assert.ok(second < 2 * 10_000 + 1_000, `${second} bytes written for one changed Secret`);
    // Gone from the state, gone from the disk.
    await s.save("secrets", { objects: many.slice(0, 10) });
    assert.equal((await entries(s.path("secrets"))).length, 11);
    assert.deepEqual(names(await store(dir).load("secrets")).length, 10);
  });
});

Deno.test("checkpoint store: an I/O error reading a file never costs the checkpoint", async () => {
  await withDir(async (dir) => {
    await store(dir).open();
    await store(dir).save("pods", { pods: [pod("a"), pod("b")] as never });
    const lines: string[] = [];
    const flaky: CheckpointFs = {
      ...denoFs,
      readFile: (p) =>
        p.endsWith("uid-a.json")
          ? Promise.reject(new Error("Input/output error (os error 5)"))
          : denoFs.readFile(p),
    };
    const s = store(dir, flaky, createLogger({ write: (l) => lines.push(l) }));
    await s.open();
    assert.deepEqual(names(await s.load("pods")), ["b"], "this run goes without it");
    assert.ok(lines.some((l) => l.includes("left in place")));
    // A save of this run (pod a unknown to it) leaves a's file alone.
    await s.save("pods", { pods: [pod("b", "2")] as never });
    assert.deepEqual(await entries(s.path("pods")), ["_saved.json", "uid-a.json", "uid-b.json"]);
    assert.deepEqual(names(await store(dir).load("pods")), ["a", "b"], "the next start has it");
  });
});

Deno.test("atomic write: a failure at any step leaves the previous object readable", async () => {
  for (
    const [step, partial] of [["writeNew", true], ["writeNew", false], ["rename", false]] as const
  ) {
    await withDir(async (dir) => {
      await store(dir).open();
      await store(dir).save("pods", { pods: [pod("a")] as never });
      const file = `${store(dir).path("pods")}/uid-a.json`;
      const before = await Deno.readTextFile(file);
      const failing = store(dir, failingFs(step, { partial }));
      await failing.load("pods");
      await assert.rejects(
        failing.save("pods", { pods: [pod("a", "2")] as never }),
        (e) => e instanceof CheckpointError && /injected failure/.test(e.message),
        `${step} fails the save`,
      );
      assert.equal(await Deno.readTextFile(file), before, `${step}: old file intact`);
      const left = (await entries(store(dir).path("pods"))).filter((n) => n.includes(TEMP_MARK));
      assert.deepEqual(left, [], `${step}: no temp file left`);
    });
  }
});

Deno.test("atomic write: a power cut before the rename leaves a temp file that the next start sweeps", async () => {
  await withDir(async (dir) => {
    await store(dir).open();
    await store(dir).save("tokens", { tokens: [] });
    const cut: CheckpointFs = {
      ...failingFs("writeNew", { partial: true }),
      remove: () => Promise.reject(new Error("the process is gone")),
    };
    await assert.rejects(
      store(dir, cut).save("tokens", {
        tokens: [{ key: "k", podUid: "u", token: "t", expiresAt: 1, refreshAt: 1 }],
      }),
      /temp file stays until the next start/,
    );
    const kindDir = store(dir).path("tokens");
    assert.equal((await entries(kindDir)).filter((n) => n.includes(TEMP_MARK)).length, 1);
    const lines: string[] = [];
    const restarted = store(dir, undefined, createLogger({ write: (l) => lines.push(l) }));
    await restarted.open();
    assert.deepEqual(await entries(kindDir), ["_saved.json"]);
    assert.ok(lines.some((l) => l.includes("interrupted write")));
    const loaded = await restarted.load("tokens");
    assert.deepEqual(loaded.state === "saved" && loaded.data, { tokens: [] }, "the previous one");
  });
});

Deno.test("checkpoint store: a file of another format version is refused and left alone", async () => {
  await withDir(async (dir) => {
    const lines: string[] = [];
    const s = store(dir, undefined, createLogger({ write: (l) => lines.push(l) }));
    await s.open();
    await s.save("pods", { pods: [pod("a")] as never });
    const newer = JSON.stringify({ version: 3, kind: "pods", savedAt: "2026-01-01T00:00:00Z" });
    await Deno.writeTextFile(`${s.path("pods")}/uid-z.json`, newer);
    assert.deepEqual(names(await s.load("pods")), ["a"]);
    assert.ok(lines.some((l) => /newer denolet \(format version 3; this one reads 2\)/.test(l)));
    await s.save("pods", { pods: [] });
    assert.equal(await Deno.readTextFile(`${s.path("pods")}/uid-z.json`), newer, "left in place");
  });
});

Deno.test("checkpoint store: a corrupt object file is moved aside; the others load", async () => {
  const cases: Array<[string, RegExp]> = [
    ['{"version": 2, "kind": "pods", "sav', /not JSON/],
    ["[1, 2]", /not a checkpoint envelope/],
    ['{"kind": "pods"}', /no format version/],
    ['{"version": 2, "kind": "secrets", "savedAt": "2026-01-01T00:00:00Z", "data": {}}', /holds/],
    [
      '{"version": 2, "kind": "pods", "savedAt": "2026-01-01T00:00:00Z", "data": {"metadata": {"name": "a"}}}',
      /no metadata.namespace/,
    ],
    ['{"version": 2, "kind": "pods", "data": {}}', /no savedAt/],
  ];
  for (const [text, reason] of cases) {
    await withDir(async (dir) => {
      const lines: string[] = [];
      const s = store(dir, undefined, createLogger({ write: (l) => lines.push(l) }));
      await s.open();
      await s.save("pods", { pods: [pod("good")] as never });
      await Deno.writeTextFile(`${s.path("pods")}/uid-bad.json`, text);
      assert.deepEqual(names(await s.load("pods")), ["good"], text);
      assert.ok(lines.some((l) => l.includes("moved aside") && reason.test(l)), text);
      assert.equal(
        await Deno.readTextFile(`${s.path("pods")}/uid-bad.json.corrupt`),
        text,
        "kept for a look",
      );
    });
  }
});

Deno.test("checkpoint store: a whole-file checkpoint of version 1 is read once and written per object", async () => {
  await withDir(async (dir) => {
    await Deno.mkdir(dir, { recursive: true });
    const v1 = (kind: string, data: unknown) =>
      Deno.writeTextFile(
        `${dir}/${kind}.json`,
        JSON.stringify({ version: 1, kind, savedAt: "2025-12-31T00:00:00.000Z", data }),
      );
    await v1("pods", { pods: [pod("a"), pod("b")] });
    await v1("secrets", { objects: [secret("s1"), secret("s2")] });
    const s = store(dir);
    await s.open();
    const pods = await s.load("pods");
    assert.deepEqual(names(pods), ["a", "b"]);
    assert.equal(pods.state === "saved" && pods.savedAt, Date.UTC(2025, 11, 31));
    assert.deepEqual(names(await s.load("secrets")), ["s1", "s2"]);
    assert.deepEqual(await entries(dir), ["pods", "secrets"], "the old files are gone");
    assert.deepEqual(await entries(`${dir}/secrets`), ["_saved.json", "n_s1.json", "n_s2.json"]);
    const again = await store(dir).load("pods");
    assert.deepEqual(names(again), ["a", "b"]);
    assert.equal(again.state === "saved" && again.savedAt, Date.UTC(2025, 11, 31));
  });
});

Deno.test("openCheckpoint: slots start from what was saved; unusable files start empty", async () => {
  await withDir(async (dir) => {
    const clock = new FakeClock();
    const first = await openCheckpoint({ dir, clock, logger: nullLogger });
    assert.equal(first.pods.take(), undefined);
    const ac = new AbortController();
    const running = first.run({ signal: ac.signal });
    first.pods.schedule(() => ({ pods: [pod("a")] as never }));
    first.configMaps.schedule(() => ({ objects: [{ metadata: { name: "c", namespace: "n" } }] }));
    ac.abort();
    await running; // writes what is pending
    await Deno.mkdir(`${dir}/secrets`);
    await Deno.writeTextFile(`${dir}/secrets/n_x.json`, "garbage");
    const second = await openCheckpoint({ dir, clock, logger: nullLogger });
    assert.equal(second.pods.take()?.pods[0].metadata?.name, "a");
    assert.equal(second.pods.savedAt, clock.now());
    assert.equal(second.configMaps.take()?.objects[0].metadata?.name, "c");
    assert.deepEqual(second.secrets?.take(), { objects: [] });
    assert.equal(second.tokens?.take(), undefined);
    assert.equal(second.pods.take(), undefined, "handed over once: the slot keeps no copy");
  });
});

Deno.test("openCheckpoint with secrets off: no Secrets or tokens kept, those kept before removed", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.open();
    await s.save("secrets", { objects: [secret("s")] });
    await s.save("tokens", {
      tokens: [{ key: "k", podUid: "u", token: "t", expiresAt: 1, refreshAt: 1 }],
    });
    await s.save("configmaps", { objects: [secret("c")] });
    await Deno.writeTextFile(`${dir}/secrets.json`, "{}"); // an old whole-file one too
    const cp = await openCheckpoint({
      dir,
      clock: new FakeClock(),
      logger: nullLogger,
      secrets: false,
    });
    assert.equal(cp.secrets, undefined);
    assert.equal(cp.tokens, undefined);
    assert.deepEqual(await entries(dir), ["configmaps"]);
    assert.equal(cp.configMaps.take()?.objects.length, 1);
  });
});

Deno.test("openCheckpoint: a directory that cannot be made means no checkpoint, not a failed start", async () => {
  const root = await Deno.makeTempDir({ prefix: "denolet-checkpoint-" });
  try {
    await Deno.writeTextFile(`${root}/file`, "");
    const cp = await openCheckpoint({
      dir: `${root}/file/checkpoint`,
      clock: new FakeClock(),
      logger: nullLogger,
    });
    assert.equal(cp.pods.take(), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
