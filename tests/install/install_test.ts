import assert from "node:assert/strict";
import { LAYOUT, MODES, renderUnit, runInstallCommand } from "../../src/install/mod.ts";

interface Run {
  code: number;
  out: string[];
  err: string[];
}

async function run(
  command: "install" | "uninstall",
  argv: string[],
  opts: { compiled?: boolean; execPath?: string } = {},
): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runInstallCommand(command, argv, {
    compiled: opts.compiled ?? true,
    execPath: () => opts.execPath ?? "/nonexistent",
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out, err };
}

async function mode(path: string): Promise<number> {
  return (await Deno.stat(path)).mode! & 0o7777;
}

async function withRoot(fn: (root: string, binary: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "denolet-install-" });
  const binary = `${root}.bin`;
  await Deno.writeTextFile(binary, "#!/bin/sh\necho fake denolet\n");
  try {
    await fn(root, binary);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(binary);
  }
}

async function assertInstalled(root: string, binary: string): Promise<void> {
  const bin = `${root}${LAYOUT.binDir}/denolet`;
  assert.equal(await Deno.readTextFile(bin), await Deno.readTextFile(binary));
  assert.equal(await mode(bin), 0o755);
  assert.equal(await mode(`${root}${LAYOUT.manifestDir}`), 0o700);
  assert.equal(await mode(`${root}${LAYOUT.rootDir}`), 0o750);
  assert.equal(await mode(`${root}${LAYOUT.podLogsDir}`), 0o755);
  assert.equal(await mode(`${root}${LAYOUT.configFile}`), MODES.config);
  assert.equal(await mode(`${root}${LAYOUT.unitFile}`), 0o644);
  // Standalone: the node API's client CA and root's certificate for it, root only.
  assert.equal(await mode(`${root}${LAYOUT.pkiDir}`), 0o700);
  for (const f of [LAYOUT.clientCAFile, LAYOUT.adminCertFile, LAYOUT.adminKeyFile]) {
    assert.equal(await mode(`${root}${f}`), 0o600, f);
  }
  const config = await Deno.readTextFile(`${root}${LAYOUT.configFile}`);
  assert.match(config, /kind: KubeletConfiguration/);
  assert.match(config, /staticPodPath: \/etc\/kubernetes\/manifests/);
  const unit = await Deno.readTextFile(`${root}${LAYOUT.unitFile}`);
  assert.equal(
    unit,
    renderUnit({ binary: "/usr/local/bin/denolet", configFile: LAYOUT.configFile }),
  );
}

Deno.test("unit: restarts on failure, kills only the agent, starts after containerd", () => {
  const unit = renderUnit({
    binary: "/usr/local/bin/denolet",
    configFile: "/etc/denolet/config.yaml",
  });
  const lines = unit.split("\n");
  for (
    const want of [
      "ExecStart=/usr/local/bin/denolet --config /etc/denolet/config.yaml",
      "Restart=on-failure",
      "KillMode=process",
      "After=network-online.target containerd.service",
      "Wants=network-online.target containerd.service",
      "WantedBy=multi-user.target",
      // The kubelet's own defaults (oomScoreAdj, maxOpenFiles), which the config accepts only at
      // these values.
      "OOMScoreAdjust=-999",
      "LimitNOFILE=1000000",
    ]
  ) {
    assert.ok(lines.includes(want), `unit has ${want}:\n${unit}`);
  }
  assert.ok(!lines.some((l) => l.startsWith("Requires=")), "a containerd restart must not stop us");
});

Deno.test("install: places binary, unit, config and directories with safe modes; idempotent", async () => {
  await withRoot(async (root, binary) => {
    const first = await run("install", ["--prefix", root], { execPath: binary });
    assert.equal(first.code, 0, first.err.join("\n"));
    await assertInstalled(root, binary);

    // An edited config survives a reinstall; loosened modes are put back.
    await Deno.writeTextFile(`${root}${LAYOUT.configFile}`, "# mine\n");
    await Deno.chmod(`${root}${LAYOUT.rootDir}`, 0o777);
    const second = await run("install", ["--prefix", root], { execPath: binary });
    assert.equal(second.code, 0, second.err.join("\n"));
    assert.equal(await Deno.readTextFile(`${root}${LAYOUT.configFile}`), "# mine\n");
    assert.equal(await mode(`${root}${LAYOUT.rootDir}`), 0o750);
  });
});

Deno.test("install --bin-dir: the unit runs the binary from there", async () => {
  await withRoot(async (root, binary) => {
    const r = await run("install", ["--prefix", root, "--bin-dir", "/opt/denolet/bin"], {
      execPath: binary,
    });
    assert.equal(r.code, 0, r.err.join("\n"));
    await Deno.stat(`${root}/opt/denolet/bin/denolet`);
    const unit = await Deno.readTextFile(`${root}${LAYOUT.unitFile}`);
    assert.match(unit, /^ExecStart=\/opt\/denolet\/bin\/denolet --config /m);
  });
});

Deno.test("uninstall: removes binary and unit, keeps pod data unless --purge", async () => {
  await withRoot(async (root, binary) => {
    assert.equal((await run("install", ["--prefix", root], { execPath: binary })).code, 0);
    await Deno.writeTextFile(`${root}${LAYOUT.manifestDir}/web.yaml`, "kind: Pod\n");
    assert.equal((await run("uninstall", ["--prefix", root])).code, 0);
    await assert.rejects(Deno.stat(`${root}${LAYOUT.unitFile}`), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(`${root}${LAYOUT.binDir}/denolet`), Deno.errors.NotFound);
    await Deno.stat(`${root}${LAYOUT.manifestDir}/web.yaml`);
    await Deno.stat(`${root}${LAYOUT.configFile}`);
    // Uninstalling twice is fine.
    assert.equal((await run("uninstall", ["--prefix", root])).code, 0);

    assert.equal((await run("uninstall", ["--prefix", root, "--purge"])).code, 0);
    for (const p of [LAYOUT.configDir, LAYOUT.manifestDir, LAYOUT.rootDir, LAYOUT.podLogsDir]) {
      await assert.rejects(Deno.stat(`${root}${p}`), Deno.errors.NotFound, p);
    }
  });
});

Deno.test("uninstall: removes what a packed binary unpacked, every build of it", async () => {
  await withRoot(async (root, binary) => {
    assert.equal((await run("install", ["--prefix", root], { execPath: binary })).code, 0);
    const unpacked = `${root}${LAYOUT.unpackDir}`;
    for (const build of ["0.1.0-aaaaaaa-111111111111", "0.1.0-bbbbbbb-222222222222"]) {
      await Deno.mkdir(`${unpacked}/${build}`, { recursive: true });
      await Deno.writeTextFile(`${unpacked}/${build}/denolet.js`, "// bundle\n");
    }
    const script = await run("uninstall", ["--prefix", root, "--script"]);
    assert.match(script.out.join("\n"), /else rm -fr '.*\/var\/cache\/denolet'; fi$/m);
    assert.equal((await run("uninstall", ["--prefix", root])).code, 0);
    await assert.rejects(Deno.stat(unpacked), Deno.errors.NotFound);
    await Deno.stat(`${root}${LAYOUT.configFile}`);
  });
});

Deno.test("install --script: the printed script does the same install under sh", async () => {
  await withRoot(async (root, binary) => {
    const r = await run("install", ["--prefix", root, "--script"], { execPath: binary });
    assert.equal(r.code, 0, r.err.join("\n"));
    const script = r.out.join("\n");
    await assert.rejects(Deno.stat(`${root}${LAYOUT.unitFile}`), "nothing written yet");
    for (let i = 0; i < 2; i++) {
      const sh = new Deno.Command("sh", { stdin: "piped", stdout: "null", stderr: "piped" })
        .spawn();
      const w = sh.stdin.getWriter();
      await w.write(new TextEncoder().encode(script));
      await w.close();
      const out = await sh.output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
    }
    await assertInstalled(root, binary);
  });
});

Deno.test("install from source without --binary refuses with a clear message", async () => {
  const r = await run("install", ["--prefix", "/tmp/x"], { compiled: false });
  assert.equal(r.code, 1);
  assert.match(r.err.join("\n"), /--binary dist\/denolet-<target>/);
  const bad = await run("install", ["--prefix", "relative"]);
  assert.equal(bad.code, 1);
  assert.match(bad.err.join("\n"), /--prefix must be absolute/);
  const unknown = await run("uninstall", ["--binary", "/x"]);
  assert.equal(unknown.code, 1);
});
