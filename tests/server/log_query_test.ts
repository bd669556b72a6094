/**
 * `/logs/?query=` end to end through the handler, on real files and a real journalctl process
 * (a script standing in for journalctl where no journal exists on this machine): upstream's file
 * lookup rules (os.Root), its service heuristics, journalctl's run, the output cap and cleanup.
 */
import assert from "node:assert/strict";
import { handleSystemLogs, type SystemLogsDeps } from "../../src/server/logs/mod.ts";
import { resolveInRoot } from "../../src/server/logs/_root.ts";
import { statusForError } from "../../src/server/_errors.ts";
import { FakeClock } from "../../src/util/clock.ts";

async function logDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-logquery-" });
  await Deno.mkdir(`${dir}/apt`);
  await Deno.writeTextFile(`${dir}/apt/history.log`, "installed\n");
  await Deno.writeTextFile(`${dir}/dpkg.log`, "dpkg\n");
  await Deno.symlink("apt/history.log", `${dir}/rel.log`);
  await Deno.symlink(`${dir}/apt/history.log`, `${dir}/abs.log`);
  await Deno.symlink("/etc/hostname", `${dir}/out.log`);
  return dir;
}

/** A journalctl stand-in: lists `units`, then prints its arguments and `body`. */
async function fakeJournalctl(dir: string, units: string[], body = ""): Promise<string> {
  const path = `${dir}/journalctl.sh`;
  await Deno.writeTextFile(
    path,
    `#!/bin/sh
if [ "$1" = "--field" ]; then printf '%s\\n' ${units.map((u) => `'${u}'`).join(" ")}; exit 0; fi
echo "journalctl $*"
${body}
`,
  );
  await Deno.chmod(path, 0o755);
  return path;
}

function deps(dir: string, journalctl = "/nonexistent/journalctl", cap?: number): SystemLogsDeps {
  return {
    logDir: dir,
    query: { clock: new FakeClock(), journalctl, outputCapBytes: cap },
  };
}

function get(path: string, headers: Record<string, string> = {}): [Request, string] {
  const url = new URL(path, "https://node:10250");
  return [new Request(url, { headers }), url.pathname.slice("/logs/".length)];
}

async function status(d: SystemLogsDeps, path: string): Promise<[number, string]> {
  try {
    const res = await handleSystemLogs(d, ...get(path));
    return [res.status, await res.text()];
  } catch (err) {
    return [statusForError(err), (err as Error).message];
  }
}

Deno.test("log query: files are looked up as Go's os.Root does", async () => {
  const dir = await logDir();
  try {
    assert.equal(await resolveInRoot(dir, "apt/history.log", "statat"), `${dir}/apt/history.log`);
    assert.equal(await resolveInRoot(dir, "rel.log", "statat"), `${dir}/apt/history.log`);
    assert.equal(
      await resolveInRoot(dir, "./apt//history.log", "statat"),
      `${dir}/apt/history.log`,
    );
    assert.equal(await resolveInRoot(dir, "apt/../dpkg.log", "statat"), `${dir}/dpkg.log`);
    const refused: Array<[string, string]> = [
      ["/dpkg.log", "statat /dpkg.log: path escapes from parent"],
      ["abs.log", "statat abs.log: path escapes from parent"],
      ["out.log", "statat out.log: path escapes from parent"],
      ["../x/dpkg.log", "statat ../x/dpkg.log: path escapes from parent"],
      ["nope/x.log", "statat nope/x.log: no such file or directory"],
      ["dpkg.log/", "statat dpkg.log/: not a directory"],
      ["sub\\a.log", "statat sub\\a.log: no such file or directory"],
    ];
    for (const [name, message] of refused) {
      await assert.rejects(resolveInRoot(dir, name, "statat"), { message }, name);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("log query: a file query serves the file; upstream's 400 and 406 answers", async () => {
  const dir = await logDir();
  try {
    const d = deps(dir);
    assert.deepEqual(await status(d, "/logs/?query=apt/history.log"), [200, "installed\n"]);
    // No slash: a service; not in the journal, so upstream's heuristics find /var/log/rel.log.
    assert.deepEqual(await status(d, "/logs/?query=rel.log"), [200, "installed\n"]);
    assert.deepEqual(await status(d, "/logs/?query=/dpkg.log"), [
      406,
      'query: Invalid value: ["/dpkg.log"]: statat /dpkg.log: path escapes from parent',
    ]);
    assert.deepEqual(await status(d, "/logs/?query=apt/nope.log"), [
      406,
      'query: Invalid value: ["apt/nope.log"]: statat apt/nope.log: no such file or directory',
    ]);
    assert.deepEqual(await status(d, "/logs/dpkg.log?query=a"), [
      406,
      "path not allowed in query mode",
    ]);
    assert.deepEqual(await status(d, "/logs/?tailLines=x&query=a"), [
      400,
      'tailLines: Invalid value: "x": strconv.Atoi: parsing "x": invalid syntax',
    ]);
    // No log query parameter: the plain file server, as without enableSystemLogQuery.
    assert.deepEqual(await status(d, "/logs/dpkg.log?foo=bar"), [200, "dpkg\n"]);
    // Without enableSystemLogQuery the query string is ignored.
    assert.deepEqual(await status({ logDir: dir }, "/logs/dpkg.log?query=a"), [200, "dpkg\n"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("log query: services not in the journal are found by upstream's file heuristics", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-logquery-" });
  try {
    const d = deps(dir, await fakeJournalctl(dir, ["kubelet.service"]));
    assert.deepEqual(await status(d, "/logs/?query=service.log"), [
      200,
      "\nlog not found for service.log\n",
    ]);
    assert.deepEqual(await status(d, "/logs/?query=service"), [
      200,
      "\nlog not found for service\n",
    ]);
    await Deno.writeTextFile(`${dir}/service.log`, "valid logs");
    assert.deepEqual(await status(d, "/logs/?query=service.log"), [200, "valid logs"]);
    assert.deepEqual(await status(d, "/logs/?query=service"), [200, "valid logs"]);
    // A directory named as the service is passed over; the first match wins.
    await Deno.mkdir(`${dir}/service`);
    await Deno.writeTextFile(`${dir}/service/service.log`, "error");
    assert.deepEqual(await status(d, "/logs/?query=service"), [200, "valid logs"]);
    await Deno.remove(`${dir}/service.log`);
    assert.deepEqual(await status(d, "/logs/?query=service"), [200, "error"]);
    assert.deepEqual(await status(d, "/logs/?query=.."), [
      200,
      "\nerror getting log for ..: openat ..: path escapes from parent\n",
    ]);
    // Options cannot apply to a file: upstream says so in the body.
    assert.deepEqual(await status(d, "/logs/?query=service&tailLines=5"), [
      200,
      "\noptions present and query resolved to log files for [service]\n" +
      "try without specifying options\n",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("log query: journald units go through journalctl with upstream's arguments", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-logquery-" });
  try {
    const units = ["kubelet.service", "containerd.service"];
    const d = deps(dir, await fakeJournalctl(dir, units, "echo 'No entries' >&2; exit 1"));
    const res = await handleSystemLogs(
      d,
      ...get("/logs/?query=kubelet&query=containerd&tailLines=5&boot=-1&pattern=err"),
    );
    assert.equal(res.headers.get("content-type"), "text/plain;charset=UTF-8");
    assert.equal(
      await res.text(),
      "journalctl --utc --no-pager --output=short-precise --pager-end --lines=5 " +
        "--unit=kubelet --unit=containerd --grep=err --boot -1\nNo entries\n",
    );
    // One unit in the journal, one only as a file: both, journal first.
    await Deno.writeTextFile(`${dir}/mine.log`, "from the file\n");
    assert.deepEqual(await status(d, "/logs/?query=kubelet&query=mine"), [
      200,
      "journalctl --utc --no-pager --output=short-precise --unit=kubelet\nNo entries\n" +
      "from the file\n",
    ]);
    // No journalctl at all: the current boot's query says the journal is not available.
    assert.deepEqual(await status(deps(dir), "/logs/?query=kubelet&tailLines=1"), [
      200,
      "\noptions present and query resolved to log files for [kubelet]\n" +
      "try without specifying options\n",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("log query: gzip when asked, output cut at the cap", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-logquery-" });
  try {
    const program = await fakeJournalctl(dir, ["big.service"], "yes line | head -c 100000");
    const res = await handleSystemLogs(
      deps(dir, program, 1000),
      ...get("/logs/?query=big", { "accept-encoding": "gzip" }),
    );
    assert.equal(res.headers.get("content-encoding"), "gzip");
    const text = await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text();
    assert.ok(text.startsWith("journalctl --utc"), text);
    assert.ok(
      text.endsWith("\nerror: journal output exceeds 1000 bytes, truncated\n"),
      text.slice(-80),
    );
    assert.equal(
      text.length,
      1000 + "\nerror: journal output exceeds 1000 bytes, truncated\n".length,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("log query: a reader that goes away stops journalctl", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-logquery-" });
  try {
    const program = await fakeJournalctl(
      dir,
      ["slow.service"],
      `trap 'echo terminated > ${dir}/why; kill $!; exit 143' TERM
echo $$ > ${dir}/pid; echo ready; sleep 60 & wait`,
    );
    const res = await handleSystemLogs(deps(dir, program), ...get("/logs/?query=slow"));
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes("ready\n")) {
      const { value, done } = await reader.read();
      assert.ok(!done, seen);
      seen += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const pid = Number(await Deno.readTextFile(`${dir}/pid`));
    // Terminated, and reaped by the time cancel resolves.
    assert.equal(await Deno.readTextFile(`${dir}/why`), "terminated\n");
    assert.throws(() => Deno.kill(pid, "SIGCONT"), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
