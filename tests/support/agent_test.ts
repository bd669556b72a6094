import assert from "node:assert/strict";
import { type AgentProcess, portsNamedIn, startAgent } from "./agent.ts";
import type { DevRuntime } from "./containerd.ts";

// The harness itself is tested against a stub agent, without containerd.
const STUB = new URL("./_stub_agent.ts", import.meta.url).pathname;
const runtime: DevRuntime = {
  endpoint: "unix:///nonexistent/containerd.sock",
  socket: "/nonexistent/containerd.sock",
  dir: "/nonexistent",
  sandboxImage: "denolet.test/pause:1.0",
  images: { busybox: "denolet.test/busybox:1.35", pause: "denolet.test/pause:1.0" },
  registryConfigDir: "/nonexistent/certs.d",
};

function start(extraArgs: string[] = []): Promise<AgentProcess> {
  return startAgent({ runtime, mainModule: STUB, extraArgs });
}

Deno.test("startAgent passes the kubelet flags and serves the read-only API", async () => {
  await using agent = await start();
  await agent.waitHealthy({ timeoutMs: 20_000 });
  const list = await agent.pods();
  assert.equal(list.kind, "PodList");
  assert.deepEqual(list.items, []);
  const log = await agent.logTail();
  for (
    const expected of [
      `--container-runtime-endpoint ${runtime.endpoint}`,
      `--pod-manifest-path ${agent.manifestDir}`,
      `--root-dir ${agent.rootDir}`,
      `--read-only-port ${agent.readOnlyPort}`,
      `--hostname-override ${agent.hostname}`,
      "--file-check-frequency 2s",
    ]
  ) {
    assert.ok(log.includes(expected), `missing ${expected} in:\n${log}`);
  }
  const status = await agent.stop();
  assert.equal(status.code, 0);
  assert.match(await agent.logTail(), /SIGTERM, shutting down/);
});

Deno.test("waitHealthy fails fast with the log tail when the agent exits", async () => {
  await using agent = await start(["--exit-now"]);
  await assert.rejects(agent.waitHealthy({ timeoutMs: 20_000 }), (err: Error) => {
    assert.match(err.message, /is not healthy/);
    assert.match(err.message, /stub agent args:/);
    return true;
  });
  assert.equal((await agent.exited).code, 3);
});

Deno.test("each agent gets its own hostname, port and directories", async () => {
  await using a = await start(["--exit-now"]);
  await using b = await start(["--exit-now"]);
  assert.notEqual(a.hostname, b.hostname);
  assert.notEqual(a.rootDir, b.rootDir);
  assert.notEqual(a.manifestDir, b.manifestDir);
  assert.ok((await Deno.stat(a.manifestDir)).isDirectory);
  await a.exited;
  await b.exited;
});

Deno.test("a program beside a deno_dir/ runs with it as DENO_DIR, as the package's header runs it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-stub-" });
  try {
    const main = `${dir}/denolet.ts`;
    await Deno.copyFile(STUB, main);
    {
      await using plain = await startAgent({
        runtime,
        mainModule: main,
        extraArgs: ["--exit-now"],
      });
      await plain.exited;
      assert.doesNotMatch(await plain.logTail(), new RegExp(`DENO_DIR=${dir}/deno_dir`));
    }
    await Deno.mkdir(`${dir}/deno_dir`);
    await using own = await startAgent({ runtime, mainModule: main, extraArgs: ["--exit-now"] });
    await own.exited;
    assert.match(await own.logTail(), new RegExp(`stub agent DENO_DIR=${dir}/deno_dir$`, "m"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stop sends SIGKILL when the agent ignores SIGTERM", async () => {
  await using agent = await start(["--ignore-sigterm"]);
  await agent.waitHealthy({ timeoutMs: 20_000 });
  const status = await agent.stop({ timeoutMs: 500 });
  assert.equal(status.signal, "SIGKILL");
  assert.match(await agent.logTail(), /ignoring SIGTERM/);
});

Deno.test("portsNamedIn finds the ports other listeners were given", () => {
  assert.deepEqual(
    portsNamedIn(["--port", "10250", "--healthz-port=10248", "--kubeconfig", "k", "--port", "x"]),
    [10250, 10248],
  );
  assert.deepEqual(portsNamedIn(["--port"]), []);
});
