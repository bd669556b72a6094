/**
 * The container log reader with lines of any length (issue 25, point 3): a 16 MiB line, written
 * as one record or as the runtime's 16 KiB partial records, costs reading as far as the output
 * goes and time linear in its bytes; `limitBytes` stops the reading; follow passes a line on
 * before its end was written; a rotated .gz file is inflated as it is read.
 */
import assert from "node:assert/strict";
import { readContainerLogs } from "../../src/server/logs/mod.ts";
import type { LogReadOptions } from "../../src/server/logs/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";

const T = "2026-01-01T00:00:01.000000001Z";
const MiB = 1024 * 1024;
const DEFAULTS: LogReadOptions = { timestamps: false, follow: false, stream: "All" };

/** Counts the bytes read from files while `fn` runs (the reader's only input). */
async function countingReads<R>(fn: () => Promise<R>): Promise<{ result: R; bytesRead: number }> {
  const proto = Deno.FsFile.prototype;
  const real = proto.read;
  let bytesRead = 0;
  proto.read = async function (this: Deno.FsFile, buf: Uint8Array) {
    const n = await real.call(this, buf);
    bytesRead += n ?? 0;
    return n;
  };
  try {
    return { result: await fn(), bytesRead };
  } finally {
    proto.read = real;
  }
}

/** Counts the bytes every DecompressionStream made while `fn` runs. */
async function countingInflated<R>(fn: () => Promise<R>): Promise<{ result: R; inflated: number }> {
  const Real = globalThis.DecompressionStream;
  let inflated = 0;
  globalThis.DecompressionStream = function (format: CompressionFormat) {
    const ds = new Real(format);
    const count = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        inflated += chunk.length;
        c.enqueue(chunk);
      },
    });
    return { writable: ds.writable, readable: ds.readable.pipeThrough(count) };
  } as unknown as typeof DecompressionStream;
  try {
    return { result: await fn(), inflated };
  } finally {
    globalThis.DecompressionStream = Real;
  }
}

async function read(path: string, opts: Partial<LogReadOptions> = {}): Promise<Uint8Array> {
  const stream = await readContainerLogs(path, { ...DEFAULTS, ...opts }, {
    clock: new FakeClock(),
    isRunning: () => Promise.resolve(false),
  });
  return await new Response(stream).bytes();
}

async function logPath(): Promise<string> {
  return `${await Deno.makeTempDir({ prefix: "denolet-long-lines-" })}/0.log`;
}

/** `size` bytes of line content: printable, no newline, varied so a slip shows. */
function content(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = 0x61 + (i % 26);
  return out;
}

async function writeParts(path: string, parts: Uint8Array[]): Promise<void> {
  const f = await Deno.open(path, { write: true, create: true, truncate: true });
  try {
    for (const p of parts) await f.write(p);
  } finally {
    f.close();
  }
}

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("container logs: a 16 MiB line in one record comes out whole, and limitBytes=1 reads little of it", async () => {
  const path = await logPath();
  const line = content(16 * MiB);
  await writeParts(path, [enc(`${T} stdout F `), line, enc(`\n${T} stdout F after\n`)]);
  const one = await countingReads(() => read(path, { limitBytes: 1 }));
  assert.deepEqual(one.result, new Uint8Array([0x61]));
  assert.ok(one.bytesRead < MiB, `read ${one.bytesRead} bytes for one byte of output`);

  const all = await read(path, { timestamps: true });
  const head = enc(`${T} `);
  assert.equal(all.length, head.length + line.length + 1 + head.length + 6);
  assert.deepEqual(all.subarray(0, head.length), head);
  assert.deepEqual(all.subarray(head.length, head.length + line.length), line);
  assert.equal(new TextDecoder().decode(all.subarray(head.length + line.length)), `\n${T} after\n`);
});

Deno.test("container logs: a 16 MiB line in the runtime's 16 KiB partial records is joined, read once", async () => {
  const path = await logPath();
  const line = content(16 * MiB);
  const parts: Uint8Array[] = [];
  const piece = 16 * 1024;
  for (let at = 0; at < line.length; at += piece) {
    const last = at + piece >= line.length;
    parts.push(enc(`${T} stdout ${last ? "F" : "P"} `), line.subarray(at, at + piece), enc("\n"));
  }
  await writeParts(path, parts);
  const { result, bytesRead } = await countingReads(() => read(path));
  assert.equal(result.length, line.length + 1);
  assert.deepEqual(result.subarray(0, line.length), line);
  assert.equal(result[line.length], 0x0a);
  const size = (await Deno.stat(path)).size;
  assert.ok(bytesRead <= size, `read ${bytesRead} bytes of a ${size}-byte file`);
  const one = await countingReads(() => read(path, { limitBytes: 1 }));
  assert.deepEqual(one.result, new Uint8Array([0x61]));
  assert.ok(one.bytesRead < MiB, `read ${one.bytesRead} bytes for one byte of output`);
  const tail = await read(path, { tailLines: 1, limitBytes: 5 });
  assert.equal(new TextDecoder().decode(tail), "abcde");
});

Deno.test("container logs: follow passes a long line on before its end is written", async () => {
  const path = await logPath();
  // A writer in the middle of a 512 KiB line: no newline yet.
  await writeParts(path, [enc(`${T} stdout F `), content(512 * 1024)]);
  const clock = new FakeClock();
  const stream = await readContainerLogs(path, { ...DEFAULTS, follow: true }, {
    clock,
    pollMs: 100,
    isRunning: () => Promise.resolve(true),
  });
  const reader = stream.getReader();
  let got = 0;
  for (let i = 0; i < 200 && got < 256 * 1024; i++) {
    const next = reader.read();
    const r = await Promise.race([next, clock.advance(100).then(() => next)]);
    if (r.done) break;
    got += r.value.length;
  }
  await reader.cancel();
  assert.ok(got >= 256 * 1024, `only ${got} bytes of the unfinished line came out`);
});

Deno.test("container logs: a rotated .gz file is inflated as it is read, not whole", async () => {
  const path = await logPath();
  const lines: string[] = [];
  for (let i = 0; i < 30_000; i++) {
    lines.push(`${T} stdout F line ${i} ${crypto.randomUUID()}\n`);
  }
  const gz = await new Response(
    new Blob(lines).stream().pipeThrough(new CompressionStream("gzip")),
  ).bytes();
  await Deno.writeFile(`${path}.20260101-000001.gz`, gz);
  await Deno.writeTextFile(path, `${T} stdout F live\n`);
  const { result, inflated } = await countingInflated(() => read(path, { limitBytes: 64 }));
  assert.match(new TextDecoder().decode(result), /^line 0 [0-9a-f-]{36}\nline 1 /);
  const whole = lines.reduce((n, l) => n + l.length, 0);
  assert.ok(inflated < MiB, `inflated ${inflated} of ${whole} bytes for 64 bytes of output`);
  // Tail finds its start in the compressed file without keeping it.
  const tail = new TextDecoder().decode(await read(path, { tailLines: 2 }));
  assert.match(tail, /^line 29999 [0-9a-f-]{36}\nlive\n$/);
});
