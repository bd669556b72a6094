/**
 * The packer and its shell header, with a fake runtime: a shell script standing in for `deno`
 * that prints the arguments and environment it was started with. Fast; the real runtime and the
 * real containerd are tests/e2e/single_file_test.ts.
 */
import assert from "node:assert/strict";
import { AGENT_V8_FLAGS, BUILD_INFO } from "../../src/build_info/mod.ts";
import { LAYOUT } from "../../src/install/mod.ts";
import { parseHeader, RUN_FLAGS, STAMP_FILE } from "./_package_header.ts";
import { elfInfo, npmIntegrity, PACK_TARGETS, tarballName } from "./_package_runtime.ts";
import { sha256Hex } from "./_exec.ts";
import { gunzip, gzip, readTar, writeTar } from "./_package_tar.ts";
import { inspectPackage, packFile, type PackInput } from "./package.ts";

const MACHINE = new TextDecoder().decode(
  (await new Deno.Command("uname", { args: ["-m"], stdout: "piped" }).output()).stdout,
).trim();

/**
 * Prints each argument on a line, then the variables the header sets; like Deno, it creates
 * DENO_DIR, where it also logs each call.
 */
const FAKE_RUNTIME = new TextEncoder().encode([
  "#!/bin/sh",
  'mkdir -p "$DENO_DIR"',
  'echo "$*" >>"$DENO_DIR/calls"',
  'for a in "$@"; do printf "arg:%s\\n" "$a"; done',
  'printf "exe:%s\\n" "$DENOLET_EXECUTABLE"',
  'printf "deno_dir:%s\\n" "$DENO_DIR"',
  'printf "pid:%s\\n" "$$"',
  "",
].join("\n"));
/** An entry and one chunk, as `bundleAgent` splits the agent. */
const FAKE_BUNDLE = [
  { name: "denolet.js", data: new TextEncoder().encode("console.log('agent');\n") },
  { name: "chunk-TEST1234.js", data: new TextEncoder().encode("export const x = 1;\n") },
];
const FLAGS = ["--allow-read=/etc/denolet/config.yaml,/var/lib/kubelet", "--allow-ffi"];

function input(over: Partial<PackInput> = {}): PackInput {
  return {
    target: { ...PACK_TARGETS[0], machines: [MACHINE] },
    runtime: FAKE_RUNTIME,
    bundle: FAKE_BUNDLE,
    commit: "abc1234",
    permissionFlags: FLAGS,
    ...over,
  };
}

interface Sandbox {
  dir: string;
  file: string;
  unpackDir: string;
  run(
    args?: string[],
    opts?: { env?: Record<string, string>; shell?: string[] },
  ): Promise<{ code: number; out: string; err: string }>;
}

async function withPacked(
  over: Partial<PackInput>,
  fn: (s: Sandbox, build: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-pack-test-" });
  try {
    const { file, build } = await packFile(input(over));
    await Deno.mkdir(`${dir}/download`);
    await Deno.mkdir(`${dir}/home`);
    const path = `${dir}/download/denolet-test`;
    await Deno.writeFile(path, file, { mode: 0o755 });
    const unpackDir = `${dir}/unpack`;
    const sandbox: Sandbox = {
      dir,
      file: path,
      unpackDir,
      async run(args = [], opts = {}) {
        const [cmd, ...pre] = opts.shell ?? ["./denolet-test"];
        const out = await new Deno.Command(cmd, {
          args: [...pre, ...args],
          cwd: `${dir}/download`,
          clearEnv: true,
          env: {
            PATH: "/usr/bin:/bin",
            HOME: `${dir}/home`,
            DENOLET_UNPACK_DIR: unpackDir,
            ...opts.env,
          },
          stdout: "piped",
          stderr: "piped",
        }).output();
        const dec = new TextDecoder();
        return { code: out.code, out: dec.decode(out.stdout), err: dec.decode(out.stderr) };
      },
    };
    await fn(sandbox, build);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The 64-byte header of an ELF64 little-endian executable for `machine`, with no segments. */
function fakeElf(machine: number): Uint8Array {
  const b = new Uint8Array(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0);
  new DataView(b.buffer).setUint16(0x12, machine, true);
  return b;
}

function lines(out: string, prefix: string): string[] {
  return out.split("\n").filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length));
}

Deno.test("packFile: the same inputs give the same bytes; another bundle another build", async () => {
  const a = await packFile(input());
  const b = await packFile(input());
  assert.deepEqual(a.file, b.file);
  assert.equal(a.build, b.build);
  const c = await packFile(input({
    bundle: [FAKE_BUNDLE[0], { ...FAKE_BUNDLE[1], data: new TextEncoder().encode("2;\n") }],
  }));
  assert.notEqual(c.build, a.build, "a changed chunk is another build");
  assert.equal(a.build.replace(/[0-9a-f]{12}$/, "<hash>"), `${BUILD_INFO.version}-abc1234-<hash>`);
});

Deno.test("inspectPackage: reads back the header, payload and files; a flipped byte fails", async () => {
  const runtime = fakeElf(183);
  const { file, build } = await packFile(input({ runtime, interpreter: "/lib/ld-test.so" }));
  const seen = await inspectPackage(file);
  assert.equal(seen.header.build, build);
  assert.deepEqual(seen.runtime, runtime);
  assert.equal(seen.elf.machine, 183);
  assert.deepEqual(seen.bundle, FAKE_BUNDLE);
  assert.deepEqual(seen.header.runArgs, [...RUN_FLAGS, `--v8-flags=${AGENT_V8_FLAGS}`, ...FLAGS]);
  // The header says where it ends: the payload is a gzip stream right there.
  assert.deepEqual([...file.subarray(seen.header.payloadOffset, seen.header.payloadOffset + 2)], [
    0x1f,
    0x8b,
  ]);
  const damaged = file.slice();
  damaged[damaged.length - 100] ^= 0xff;
  await assert.rejects(inspectPackage(damaged), /payload SHA-256/);
  assert.throws(() => parseHeader(new TextEncoder().encode("#!/bin/bash\n")), /#!\/bin\/sh/);
});

Deno.test("header: execs the runtime with the V8 flags, exactly the permission flags and the arguments", async () => {
  await withPacked({}, async (s, build) => {
    const args = ["--pod-manifest-path", "/a dir/with 'quotes'", "$HOME", "*", ""];
    const r = await s.run(args);
    assert.equal(r.code, 0, r.err);
    const dir = `${s.unpackDir}/${build}`;
    assert.deepEqual(lines(r.out, "arg:"), [
      "run",
      ...RUN_FLAGS,
      `--v8-flags=${AGENT_V8_FLAGS}`,
      ...FLAGS,
      `${dir}/denolet.js`,
      ...args,
    ]);
    // The file a user started, for `install`; Deno's caches inside the build's directory.
    assert.deepEqual(lines(r.out, "exe:"), [s.file]);
    assert.deepEqual(lines(r.out, "deno_dir:"), [`${dir}/deno_dir`]);
    assert.equal(await Deno.readTextFile(`${dir}/denolet.js`), "console.log('agent');\n");
    assert.equal((await Deno.stat(`${dir}/deno`)).mode! & 0o777, 0o555);
    assert.equal((await Deno.stat(`${dir}/denolet.js`)).mode! & 0o777, 0o444);
    assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o755);
    assert.equal(await Deno.readTextFile(`${dir}/chunk-TEST1234.js`), "export const x = 1;\n");
    assert.equal((await Deno.stat(`${dir}/chunk-TEST1234.js`)).mode! & 0o777, 0o444);
    // Nothing is left beside the unpacked files and the stamp of their check, nothing written
    // next to the download or in HOME.
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      STAMP_FILE,
      "chunk-TEST1234.js",
      "deno",
      "deno_dir",
      "denolet.js",
    ]);
    assert.deepEqual([...Deno.readDirSync(`${s.dir}/download`)].map((e) => e.name), [
      "denolet-test",
    ]);
    assert.deepEqual([...Deno.readDirSync(`${s.dir}/home`)], []);
  });
});

Deno.test("header: exec keeps the pid (signals reach the runtime)", async () => {
  await withPacked({}, async (s) => {
    const child = new Deno.Command(s.file, {
      cwd: `${s.dir}/download`,
      env: { DENOLET_UNPACK_DIR: s.unpackDir },
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const out = new TextDecoder().decode((await child.output()).stdout);
    assert.deepEqual(lines(out, "pid:"), [String(child.pid)]);
  });
});

Deno.test("header: unpacks once; a later start verifies and reuses the files", async () => {
  await withPacked({}, async (s, build) => {
    const first = await s.run(["--version"]);
    assert.equal(first.code, 0, first.err);
    assert.match(first.err, new RegExp(`unpacked into ${s.unpackDir}/${build}`));
    const ino = (await Deno.stat(`${s.unpackDir}/${build}/deno`)).ino;
    const second = await s.run(["--version"]);
    assert.equal(second.code, 0, second.err);
    assert.equal(second.err, "");
    assert.equal((await Deno.stat(`${s.unpackDir}/${build}/deno`)).ino, ino);
    // The first start ran the bundle once (filling Deno's caches) before the agent; later ones not.
    const calls = await Deno.readTextFile(`${s.unpackDir}/${build}/deno_dir/calls`);
    const run = `run ${RUN_FLAGS.join(" ")} --v8-flags=${AGENT_V8_FLAGS} ${FLAGS.join(" ")} ` +
      `${s.unpackDir}/${build}/denolet.js --version`;
    assert.deepEqual(calls.trimEnd().split("\n"), [run, run, run]);
  });
});

Deno.test("header: a later start does not hash the unpacked files again", async () => {
  // Hashing the ~100 MB runtime took a third of a second of every start (issue 31); it is
  // checked once, when unpacked, and later starts check that the files are still those.
  await withPacked({}, async (s) => {
    const bin = `${s.dir}/bin`;
    await Deno.mkdir(bin);
    await Deno.writeTextFile(
      `${bin}/sha256sum`,
      `#!/bin/sh\necho called >>${s.dir}/hashed\nexec /usr/bin/sha256sum "$@"\n`,
      { mode: 0o755 },
    );
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    const hashed = () => Deno.readTextFile(`${s.dir}/hashed`).then((t) => t.length, () => 0);
    assert.equal((await s.run([], { env })).code, 0);
    const afterFirst = await hashed();
    assert.ok(afterFirst > 0, "the first start checks the payload and the files");
    const later = await s.run([], { env });
    assert.equal(later.code, 0, later.err);
    assert.equal(later.err, "");
    assert.equal(await hashed(), afterFirst, "a later start hashes nothing");
  });
});

Deno.test("header: a runtime that cannot start here is reported when it is unpacked", async () => {
  const runtime = new TextEncoder().encode(
    '#!/bin/sh\necho "version GLIBC_2.99 not found" >&2\nexit 3\n',
  );
  await withPacked({ runtime }, async (s, build) => {
    const r = await s.run();
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      new RegExp(`runtime unpacked into .*${build} does not start here: version GLIBC_2.99`),
    );
  });
});

Deno.test("header: a new build removes older builds, and nothing else", async () => {
  await withPacked({}, async (s, build) => {
    const older = `${s.unpackDir}/0.0.9-1234567-0123456789ab`;
    const other = `${s.unpackDir}/notes-0123456789ab`;
    await Deno.mkdir(older, { recursive: true });
    await Deno.mkdir(other);
    for (const f of ["deno", "denolet.js"]) await Deno.writeTextFile(`${older}/${f}`, "old");
    await Deno.writeTextFile(`${other}/deno`, "not a build: no denolet.js");
    const r = await s.run();
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, new RegExp(`removed the older build ${older}`));
    assert.deepEqual([...Deno.readDirSync(s.unpackDir)].map((e) => e.name).sort(), [
      build,
      "notes-0123456789ab",
    ]);
  });
});

Deno.test("header: a changed unpacked file is unpacked again before it runs", async () => {
  await withPacked({}, async (s, build) => {
    assert.equal((await s.run()).code, 0);
    const bundle = `${s.unpackDir}/${build}/denolet.js`;
    await Deno.chmod(bundle, 0o644);
    await Deno.writeTextFile(bundle, "console.log('tampered');\n");
    await Deno.chmod(bundle, 0o444);
    const r = await s.run();
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /unpacked into/);
    assert.equal(await Deno.readTextFile(bundle), "console.log('agent');\n");
  });
});

Deno.test("header: a changed or missing chunk is unpacked again before it runs", async () => {
  await withPacked({}, async (s, build) => {
    assert.equal((await s.run()).code, 0);
    const chunk = `${s.unpackDir}/${build}/chunk-TEST1234.js`;
    await Deno.chmod(chunk, 0o644);
    await Deno.writeTextFile(chunk, "export const x = 2;\n");
    await Deno.chmod(chunk, 0o444);
    const changed = await s.run();
    assert.equal(changed.code, 0, changed.err);
    assert.match(changed.err, /unpacked into/);
    assert.equal(await Deno.readTextFile(chunk), "export const x = 1;\n");
    await Deno.remove(chunk);
    const missing = await s.run();
    assert.equal(missing.code, 0, missing.err);
    assert.match(missing.err, /unpacked into/);
    assert.equal(await Deno.readTextFile(chunk), "export const x = 1;\n");
    assert.equal((await s.run()).err, "", "then only verified");
  });
});

Deno.test("header: a damaged payload is refused before anything is unpacked or run", async () => {
  await withPacked({}, async (s, build) => {
    const bytes = await Deno.readFile(s.file);
    bytes[bytes.length - 64] ^= 0xff;
    await Deno.writeFile(s.file, bytes);
    const r = await s.run();
    assert.equal(r.code, 1);
    assert.match(r.err, /is damaged: its payload does not match its SHA-256; download it again/);
    assert.equal(r.out, "", "the runtime never ran");
    assert.deepEqual([...Deno.readDirSync(`${s.unpackDir}/${build}`)], [], "no stage left");
  });
});

Deno.test("header: refuses an unpack directory others may write", async () => {
  await withPacked({}, async (s) => {
    await Deno.mkdir(s.unpackDir, { mode: 0o755 });
    await Deno.chmod(s.unpackDir, 0o777);
    const r = await s.run();
    assert.equal(r.code, 1);
    assert.match(r.err, /must belong to uid \d+ and be writable by no one else/);
    assert.equal(r.out, "");
  });
});

Deno.test("header: the wrong machine names the right file; DENOLET_EMULATOR runs it anyway", async () => {
  const target = { ...PACK_TARGETS[1], machines: ["riscv-test"] };
  await withPacked({ target }, async (s) => {
    const r = await s.run();
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /this file is for riscv-test Linux; this machine is .*: use denolet-linux-amd64/,
    );
    // `env` as the emulator simply runs the (fake) runtime.
    const emulated = await s.run(["x"], { env: { DENOLET_EMULATOR: "env" } });
    assert.equal(emulated.code, 0, emulated.err);
    assert.equal(lines(emulated.out, "arg:").at(-1), "x");
  });
});

Deno.test("header: a runtime whose loader is missing is refused with the reason", async () => {
  await withPacked({ interpreter: "/lib/ld-missing-test.so.1" }, async (s) => {
    const r = await s.run();
    assert.equal(r.code, 1);
    assert.match(r.err, /needs glibc \(\/lib\/ld-missing-test\.so\.1 is missing\)/);
  });
});

Deno.test("header: without DENOLET_UNPACK_DIR a user unpacks under ~/.cache, root under /var/cache", async () => {
  const { file } = await packFile(input());
  const text = new TextDecoder().decode(file.subarray(0, parseHeader(file).payloadOffset));
  assert.match(text, new RegExp(`^  base=${LAYOUT.unpackDir}$`, "m"));
  assert.match(text, /^ {2}base=\$HOME\/\.cache\/denolet$/m);
});

const BUSYBOX = "/bin/busybox";
const hasBusybox = await Deno.stat(BUSYBOX).then(() => true, () => false);

Deno.test({
  name: "header: runs under busybox sh with busybox's own tools",
  ignore: !hasBusybox,
  async fn() {
    await withPacked({}, async (s, build) => {
      const bin = `${s.dir}/bin`;
      await Deno.mkdir(bin);
      const tools = [
        "sh",
        "id",
        "uname",
        "ls",
        "tail",
        "sha256sum",
        "stat",
        "cat",
        "gzip",
        "tar",
        "mkdir",
        "mv",
        "rm",
        "chmod",
        "printf",
        "env",
      ];
      for (const t of tools) await Deno.symlink(BUSYBOX, `${bin}/${t}`);
      const r = await s.run(["a b"], {
        env: { PATH: bin },
        shell: [`${bin}/sh`, "./denolet-test"],
      });
      assert.equal(r.code, 0, r.err);
      assert.match(r.err, /unpacked into/);
      assert.deepEqual(lines(r.out, "arg:").slice(-2), [
        `${s.unpackDir}/${build}/denolet.js`,
        "a b",
      ]);
    });
  },
});

Deno.test("tar: what writeTar writes, readTar and the system's tar read back", async () => {
  const entries = [
    { name: "deno", mode: 0o555, data: new Uint8Array(1000).fill(7) },
    { name: "denolet.js", mode: 0o444, data: new TextEncoder().encode("x") },
  ];
  const tgz = gzip(writeTar(entries));
  assert.deepEqual(readTar(gunzip(tgz)), entries);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/p.tgz`, tgz);
    const out = await new Deno.Command("tar", { args: ["-xzf", "p.tgz"], cwd: dir }).output();
    assert.ok(out.success);
    assert.deepEqual(await Deno.readFile(`${dir}/deno`), entries[0].data);
    assert.equal((await Deno.stat(`${dir}/denolet.js`)).mode! & 0o777, 0o444);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runtime pins: npm file names, integrity format, ELF machine of the running deno", async () => {
  assert.equal(tarballName(PACK_TARGETS[0].runtime), "deno-linux-x64-glibc-2.9.6.tgz");
  for (const t of PACK_TARGETS) assert.match(t.runtime.integrity, /^sha512-[A-Za-z0-9+/]{86}==$/);
  assert.equal(
    await npmIntegrity(new TextEncoder().encode("abc")),
    "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==",
  );
  const self = elfInfo(await Deno.readFile(Deno.execPath()));
  const expected = PACK_TARGETS.find((t) => t.machines.includes(MACHINE));
  assert.equal(self.machine, expected?.elfMachine);
  assert.match(self.interpreter ?? "", /^\/lib.*\/ld-linux-/);
  assert.equal(
    await sha256Hex(new Uint8Array()),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
});
