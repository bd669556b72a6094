import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { createCriClient, type CriClient } from "../../src/cri/mod.ts";
import {
  DenoletError,
  findCause,
  isKind,
  NotFoundError,
  RuntimeUnavailableError,
} from "../../src/util/errors.ts";
import { realClock } from "../../src/util/clock.ts";
import { grpcError, startTestServer, type TestServer } from "./_server.ts";

const TIMEOUT_MS = 2000;

/** Runs `fn` against a fresh server and client, closing both afterwards. */
function withServer(
  name: string,
  fn: (s: TestServer, c: CriClient, calls: [string, number, unknown][]) => Promise<void>,
) {
  Deno.test(name, async () => {
    const server = await startTestServer();
    const calls: [string, number, unknown][] = [];
    const client = createCriClient(server.endpoint, {
      timeoutMs: TIMEOUT_MS,
      onCall: (m, ms, err) => calls.push([m, ms, err]),
    });
    try {
      await fn(server, client, calls);
    } finally {
      client.close();
      await server.close();
    }
  });
}

/** Seconds between now and a server-side deadline (Infinity when there is none). */
function secondsLeft(deadline: Date | number): number {
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return (at - Date.now()) / 1000;
}

withServer("cri client converts responses to the plain types", async (server, client) => {
  server.handlers.Version = (req) => ({
    version: req.version,
    runtimeName: "test",
    runtimeVersion: "1.0",
    runtimeApiVersion: "v1",
  });
  server.handlers.PodSandboxStatus = (req) => ({
    status: {
      id: req.podSandboxId,
      metadata: { name: "p", uid: "u", namespace: "ns", attempt: 1 },
      state: "SANDBOX_NOTREADY",
      createdAt: 1_700_000_000_123_456_789,
      labels: { a: "b" },
    },
  });
  server.handlers.ImageStatus = () => ({});
  server.handlers.ExecSync = () => ({ stdout: Buffer.from("ok\n"), exitCode: 2 });

  assert.deepEqual(await client.runtime.version(), {
    version: "0.1.0",
    runtimeName: "test",
    runtimeVersion: "1.0",
    runtimeApiVersion: "v1",
  });
  const st = await client.runtime.podSandboxStatus("sb1");
  assert.equal(st.id, "sb1");
  assert.equal(st.state, "SANDBOX_NOTREADY");
  assert.equal(st.metadata.attempt, 1);
  assert.ok(Math.abs(st.createdAt - 1_700_000_000_123_456_789) < 1000);
  assert.deepEqual(st.labels, { a: "b" });
  assert.deepEqual(st.annotations, {});
  assert.equal("network" in st, false, "unset sub-messages are omitted");
  assert.equal(await client.image.imageStatus({ image: "missing:1" }), undefined);
  const exec = await client.runtime.execSync("c1", ["echo", "ok"], 5);
  assert.equal(Object.getPrototypeOf(exec.stdout), Uint8Array.prototype);
  assert.equal(new TextDecoder().decode(exec.stdout), "ok\n");
  assert.equal(exec.stderr.length, 0);
  assert.equal(exec.exitCode, 2);
});

withServer("cri client sends requests in proto field names", async (server, client) => {
  server.handlers.RunPodSandbox = () => ({ podSandboxId: "sb1" });
  server.handlers.ListContainers = () => ({ containers: [] });
  const id = await client.runtime.runPodSandbox({
    metadata: { name: "p", uid: "u", namespace: "ns", attempt: 0 },
    logDirectory: "/var/log/pods/ns_p_u",
    portMappings: [{ protocol: "UDP", containerPort: 53, hostPort: 5353, hostIp: "" }],
    linux: {
      securityContext: { namespaceOptions: { network: "NODE", pid: "CONTAINER", ipc: "POD" } },
    },
  }, "runc");
  assert.equal(id, "sb1");
  await client.runtime.listContainers({
    podSandboxId: "sb1",
    state: { state: "CONTAINER_RUNNING" },
  });
  const run = server.seen[0].request as {
    config: { logDirectory: string; portMappings: { protocol: string }[]; linux: unknown };
    runtimeHandler: string;
  };
  assert.equal(run.runtimeHandler, "runc");
  assert.equal(run.config.logDirectory, "/var/log/pods/ns_p_u");
  assert.equal(run.config.portMappings[0].protocol, "UDP");
  const list = server.seen[1].request as {
    filter: { podSandboxId: string; state: { state: string } };
  };
  assert.equal(list.filter.podSandboxId, "sb1");
  assert.equal(list.filter.state.state, "CONTAINER_RUNNING");
});

withServer(
  "cri client maps NOT_FOUND to NotFoundError with the gRPC error as cause",
  async (server, client) => {
    server.handlers.ContainerStatus = () => {
      throw grpcError(
        grpc.status.NOT_FOUND,
        'an error occurred when try to find container "x": not found',
      );
    };
    const err = await client.runtime.containerStatus("x").then(() => undefined, (e) => e);
    assert.ok(err instanceof NotFoundError);
    assert.match(err.message, /^CRI ContainerStatus failed: an error occurred/);
    assert.equal((err.cause as grpc.ServiceError).code, grpc.status.NOT_FOUND);
  },
);

withServer(
  "cri client maps UNAVAILABLE to RuntimeUnavailableError and others to DenoletError",
  async (server, client) => {
    server.handlers.Status = () => {
      throw grpcError(grpc.status.UNAVAILABLE, "shutting down");
    };
    server.handlers.StartContainer = () => {
      throw grpcError(grpc.status.UNKNOWN, "failed to create shim task: OCI runtime create failed");
    };
    await assert.rejects(client.runtime.status(), (e) => isKind(e, RuntimeUnavailableError));
    const err = await client.runtime.startContainer("c1").then(() => undefined, (e) => e);
    assert.ok(err instanceof DenoletError);
    assert.equal(isKind(err, NotFoundError) || isKind(err, RuntimeUnavailableError), false);
    assert.equal(
      err.message,
      "CRI StartContainer failed: failed to create shim task: OCI runtime create failed",
    );
  },
);

withServer(
  "cri client reports each call to onCall with its latency and error",
  async (server, client, calls) => {
    server.handlers.Version = () => ({});
    await client.runtime.version();
    await client.runtime.stopPodSandbox("x").catch((e) => assert.ok(e instanceof DenoletError));
    assert.deepEqual(calls.map(([m, , e]) => [m, e === undefined]), [
      ["Version", true],
      ["StopPodSandbox", false],
    ]);
    assert.ok(calls.every(([, ms]) => ms >= 0));
  },
);

withServer(
  "cri client deadlines: default, per-call override, stop/exec extension, none for pulls",
  async (server, client) => {
    for (const rpc of ["Version", "StopContainer", "ExecSync", "PullImage"]) {
      server.handlers[rpc] = () => ({});
    }
    await client.runtime.version();
    await client.runtime.version({ timeoutMs: 30_000 });
    await client.runtime.stopContainer("c1", 10);
    await client.runtime.execSync("c1", ["true"], 20);
    await client.runtime.execSync("c1", ["true"], 0);
    await client.image.pullImage({ image: "busybox" });
    const left = server.seen.map((s) => secondsLeft(s.deadline));
    const near = (got: number, want: number) => Math.abs(got - want) < 1.5;
    assert.ok(near(left[0], 2), `default ${left[0]}`);
    assert.ok(near(left[1], 30), `override ${left[1]}`);
    assert.ok(near(left[2], 12), `stop ${left[2]}`);
    assert.equal((server.seen[2].request as { timeout: number }).timeout, 10);
    assert.ok(near(left[3], 22), `exec ${left[3]}`);
    assert.equal(left[4], Infinity);
    assert.equal(left[5], Infinity);
  },
);

withServer("cri client: a deadline cancels a hung call", async (server, client) => {
  const cancelled = Promise.withResolvers<void>();
  server.handlers.ListPodSandbox = (_req, call) =>
    new Promise((resolve) => call.on("cancelled", () => (cancelled.resolve(), resolve({}))));
  const err = await client.runtime.listPodSandbox(undefined, { timeoutMs: 50 }).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(err instanceof DenoletError);
  assert.equal((err.cause as grpc.ServiceError).code, grpc.status.DEADLINE_EXCEEDED);
  assert.match(err.message, /^CRI ListPodSandbox failed: Deadline exceeded/);
  await cancelled.promise; // the server saw the cancellation
});

withServer(
  "cri client: aborting the signal cancels the RPC and rejects with the reason",
  async (server, client) => {
    const cancelled = Promise.withResolvers<void>();
    const started = Promise.withResolvers<void>();
    server.handlers.StopContainer = (_req, call) =>
      new Promise((resolve) => {
        call.on("cancelled", () => (cancelled.resolve(), resolve({})));
        started.resolve();
      });
    const ac = new AbortController();
    const p = client.runtime.stopContainer("c1", 30, { signal: ac.signal });
    await started.promise;
    const reason = new Error("pod deleted");
    ac.abort(reason);
    await assert.rejects(p, (e) => e === reason);
    await cancelled.promise;
    const pre = AbortSignal.abort(reason);
    await assert.rejects(client.runtime.version({ signal: pre }), (e) => e === reason);
    assert.equal(server.seen.length, 1, "an already-aborted call is not sent");
  },
);

Deno.test("cri client: a missing socket maps to RuntimeUnavailableError quickly", async () => {
  const dir = await Deno.makeTempDir();
  const client = createCriClient(`${dir}/nope.sock`, { timeoutMs: 10_000 });
  try {
    const t0 = performance.now();
    const err = await client.runtime.version().then(() => undefined, (e) => e);
    assert.ok(findCause(err, RuntimeUnavailableError), String(err));
    assert.match(err.message, /^CRI Version failed: /);
    assert.ok(performance.now() - t0 < 2000, "fails fast instead of waiting for the deadline");
    await assert.rejects(client.image.listImages(), (e) => isKind(e, RuntimeUnavailableError));
  } finally {
    client.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cri client reconnects within seconds after the runtime restarts", async () => {
  const dir = await Deno.makeTempDir();
  const socket = `${dir}/cri.sock`;
  const version = () => ({ runtimeName: "test" });
  let server = await startTestServer({ socket });
  server.handlers.Version = version;
  const client = createCriClient(`unix://${socket}`, { timeoutMs: 5000 });
  try {
    await client.runtime.version();
    await server.close();
    await assert.rejects(client.runtime.version(), (e) => isKind(e, RuntimeUnavailableError));
    // Let the channel fail a reconnect attempt or two, as during a real restart.
    await realClock.sleep(300);
    server = await startTestServer({ socket });
    server.handlers.Version = version;
    const t0 = realClock.now();
    let up = false;
    while (!up && realClock.now() - t0 < 5000) {
      up = await client.runtime.version().then(() => true, (e) => {
        assert.ok(isKind(e, RuntimeUnavailableError), String(e));
        return realClock.sleep(50).then(() => false);
      });
    }
    const took = realClock.now() - t0;
    assert.ok(up && took < 2500, `reconnected after ${took}ms`);
  } finally {
    client.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cri client: calls after close fail with RuntimeUnavailableError, not a throw", async () => {
  const server = await startTestServer();
  const client = createCriClient(server.endpoint, { timeoutMs: 1000 });
  try {
    client.close();
    client.close();
    const p = client.runtime.execSync("c1", ["true"], 0);
    await assert.rejects(
      p,
      (e) =>
        isKind(e, RuntimeUnavailableError) && /^CRI ExecSync failed/.test((e as Error).message),
    );
  } finally {
    await server.close();
  }
});
