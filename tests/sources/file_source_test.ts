import assert from "node:assert/strict";
import { join } from "node:path";
import {
  CONFIG_SEEN_ANNOTATION,
  createFileSource,
  type PodSourceUpdate,
} from "../../src/sources/mod.ts";
import { FakeClock, realClock } from "../../src/util/clock.ts";
import { type Logger, nullLogger } from "../../src/util/log.ts";
import { captureLogger, MemFs, podYaml, settle, Updates } from "./_support.ts";

const DIR = "/etc/kubernetes/manifests";
const PERIOD = 20_000;

function start(
  path: string,
  fs: MemFs,
  opts: { clock?: FakeClock; logger?: Logger; onUpdate?: (u: PodSourceUpdate) => void } = {},
) {
  const clock = opts.clock ?? new FakeClock();
  const updates = new Updates();
  const ctrl = new AbortController();
  const source = createFileSource(path, {
    nodeName: "node1",
    checkFrequencyMs: PERIOD,
    clock,
    logger: opts.logger ?? nullLogger,
    fs,
  });
  const done = source.run(opts.onUpdate ?? updates.push, { signal: ctrl.signal });
  const stop = async () => {
    ctrl.abort();
    await done;
    assert.equal(fs.openWatches, 0, "the watch is closed on abort");
  };
  return { updates, clock, stop, source };
}

const names = (u: PodSourceUpdate) => u.pods.map((p) => p.metadata?.name);

function dirFs(): MemFs {
  const fs = new MemFs();
  fs.mkdir("/etc");
  fs.mkdir("/etc/kubernetes");
  fs.mkdir(DIR);
  return fs;
}

Deno.test("file source reads every non-hidden file of a directory in name order, not recursing", async () => {
  const fs = dirFs();
  fs.write(`${DIR}/b.yaml`, podYaml("bravo"));
  fs.write(
    `${DIR}/a.json`,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "alpha" },
      spec: { containers: [{ name: "c", image: "x:1" }] },
    }),
  );
  fs.write(`${DIR}/c`, podYaml("charlie"));
  fs.write(`${DIR}/.hidden.yaml`, podYaml("hidden"));
  fs.write(`${DIR}/.swp`, "garbage");
  fs.mkdir(`${DIR}/sub`);
  fs.write(`${DIR}/sub/d.yaml`, podYaml("delta"));
  const { updates, stop } = start(DIR, fs);
  const first = await updates.next();
  assert.equal(first.source, "file");
  assert.deepEqual(names(first), ["alpha-node1", "bravo-node1", "charlie-node1"]);
  // Upstream logs a subdirectory as an error too; here it is also listed on /sources.
  assert.deepEqual(first.problems.map((p) => [p.path, p.reason]), [
    [`${DIR}/sub`, "is a directory; manifest directories are not read recursively"],
  ]);
  await stop();
});

Deno.test("file source reports a bad file and still provides the good ones", async () => {
  const fs = dirFs();
  fs.write(`${DIR}/good.yaml`, podYaml("good"));
  fs.write(`${DIR}/bad.yaml`, podYaml("bad", "''"));
  fs.write(`${DIR}/zdup.yaml`, podYaml("good"));
  const { updates, clock, stop } = start(DIR, fs);
  const first = await updates.next();
  assert.deepEqual(names(first), ["good-node1"]);
  assert.equal(first.problems.length, 2);
  const [bad, dup] = first.problems;
  assert.equal(bad.path, `${DIR}/bad.yaml`);
  assert.equal(bad.source, "file");
  assert.match(bad.reason, /spec\.containers\[0\]\.image: Required value/);
  assert.equal(bad.seenAt, clock.now());
  assert.equal(dup.path, `${DIR}/zdup.yaml`);
  assert.match(dup.reason, /duplicate pod default\/good-node1, already defined in .*good\.yaml/);
  await stop();
});

Deno.test("file source re-reads periodically and only reports changes", async () => {
  const fs = dirFs();
  fs.failWatch = true; // periodic check only
  fs.write(`${DIR}/a.yaml`, podYaml("a"));
  const { updates, clock, stop } = start(DIR, fs);
  const first = await updates.next();
  const seen = first.pods[0].metadata?.annotations?.[CONFIG_SEEN_ANNOTATION];
  assert.equal(seen, new Date(clock.now()).toISOString());

  await clock.advance(PERIOD);
  await settle();
  assert.equal(fs.reads, 2, "re-read after the period");
  assert.equal(updates.pending, 0, "an unchanged directory is not reported again");

  fs.write(`${DIR}/b.yaml`, podYaml("b"));
  await clock.advance(PERIOD);
  const second = await updates.next();
  assert.deepEqual(names(second), ["a-node1", "b-node1"]);
  assert.equal(
    second.pods[0].metadata?.annotations?.[CONFIG_SEEN_ANNOTATION],
    seen,
    "config.seen is when the pod was first seen, not the latest read",
  );
  assert.equal(second.pods[0].metadata?.uid, first.pods[0].metadata?.uid);

  fs.remove(`${DIR}/a.yaml`);
  await clock.advance(PERIOD);
  assert.deepEqual(names(await updates.next()), ["b-node1"], "a removed file removes its pod");
  await stop();
});

Deno.test("file source does not re-read a settled file whose stat is unchanged", async () => {
  const fs = dirFs();
  fs.failWatch = true; // periodic check only
  const clock = new FakeClock();
  fs.stampWith = () => clock.now();
  fs.write(`${DIR}/a.yaml`, podYaml("a"));
  const { updates, stop } = start(DIR, fs, { clock });
  await updates.next();
  assert.equal(fs.reads, 1);
  await clock.advance(PERIOD);
  await settle();
  assert.equal(fs.reads, 2, "read again: it was written just before the first read");
  await clock.advance(PERIOD);
  await settle();
  assert.equal(fs.reads, 2, "settled and unchanged: not read");

  fs.write(`${DIR}/a.yaml`, podYaml("a", "busybox:1.37"), { notify: false });
  await clock.advance(PERIOD);
  const changed = await updates.next();
  assert.equal(changed.pods[0].spec?.containers[0].image, "busybox:1.37");
  assert.equal(fs.reads, 3);
  await stop();
});

Deno.test("file source re-reads on a change notification after a debounce", async () => {
  const fs = dirFs();
  const { updates, clock, stop } = start(DIR, fs);
  assert.deepEqual(names(await updates.next()), []);
  assert.equal(fs.openWatches, 1);

  fs.write(`${DIR}/a.yaml`, podYaml("a"));
  fs.write(`${DIR}/b.yaml`, podYaml("b"));
  fs.write(`${DIR}/.a.yaml.swp`, "x");
  await settle();
  assert.equal(updates.pending, 0, "nothing before the debounce window ends");
  await clock.advance(100);
  assert.deepEqual(names(await updates.next()), ["a-node1", "b-node1"]);
  await settle();
  assert.equal(fs.reads, 2, "a burst of events is one re-read");

  fs.write(`${DIR}/.hidden`, "x");
  await clock.advance(100);
  await settle();
  assert.equal(fs.reads, 2, "hidden files do not trigger a re-read");
  await stop();
});

Deno.test("file source yields an empty snapshot for a missing path and picks it up later", async () => {
  const fs = new MemFs();
  fs.mkdir("/etc");
  const { updates, clock, stop } = start(DIR, fs);
  const first = await updates.next();
  assert.deepEqual(first.pods, []);
  assert.deepEqual(first.problems, []);

  fs.mkdir("/etc/kubernetes");
  fs.mkdir(DIR);
  fs.write(`${DIR}/a.yaml`, podYaml("a"), { notify: false });
  await clock.advance(PERIOD);
  assert.deepEqual(names(await updates.next()), ["a-node1"]);
  await stop();
});

Deno.test("file source reads a single file, watched through its directory", async () => {
  const fs = dirFs();
  const file = `${DIR}/web.yaml`;
  fs.write(`${DIR}/other.yaml`, podYaml("other"));
  const { updates, clock, stop } = start(file, fs);
  assert.deepEqual(names(await updates.next()), [], "missing file: no pods");

  fs.write(file, podYaml("web"));
  await settle();
  await clock.advance(100);
  const first = await updates.next();
  assert.deepEqual(names(first), ["web-node1"]);

  // As upstream, a single file that turns bad keeps its last pod and reports the problem.
  fs.write(file, "kind: Pod\n");
  await settle();
  await clock.advance(100);
  const broken = await updates.next();
  assert.deepEqual(names(broken), ["web-node1"]);
  assert.equal(broken.problems[0].path, file);
  assert.match(broken.problems[0].reason, /expected apiVersion "v1"/);

  fs.write(`${DIR}/other.yaml`, podYaml("changed"));
  await settle();
  await clock.advance(100);
  await settle();
  assert.equal(updates.pending, 0, "changes to other files in the directory are ignored");

  fs.remove(file);
  await settle();
  await clock.advance(100);
  assert.deepEqual(await updates.next().then(names), []);
  await stop();
});

Deno.test("file source run resolves on abort without leaking timers", async () => {
  const fs = dirFs();
  const clock = new FakeClock();
  const { updates, stop } = start(DIR, fs, { clock });
  await updates.next();
  fs.write(`${DIR}/a.yaml`, podYaml("a")); // leaves a debounce timer pending
  await settle();
  await stop();
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("file source notices changes in a real directory through a real watcher", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-sources-" });
  try {
    await Deno.writeTextFile(join(dir, "a.yaml"), podYaml("a"));
    const updates = new Updates();
    const ctrl = new AbortController();
    const source = createFileSource(dir + "/", {
      nodeName: "node1",
      checkFrequencyMs: 3_600_000, // so only the watcher can explain a prompt re-read
      clock: realClock,
      logger: nullLogger,
    });
    const done = source.run(updates.push, { signal: ctrl.signal });
    assert.deepEqual(names(await updates.next()), ["a-node1"]);
    await Deno.writeTextFile(join(dir, "b.yml"), podYaml("b"));
    assert.deepEqual(names(await updates.next(5000)), ["a-node1", "b-node1"]);
    await Deno.remove(join(dir, "a.yaml"));
    assert.deepEqual(names(await updates.next(5000)), ["b-node1"]);
    ctrl.abort();
    await done;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("file source sends only why until the path can be read, then reads it", async () => {
  // A snapshot marks the source as read, after which housekeeping removes every runtime pod it
  // does not list: an unreadable path must not pass for "no pods".
  const fs = dirFs();
  fs.write(`${DIR}/a.yaml`, podYaml("a"));
  fs.failures.set(DIR, new Deno.errors.PermissionDenied("permission denied"));
  const { logger, lines } = captureLogger();
  const { updates, clock, stop } = start(DIR, fs, { logger });
  await settle();
  await clock.advance(PERIOD);
  await settle();
  // One `unread` report (for /sources), which does not count as a read; no pods.
  assert.equal(updates.pending, 1, "one report while the path cannot be stat'ed");
  const why = await updates.next();
  assert.equal(why.unread, true);
  assert.deepEqual(why.pods, []);
  assert.match(why.problems[0].reason, /permission denied/);
  const warned = lines.filter((l) => l.includes("Cannot read static pod path"));
  assert.equal(warned.length, 1, "logged once, not at every check");
  assert.match(warned[0], /level=warn .*permission denied/);

  fs.failures.delete(DIR);
  await clock.advance(PERIOD);
  const first = await updates.next();
  assert.equal(first.unread, undefined);
  assert.deepEqual(names(first), ["a-node1"]);
  assert.deepEqual(first.problems, []);
  await stop();
});

Deno.test("file source sends only why while the directory cannot be listed at start", async () => {
  const fs = dirFs();
  fs.write(`${DIR}/a.yaml`, podYaml("a"));
  const listDir = fs.readDirNames.bind(fs);
  let failing = true;
  fs.readDirNames = (path) =>
    failing ? Promise.reject(new Error("Input/output error")) : listDir(path);
  const { updates, clock, stop } = start(DIR, fs);
  await settle();
  await clock.advance(PERIOD);
  await settle();
  assert.equal(updates.pending, 1, "only the unread report while the directory cannot be listed");
  const why = await updates.next();
  assert.equal(why.unread, true);
  assert.match(why.problems[0].reason, /cannot list directory/);

  failing = false;
  await clock.advance(PERIOD);
  assert.deepEqual(names(await updates.next()), ["a-node1"]);

  // Once read, a failing listing keeps the last pods and reports the problem.
  failing = true;
  await clock.advance(PERIOD);
  const kept = await updates.next();
  assert.deepEqual(names(kept), ["a-node1"]);
  assert.equal(kept.problems[0].path, DIR);
  assert.match(kept.problems[0].reason, /cannot list directory: Input\/output error/);
  await stop();
});

Deno.test("file source keeps the pods of a directory renamed away and back between checks", async () => {
  const fs = dirFs();
  fs.write(`${DIR}/a.yaml`, podYaml("a"));
  const { logger, lines } = captureLogger();
  const { updates, clock, stop } = start(DIR, fs, { logger });
  const first = await updates.next();
  assert.deepEqual(names(first), ["a-node1"]);
  await clock.advance(PERIOD / 2); // halfway to the next periodic read

  fs.renameDir(DIR, `${DIR}.away`);
  await settle();
  await clock.advance(100);
  await settle();
  assert.equal(updates.pending, 0, "the rename of the watched directory removes nothing");
  const warnings = lines.filter((l) => l.includes("Static pod path does not exist"));
  assert.equal(warnings.length, 1, "the missing path is noticed at once");
  assert.match(warnings[0], /level=warn .*path=\/etc\/kubernetes\/manifests/);

  fs.renameDir(`${DIR}.away`, DIR);
  await settle();
  await clock.advance(100);
  await settle();
  await clock.advance(PERIOD);
  await settle();
  assert.equal(updates.pending, 0, "back in place: the same pods, nothing to send");
  assert.ok(lines.some((l) => l.includes("Static pod path exists again")));

  // The directory is watched again: a new manifest is seen without waiting for the period.
  fs.write(`${DIR}/b.yaml`, podYaml("b"));
  await settle();
  await clock.advance(100);
  assert.deepEqual(names(await updates.next()), ["a-node1", "b-node1"]);
  await stop();
});

Deno.test("file source drops the pods of a missing directory at the periodic read", async () => {
  const fs = dirFs();
  fs.write(`${DIR}/a.yaml`, podYaml("a"));
  const { logger, lines } = captureLogger();
  const { updates, clock, stop } = start(DIR, fs, { logger });
  assert.deepEqual(names(await updates.next()), ["a-node1"]);

  fs.renameDir(DIR, `${DIR}.away`);
  await settle();
  await clock.advance(100);
  await settle();
  assert.equal(updates.pending, 0);
  await clock.advance(PERIOD);
  assert.deepEqual(names(await updates.next()), [], "gone at the periodic read, as upstream");
  await clock.advance(PERIOD);
  await settle();
  const warnings = lines.filter((l) => l.includes("Static pod path does not exist"));
  assert.equal(warnings.length, 1, "one warning per disappearance, not one per check");
  await stop();
});

Deno.test("file source drops the pods at once when the manifests themselves are removed", async () => {
  const fs = dirFs();
  fs.write(`${DIR}/a.yaml`, podYaml("a"));
  const { updates, clock, stop } = start(DIR, fs);
  assert.deepEqual(names(await updates.next()), ["a-node1"]);
  // rm -r: the watch reports the file, then the directory itself.
  fs.remove(`${DIR}/a.yaml`);
  fs.remove(DIR);
  await settle();
  await clock.advance(100);
  assert.deepEqual(names(await updates.next()), []);
  await stop();
});

Deno.test("file source logs an error in a read and carries on at the next check", async () => {
  const fs = dirFs();
  fs.write(`${DIR}/a.yaml`, podYaml("a"));
  const { logger, lines } = captureLogger();
  const updates = new Updates();
  let calls = 0;
  const onUpdate = (u: PodSourceUpdate) => {
    if (++calls === 1) throw new TypeError("consumer bug");
    updates.push(u);
  };
  const { clock, stop } = start(DIR, fs, { logger, onUpdate });
  await settle();
  const errors = lines.filter((l) => l.includes("level=error"));
  assert.equal(errors.length, 1);
  assert.match(errors[0], /Reading static pods failed.*consumer bug/);
  assert.match(errors[0], /path=\/etc\/kubernetes\/manifests/);
  await clock.advance(PERIOD);
  assert.deepEqual(names(await updates.next()), ["a-node1"], "the snapshot is sent again");
  await stop();
});
