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
import { captureLogger, podYaml, Updates } from "./_support.ts";

const HOUR = 3_600_000;

/** A document whose aliases expand to 10^8 nodes from a few hundred bytes. */
function aliasBomb(): string {
  const l = "abcdefghi";
  const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < l.length; i++) {
    lines.push(`${l[i]}: &${l[i]} [${Array(10).fill(`*${l[i - 1]}`).join(", ")}]`);
  }
  return lines.join("\n");
}

async function mkfifo(path: string): Promise<void> {
  const out = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

/** Writes every hostile entry into `dir`; returns the reason expected for each bad one. */
async function writeHostileEntries(dir: string): Promise<Map<string, RegExp>> {
  const at = (name: string) => join(dir, name);
  const enc = new TextEncoder();
  await Deno.writeTextFile(at("alias-bomb.yaml"), aliasBomb());
  // Sparse: 20 MB on paper, nothing on disk; it must be refused by its size, unread.
  await Deno.writeFile(at("huge.yaml"), new Uint8Array());
  await Deno.truncate(at("huge.yaml"), 20 * 1024 * 1024);
  await Deno.writeFile(
    at("invalid-utf8.yaml"),
    new Uint8Array([...enc.encode(podYaml("latin1")), ...enc.encode("# caf"), 0xe9, 0x0a]),
  );
  await Deno.writeFile(at("binary.bin"), Uint8Array.from({ length: 256 }, (_, i) => i));
  await Deno.writeTextFile(at("control.yaml"), "\u0000\u0001\u0002\u0003binary\u0000");
  const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
  await Deno.writeTextFile(at("deep.yaml"), `${podYaml("deep")}foo: ${deep}\n`);
  await Deno.writeTextFile(at("deep.json"), `{"apiVersion":"v1","kind":"Pod","x":${deep}}`);
  await Deno.mkdir(at("dir.yaml"));
  await Deno.writeTextFile(at("dir.yaml/inner.yaml"), podYaml("inner"));
  await mkfifo(at("fifo.yaml"));
  await Deno.symlink(at("missing-target.yaml"), at("dangling.yaml"));
  await Deno.symlink(at("loop.yaml"), at("loop.yaml"));
  await Deno.writeTextFile(at("empty.yaml"), "");
  await Deno.writeTextFile(
    at("podlist.yaml"),
    `apiVersion: v1\nkind: PodList\nitems:\n- ${podYaml("listed").replaceAll("\n", "\n  ")}`,
  );
  await Deno.writeTextFile(
    at("deployment.yaml"),
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n",
  );
  return new Map([
    ["alias-bomb.yaml", /document contains excessive aliasing/],
    ["huge.yaml", /file is 20971520 bytes, larger than the 10485760 bytes allowed/],
    ["invalid-utf8.yaml", /is not valid UTF-8 text/],
    ["binary.bin", /is not valid UTF-8 text/],
    ["control.yaml", /cannot parse as YAML or JSON|must be a YAML or JSON object/],
    ["deep.yaml", /nested more than 100 levels deep/],
    ["deep.json", /nested more than 100 levels deep/],
    ["dir.yaml", /is a directory; manifest directories are not read recursively/],
    ["fifo.yaml", /^not a regular file$/],
    ["dangling.yaml", /symbolic link to a file that does not exist/],
    ["loop.yaml", /cannot read: .*(symbolic links|loop)/i],
    ["empty.yaml", /manifest is empty/],
    ["podlist.yaml", /expected kind "Pod": kind is "PodList"/],
    ["deployment.yaml", /expected kind "Pod": kind is "Deployment"/],
  ]);
}

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

Deno.test("a FIFO as the manifest path is reported, never opened, and sends nothing", async () => {
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
    assert.equal(updates.pending, 0, "nothing read: no snapshot");
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
