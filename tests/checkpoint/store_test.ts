/**
 * The checkpoint store on a real temp directory: atomic replacement with failures injected at
 * every step of a write (the previous file always stays readable), a "power cut" that leaves a
 * temp file, modes 0700/0600, format versions refused cleanly, corrupt files moved aside.
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

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "denolet-checkpoint-" });
  try {
    await fn(`${root}/checkpoint`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const pod = (name: string) => ({
  metadata: { name, namespace: "default", uid: `uid-${name}` },
  spec: { containers: [{ name: "c", image: "busybox" }] },
});

function store(dir: string, fs?: CheckpointFs, logger = nullLogger) {
  return new CheckpointStore({ dir, clock: new FakeClock(), logger, fs });
}

const mode = async (path: string) => (await Deno.stat(path)).mode! & 0o777;
const entries = async (dir: string) =>
  (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();

Deno.test("checkpoint store: saves and loads each kind, directory 0700 and files 0600", async () => {
  await withDir(async (dir) => {
    const s = store(dir);
    await s.open();
    assert.deepEqual(await s.load("pods"), { state: "none" });
    await s.save("pods", { pods: [pod("a")] as never });
    await s.save("secrets", {
      objects: [{ metadata: { name: "s", namespace: "n" }, data: { k: "dg==" } }],
    });
    assert.equal(await mode(dir), 0o700);
    assert.equal(await mode(s.path("pods")), 0o600);
    assert.equal(await mode(s.path("secrets")), 0o600);
    const loaded = await s.load("pods");
    assert.equal(loaded.state, "saved");
    if (loaded.state !== "saved") return;
    assert.equal(loaded.data.pods[0].metadata?.name, "a");
    assert.equal(loaded.savedAt, Date.UTC(2026, 0, 1));
    const raw = JSON.parse(await Deno.readTextFile(s.path("pods")));
    assert.equal(raw.version, 1);
    assert.equal(raw.kind, "pods");
  });
});

Deno.test("checkpoint store: open tightens a directory and files others could read", async () => {
  await withDir(async (dir) => {
    await Deno.mkdir(dir, { mode: 0o755 });
    await Deno.chmod(dir, 0o755);
    await Deno.writeTextFile(`${dir}/secrets.json`, "{}");
    await Deno.chmod(`${dir}/secrets.json`, 0o644);
    await store(dir).open();
    assert.equal(await mode(dir), 0o700);
    assert.equal(await mode(`${dir}/secrets.json`), 0o600);
  });
});

Deno.test("atomic write: a failure at any step leaves the previous checkpoint readable", async () => {
  for (
    const [step, partial] of [["writeNew", true], ["writeNew", false], ["rename", false]] as const
  ) {
    await withDir(async (dir) => {
      await store(dir).open();
      await store(dir).save("pods", { pods: [pod("old")] as never });
      const before = await Deno.readTextFile(`${dir}/pods.json`);
      await assert.rejects(
        store(dir, failingFs(step, { partial })).save("pods", { pods: [pod("new")] as never }),
        (e) => e instanceof CheckpointError && /injected failure/.test(e.message),
        `${step} fails the save`,
      );
      assert.equal(await Deno.readTextFile(`${dir}/pods.json`), before, `${step}: old file intact`);
      assert.deepEqual(await entries(dir), ["pods.json"], `${step}: no temp file left`);
      const loaded = await store(dir).load("pods");
      assert.equal(loaded.state === "saved" && loaded.data.pods[0].metadata?.name, "old");
    });
  }
});

Deno.test("atomic write: a power cut before the rename leaves a temp file that the next start sweeps", async () => {
  await withDir(async (dir) => {
    await store(dir).open();
    await store(dir).save("tokens", { tokens: [] });
    // The process dies mid-write: half a temp file, and no chance to clean it up.
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
    const left = (await entries(dir)).filter((n) => n.includes(TEMP_MARK));
    assert.equal(left.length, 1);
    const lines: string[] = [];
    const restarted = store(dir, undefined, createLogger({ write: (l) => lines.push(l) }));
    await restarted.open();
    assert.deepEqual(await entries(dir), ["tokens.json"]);
    assert.ok(lines.some((l) => l.includes("interrupted write")));
    const loaded = await restarted.load("tokens");
    assert.deepEqual(loaded.state === "saved" && loaded.data, { tokens: [] }, "the previous one");
  });
});

Deno.test("atomic write: a failed directory sync is reported; the new file is in place", async () => {
  await withDir(async (dir) => {
    await store(dir).open();
    await assert.rejects(
      store(dir, failingFs("syncDir")).save("pods", { pods: [pod("new")] as never }),
      /cannot sync its directory/,
    );
    const loaded = await store(dir).load("pods");
    assert.equal(loaded.state === "saved" && loaded.data.pods[0].metadata?.name, "new");
  });
});

Deno.test("checkpoint store: another format version is refused with a log line and left alone", async () => {
  await withDir(async (dir) => {
    const lines: string[] = [];
    const s = store(dir, undefined, createLogger({ write: (l) => lines.push(l) }));
    await s.open();
    const newer = JSON.stringify({
      version: 2,
      kind: "pods",
      savedAt: "2026-01-01T00:00:00Z",
      data: { x: 1 },
    });
    await Deno.writeTextFile(s.path("pods"), newer);
    const r = await s.load("pods");
    assert.equal(r.state, "refused");
    assert.match(
      r.state === "refused" ? r.reason : "",
      /newer denolet \(format version 2; this one reads 1\)/,
    );
    assert.equal(
      await Deno.readTextFile(s.path("pods")),
      newer,
      "left in place for the newer agent",
    );
    assert.ok(lines.some((l) => l.includes("level=warn") && l.includes("Checkpoint refused")));

    await Deno.writeTextFile(
      s.path("pods"),
      JSON.stringify({ version: 0, kind: "pods", data: {} }),
    );
    const older = await s.load("pods");
    assert.equal(older.state, "refused");
    assert.match(older.state === "refused" ? older.reason : "", /too old/);
  });
});

Deno.test("checkpoint store: corrupt or misshapen files are logged and moved aside", async () => {
  const cases: Array<[string, RegExp]> = [
    ['{"version": 1, "kind": "pods", "sav', /not JSON/],
    ["[1, 2]", /not a checkpoint envelope/],
    ['{"kind": "pods"}', /no format version/],
    [
      '{"version": 1, "kind": "secrets", "savedAt": "2026-01-01T00:00:00Z", "data": {"pods": []}}',
      /holds "secrets"/,
    ],
    [
      '{"version": 1, "kind": "pods", "savedAt": "2026-01-01T00:00:00Z", "data": {"pods": [{"metadata": {"name": "a"}}]}}',
      /pods\[0\]: no metadata.namespace/,
    ],
    ['{"version": 1, "kind": "pods", "data": {"pods": []}}', /no savedAt/],
  ];
  for (const [text, reason] of cases) {
    await withDir(async (dir) => {
      const lines: string[] = [];
      const s = store(dir, undefined, createLogger({ write: (l) => lines.push(l) }));
      await s.open();
      await Deno.writeTextFile(s.path("pods"), text);
      const r = await s.load("pods");
      assert.equal(r.state, "corrupt", text);
      assert.match(r.state === "corrupt" ? r.reason : "", reason);
      assert.deepEqual(await entries(dir), ["pods.json.corrupt"]);
      assert.equal(await Deno.readTextFile(`${dir}/pods.json.corrupt`), text, "kept for a look");
      assert.ok(lines.some((l) => l.includes("moved aside")));
      assert.deepEqual(await s.load("pods"), { state: "none" }, "gone from the way");
    });
  }
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
    await Deno.writeTextFile(`${dir}/secrets.json`, "garbage");
    const second = await openCheckpoint({ dir, clock, logger: nullLogger });
    assert.equal(second.pods.take()?.pods[0].metadata?.name, "a");
    assert.equal(second.pods.savedAt, clock.now());
    assert.equal(second.configMaps.take()?.objects[0].metadata?.name, "c");
    assert.equal(second.secrets.take(), undefined);
    assert.equal(second.tokens.take(), undefined);
    assert.equal(second.pods.take(), undefined, "handed over once: the slot keeps no copy");
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
