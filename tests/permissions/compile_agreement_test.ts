/** `deno task compile` bakes exactly the set src/permissions defines, for the install layout. */
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/mod.ts";
import { defaultConfigYaml, LAYOUT } from "../../src/install/mod.ts";
import { permissionFlags } from "../../src/permissions/mod.ts";
import {
  bakedPermissionFlags,
  checkDenort,
  compileArgs,
  parseCompileArgs,
  TARGETS,
} from "../support/compile.ts";

async function installLayoutFlags(opts = {}): Promise<string[]> {
  const r = await loadConfig(["--config", LAYOUT.configFile], {
    readFile: () => Promise.resolve(defaultConfigYaml()),
    hostname: () => "any",
  });
  if (r.kind !== "run") throw new Error("not a run");
  return permissionFlags(r.config, { ...opts, configFile: LAYOUT.configFile });
}

Deno.test("compile: bakes permissionFlags of the install layout by default", async () => {
  const baked = await bakedPermissionFlags([]);
  assert.deepEqual(baked, await installLayoutFlags());
  // Stats and QoS cgroups read /proc and /sys, which Deno grants only with --allow-all.
  assert.deepEqual(baked, ["--allow-all"]);
});

Deno.test("compile: the deno compile command carries the flags, proto/ and deno.json", () => {
  const flags = ["--allow-read=/x", "--allow-net=unix:/s"];
  const args = compileArgs({
    dir: "/tmp/c",
    target: TARGETS[1],
    out: "/o/d",
    permissionFlags: flags,
  });
  assert.equal(args[0], "compile");
  for (const f of flags) assert.ok(args.includes(f));
  assert.ok(!args.includes("--allow-all") && !args.includes("-A"));
  const includes = args.flatMap((a, i) => a === "--include" ? [args[i + 1]] : []);
  assert.deepEqual(includes, ["/tmp/c/proto", "/tmp/c/deno.json"]);
  assert.equal(args.at(-1), "/tmp/c/main.ts");
  assert.equal(args[args.indexOf("--target") + 1], "aarch64-unknown-linux-gnu");
});

Deno.test("compile: agent flags and permission options change what is baked", async () => {
  const req = parseCompileArgs([
    "x86_64-unknown-linux-gnu",
    "--probe-networks",
    "10.42.0.0/16",
    "--host-path",
    "/srv",
    "--",
    "--root-dir",
    "/data/kubelet",
  ]);
  assert.deepEqual(req.targets, ["x86_64-unknown-linux-gnu"]);
  assert.deepEqual(req.agentArgs, ["--root-dir", "/data/kubelet"]);
  const baked = await bakedPermissionFlags(req.agentArgs, req.permissionOptions);
  const r = await loadConfig(req.agentArgs, { hostname: () => "x" });
  if (r.kind !== "run") throw new Error("not a run");
  assert.deepEqual(baked, permissionFlags(r.config, req.permissionOptions));
  assert.throws(() => parseCompileArgs(["riscv64"]), /unknown target/);
});

Deno.test("compile: DENORT_BIN naming a missing file is a clear error", async () => {
  const before = Deno.env.get("DENORT_BIN");
  try {
    Deno.env.set("DENORT_BIN", "/nonexistent/denort");
    assert.match(await checkDenort(TARGETS.slice(0, 1)) ?? "", /does not exist/);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("../support/compile.ts", import.meta.url).pathname, TARGETS[0]],
      env: { DENORT_BIN: "/nonexistent/denort", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1);
    assert.match(err, /^compile: DENORT_BIN=\/nonexistent\/denort does not exist/);
    assert.doesNotMatch(err, /^\s+at /m, "no stack trace");
  } finally {
    if (before === undefined) Deno.env.delete("DENORT_BIN");
    else Deno.env.set("DENORT_BIN", before);
  }
});
