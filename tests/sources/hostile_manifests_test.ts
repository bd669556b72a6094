/**
 * The file source over a real directory full of hostile entries: each bad one is reported with
 * its path and reason, none stops the read, and the good manifests still give their pods.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createFileSource, MAX_MANIFEST_BYTES } from "../../src/sources/mod.ts";
import { denoFileSystem, UnreadableFileError } from "../../src/sources/_fs.ts";
import { realClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { waitFor } from "../support/wait.ts";
import {
  aliasBomb,
  captureLogger,
  mkfifo,
  podYaml,
  Updates,
  writeHostileEntries,
} from "./_support.ts";

const HOUR = 3_600_000;

Deno.test("file source reports each hostile entry of a real directory and keeps the good pods", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-hostile-" });
  const ctrl = new AbortController();
  let done: Promise<void> | undefined;
  try {
    await Deno.writeTextFile(join(dir, "good.yaml"), podYaml("good"));
    // Repeated keys are not an error upstream: the last one wins.
    await Deno.writeTextFile(
      join(dir, "dup-keys.yaml"),
      podYaml("first").replace("name: first", "name: first\n  name: dupkeys"),
    );
    const expected = await writeHostileEntries(dir);
    const updates = new Updates();
    const source = createFileSource(dir, {
      nodeName: "node1",
      checkFrequencyMs: HOUR,
      clock: realClock,
      logger: nullLogger,
    });
    done = source.run(updates.push, { signal: ctrl.signal });
    // Bounded: a FIFO opened for reading would block here for ever.
    const first = await updates.next(20_000);
    assert.deepEqual(first.pods.map((p) => p.metadata?.name), ["dupkeys-node1", "good-node1"]);
    const reasons = new Map(first.problems.map((p) => [p.path, p.reason]));
    for (const [name, reason] of expected) {
      const got = reasons.get(join(dir, name));
      assert.ok(got !== undefined, `${name} is reported; got ${JSON.stringify([...reasons])}`);
      assert.match(got, reason, name);
    }
    assert.equal(first.problems.length, expected.size, JSON.stringify(first.problems));
    // The good pods survive the bad neighbours changing too.
    await Deno.writeTextFile(join(dir, "empty.yaml"), aliasBomb());
    const second = await updates.next(20_000);
    assert.deepEqual(second.pods.map((p) => p.metadata?.name), ["dupkeys-node1", "good-node1"]);
    assert.match(second.problems.find((p) => p.path.endsWith("empty.yaml"))!.reason, /aliasing/);
  } finally {
    ctrl.abort();
    await done;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a FIFO as the manifest path is reported, never opened, and sends no pods", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-hostile-" });
  const ctrl = new AbortController();
  let done: Promise<void> | undefined;
  try {
    const fifo = join(dir, "pod.yaml");
    await mkfifo(fifo);
    const { logger, lines } = captureLogger();
    const updates = new Updates();
    const source = createFileSource(fifo, {
      nodeName: "node1",
      checkFrequencyMs: HOUR,
      clock: realClock,
      logger,
    });
    done = source.run(updates.push, { signal: ctrl.signal });
    const warned = await waitFor(
      () => lines.find((l) => l.includes("Cannot read static pod path")),
      { what: "the warning about the FIFO", timeoutMs: 20_000 },
    );
    assert.match(warned, /reason="not a directory or regular file"/);
    // Nothing read: only the unread report for /sources, no snapshot.
    const why = await updates.next();
    assert.equal(why.unread, true);
    assert.deepEqual(why.pods, []);
    assert.equal(updates.pending, 0);
  } finally {
    ctrl.abort();
    await done;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readFile refuses a FIFO and an oversized file without reading them", async () => {
  // The file source stats first; this is the guard for an entry swapped in after that stat.
  const dir = await Deno.makeTempDir({ prefix: "denolet-hostile-" });
  try {
    await mkfifo(join(dir, "fifo"));
    await assert.rejects(
      denoFileSystem.readFile(join(dir, "fifo"), { maxBytes: MAX_MANIFEST_BYTES }),
      (e: unknown) => e instanceof UnreadableFileError && e.message === "not a regular file",
    );
    await Deno.writeFile(join(dir, "big"), new Uint8Array());
    await Deno.truncate(join(dir, "big"), MAX_MANIFEST_BYTES + 1);
    await assert.rejects(
      denoFileSystem.readFile(join(dir, "big"), { maxBytes: MAX_MANIFEST_BYTES }),
      (e: unknown) => e instanceof UnreadableFileError && /10485761 bytes/.test(e.message),
    );
    await Deno.writeTextFile(join(dir, "ok"), "abc");
    const bytes = await denoFileSystem.readFile(join(dir, "ok"), { maxBytes: 3 });
    assert.equal(new TextDecoder().decode(bytes), "abc", "exactly the limit is allowed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
