import assert from "node:assert/strict";
import { guardUnhandledRejections } from "../main.ts";
import { createLogger } from "../src/util/log.ts";
import { realClock } from "../src/util/clock.ts";
import { AGENT_V8_FLAGS, renderBuildInfo } from "../src/build_info/mod.ts";
import { copySources } from "./support/compile.ts";

Deno.test("main's guard logs an unhandled rejection instead of ending the process", async () => {
  const lines: string[] = [];
  const remove = guardUnhandledRejections(createLogger({ write: (l) => lines.push(l) }));
  try {
    // Deliberately left unhandled: without the guard, Deno fails this test (and exits an agent).
    void Promise.reject(new Error("a bug somewhere"));
    await realClock.sleep(0);
    await realClock.sleep(0);
  } finally {
    remove();
  }
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.match(lines[0], /level=error msg="Unhandled promise rejection; carrying on"/);
  assert.match(lines[0], /a bug somewhere/);
});

Deno.test("a --version run leaves V8's code cache for the program (the agent's first start uses it)", async () => {
  // A fresh copy: its path is a specifier the cache has never seen.
  const dir = await Deno.makeTempDir({ prefix: "denolet-code-cache-" });
  try {
    await copySources(dir, renderBuildInfo({ commit: "test", compiled: false }));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `--v8-flags=${AGENT_V8_FLAGS}`, `${dir}/main.ts`, "--version"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.match(new TextDecoder().decode(out.stdout), /^denolet v/);
    // Deno keeps the cache in SQLite under its DENO_DIR; a row's key is the module's URL.
    const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
    const denoDir = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir as string;
    let bytes = "";
    for (const f of ["v8_code_cache_v2", "v8_code_cache_v2-wal"]) {
      bytes += await Deno.readFile(`${denoDir}/${f}`).then(
        (b) => new TextDecoder("latin1").decode(b),
        () => "",
      );
    }
    assert.ok(bytes.includes(`file://${dir}/main.ts`), "no code cache entry for main.ts");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
