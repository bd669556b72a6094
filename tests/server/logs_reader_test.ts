import assert from "node:assert/strict";
import { readContainerLogs } from "../../src/server/logs/mod.ts";
import type { LogReadOptions } from "../../src/server/logs/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";

const T = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000000001Z`;
const rec = (s: number, stream: "stdout" | "stderr", tag: "P" | "F", text: string) =>
  `${T(s)} ${stream} ${tag} ${text}\n`;

const DEFAULTS: LogReadOptions = { timestamps: false, follow: false, stream: "All" };

async function read(
  path: string,
  opts: Partial<LogReadOptions> = {},
  running = false,
): Promise<string> {
  const stream = await readContainerLogs(path, { ...DEFAULTS, ...opts }, {
    clock: new FakeClock(),
    isRunning: () => Promise.resolve(running),
  });
  return await new Response(stream).text();
}

async function logDir(): Promise<{ dir: string; path: string }> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-logs-" });
  return { dir, path: `${dir}/0.log` };
}

Deno.test("container logs: records become lines, partial records joined, bad lines skipped", async () => {
  const { path } = await logDir();
  await Deno.writeTextFile(
    path,
    rec(1, "stdout", "F", "one") +
      rec(2, "stdout", "P", "tw") +
      rec(2, "stderr", "F", "err line") +
      rec(3, "stdout", "F", "o") +
      "garbage without fields\n" +
      rec(4, "stdout", "F", "") +
      rec(5, "stdout", "F", "with spaces  inside"),
  );
  assert.equal(await read(path), "one\nerr line\ntwo\n\nwith spaces  inside\n");
  assert.equal(await read(path, { stream: "Stderr" }), "err line\n");
  // A joined line carries the time of its first part.
  assert.equal(
    await read(path, { timestamps: true, stream: "Stdout" }),
    `${T(1)} one\n${T(2)} two\n${T(4)} \n${T(5)} with spaces  inside\n`,
  );
});

Deno.test("container logs: tailLines counts whole lines, across rotated files including compressed ones", async () => {
  const { dir, path } = await logDir();
  const gz = new Response(
    new Blob([rec(1, "stdout", "F", "oldest-a") + rec(2, "stdout", "F", "oldest-b")]).stream()
      .pipeThrough(new CompressionStream("gzip")),
  );
  await Deno.writeFile(`${path}.20260101-000001.gz`, new Uint8Array(await gz.arrayBuffer()));
  await Deno.writeTextFile(
    `${path}.20260101-000003`,
    rec(3, "stdout", "F", "rotated-a") + rec(4, "stdout", "P", "rotated-") +
      rec(4, "stdout", "F", "b"),
  );
  // Leftovers of compression and other containers' files are not this log.
  await Deno.writeTextFile(`${path}.20260101-000002.tmp`, rec(9, "stdout", "F", "tmp"));
  await Deno.writeTextFile(`${dir}/1.log`, rec(9, "stdout", "F", "other"));
  await Deno.writeTextFile(
    path,
    rec(5, "stdout", "F", "live-a") + rec(6, "stdout", "F", "live-b") +
      `${T(7)} stdout F unfinished`, // still being written: not a line yet
  );
  assert.equal(
    await read(path),
    "oldest-a\noldest-b\nrotated-a\nrotated-b\nlive-a\nlive-b\n",
  );
  assert.equal(await read(path, { tailLines: 2 }), "live-a\nlive-b\n");
  assert.equal(await read(path, { tailLines: 3 }), "rotated-b\nlive-a\nlive-b\n");
  assert.equal(
    await read(path, { tailLines: 5 }),
    "oldest-b\nrotated-a\nrotated-b\nlive-a\nlive-b\n",
  );
  assert.equal(await read(path, { tailLines: 100 }), await read(path));
  assert.equal(await read(path, { tailLines: 0 }), "");
});

Deno.test("container logs: tail finds line boundaries across 64 KiB read chunks", async () => {
  const { path } = await logDir();
  const lines = Array.from(
    { length: 3000 },
    (_, i) => rec(1, "stdout", "F", `line ${i} ${"x".repeat(40)}`),
  );
  await Deno.writeTextFile(path, lines.join(""));
  const out = (await read(path, { tailLines: 1500 })).split("\n");
  assert.equal(out.length, 1501);
  assert.equal(out[0], `line 1500 ${"x".repeat(40)}`);
  assert.equal(out[1499], `line 2999 ${"x".repeat(40)}`);
});

Deno.test("container logs: sinceMs drops older lines, limitBytes cuts the output", async () => {
  const { path } = await logDir();
  await Deno.writeTextFile(
    path,
    rec(1, "stdout", "F", "early") + rec(5, "stdout", "F", "late-1") +
      rec(6, "stdout", "F", "late-2"),
  );
  assert.equal(await read(path, { sinceMs: Date.parse(T(5)) }), "late-1\nlate-2\n");
  assert.equal(await read(path, { limitBytes: 9 }), "early\nlat");
  // tail before since, as upstream: the last two lines, then the filter.
  assert.equal(await read(path, { tailLines: 2, sinceMs: Date.parse(T(6)) }), "late-2\n");
});

Deno.test("container logs: follow streams new lines, survives a rotation, ends when the container stops", async () => {
  const { path } = await logDir();
  await Deno.writeTextFile(path, rec(1, "stdout", "F", "before"));
  const clock = new FakeClock();
  let running = true;
  const stream = await readContainerLogs(path, { ...DEFAULTS, follow: true }, {
    clock,
    pollMs: 100,
    runningCheckMs: 100,
    isRunning: () => Promise.resolve(running),
  });
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let got = "";
  const readUntil = async (want: string) => {
    for (let i = 0; i < 200 && !got.includes(want); i++) {
      const next = reader.read();
      const r = await Promise.race([next, clock.advance(100).then(() => next)]);
      if (r.done) break;
      got += r.value;
    }
    assert.ok(got.includes(want), `expected ${JSON.stringify(want)} in ${JSON.stringify(got)}`);
  };
  await readUntil("before\n");
  await Deno.writeTextFile(path, rec(2, "stdout", "F", "appended"), { append: true });
  await readUntil("appended\n");
  // Rotation as the log manager does it: rename, then the runtime reopens a fresh file. A line
  // written to the old file just before the rename is not lost.
  await Deno.writeTextFile(path, rec(3, "stdout", "F", "last-in-old"), { append: true });
  await Deno.rename(path, `${path}.20260101-000003`);
  await Deno.writeTextFile(path, rec(4, "stdout", "F", "first-in-new"));
  await readUntil("first-in-new\n");
  assert.equal(got, "before\nappended\nlast-in-old\nfirst-in-new\n");
  running = false;
  for (let i = 0; i < 50; i++) {
    const next = reader.read();
    const r = await Promise.race([next, clock.advance(100).then(() => next)]);
    if (r.done) return;
    got += r.value;
  }
  assert.fail("follow did not end after the container stopped");
});

Deno.test("container logs: without follow, lines written after the request are not part of it", async () => {
  const { path } = await logDir();
  await Deno.writeTextFile(path, rec(1, "stdout", "F", "a") + rec(2, "stdout", "F", "b"));
  const stream = await readContainerLogs(path, { ...DEFAULTS, tailLines: 1 }, {
    clock: new FakeClock(),
    isRunning: () => Promise.resolve(true),
  });
  // The writer goes on between the request and the reading.
  await Deno.writeTextFile(path, rec(3, "stdout", "F", "c"), { append: true });
  assert.equal(await new Response(stream).text(), "b\n");
});
