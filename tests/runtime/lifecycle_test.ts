import assert from "node:assert/strict";
import type { V1Container, V1ContainerPort, V1HTTPGetAction, V1Pod } from "@kubernetes/client-node";
import type { CallOptions, ExecSyncResponse } from "../../src/cri/types.ts";
import { containerAnnotations, containerLabels } from "../../src/runtime/_labels.ts";
import { type KillDeps, killPod, stopContainer } from "../../src/runtime/_kill.ts";
import {
  type HookDeps,
  LifecycleHookError,
  runLifecycleHook,
  runPreStopHook,
} from "../../src/runtime/_lifecycle.ts";
import { ImagePuller } from "../../src/runtime/_image_puller.ts";
import { startContainer, type StartDeps } from "../../src/runtime/_start.ts";
import type { RunningPod, RuntimePodStatus } from "../../src/runtime/types.ts";
import { Backoff } from "../../src/util/backoff.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger, nullLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";
import { fetchControl, runWithDeadProxy, startServers } from "../prober/_http_fixtures.ts";

const S = 1000;
const IMAGE = "busybox:1.36";
const encode = (s: string) => new TextEncoder().encode(s);

/** FakeRuntime whose ExecSync may take time: `execWork` decides when it answers. */
class SlowExecRuntime extends FakeRuntime {
  execWork?: (cmd: string[], signal?: AbortSignal) => Promise<ExecSyncResponse>;
  override execSync(id: string, cmd: string[], timeout: number, opts?: CallOptions) {
    const work = this.execWork;
    if (!work) return super.execSync(id, cmd, timeout, opts);
    return super.execSync(id, cmd, timeout, opts).then(() => work(cmd, opts?.signal));
  }
}

/** Lets pending calls reach their timers before time moves (the fake CRI answers async). */
async function settle(clock: FakeClock): Promise<void> {
  for (let i = 0; i < 5; i++) await clock.advance(0);
}

function makePod(container: Partial<V1Container> = {}, grace = 30): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "uid-1" },
    spec: {
      nodeName: "node1",
      terminationGracePeriodSeconds: grace,
      containers: [{ name: "app", image: IMAGE, ...container }],
    },
  };
}

/** A running container "app" of `pod` in a ready sandbox with IP 10.85.0.x. */
async function runningContainer(cri: FakeRuntime, pod: V1Pod) {
  cri.addImage(IMAGE);
  const m = pod.metadata!;
  const sandboxConfig = {
    metadata: { name: m.name!, namespace: m.namespace!, uid: m.uid!, attempt: 0 },
    labels: { "io.kubernetes.pod.uid": m.uid! },
  };
  const sandboxId = await cri.runPodSandbox(sandboxConfig);
  const container = pod.spec!.containers[0];
  const id = await cri.createContainer(sandboxId, {
    metadata: { name: container.name, attempt: 0 },
    image: { image: IMAGE },
    labels: containerLabels(pod, container),
    annotations: containerAnnotations(pod, container, 0),
  }, sandboxConfig);
  await cri.startContainer(id);
  const ip = (await cri.podSandboxStatus(sandboxId)).network?.ip ?? "";
  return { sandboxId, id, ip, sandboxConfig };
}

function hookTarget(pod: V1Pod, id: string, ip = "10.85.0.9") {
  return {
    pod: pod.metadata!,
    container: pod.spec!.containers[0],
    containerId: id,
    podIP: () => Promise.resolve(ip),
  };
}

function isRunning(cri: FakeRuntime, id: string): boolean {
  return cri.containers.get(id)?.status.state === "CONTAINER_RUNNING";
}

Deno.test("exec hook runs the command through ExecSync without a deadline", async () => {
  const cri = new FakeRuntime();
  const pod = makePod();
  const { id } = await runningContainer(cri, pod);
  const handler = { exec: { command: ["sh", "-c", "touch /ok"] } };
  await runLifecycleHook({ runtime: cri }, handler, hookTarget(pod, id));
  const [call] = cri.callsTo("execSync");
  assert.deepEqual(call.slice(0, 3), [id, ["sh", "-c", "touch /ok"], 0]);
});

Deno.test("exec hook failure carries the upstream message with exit code and output", async () => {
  const cri = new FakeRuntime();
  const pod = makePod();
  const { id } = await runningContainer(cri, pod);
  cri.execHandler = () => ({ stdout: encode("out;"), stderr: encode("boom"), exitCode: 3 });
  const err = await runLifecycleHook(
    { runtime: cri },
    { exec: { command: ["false"] } },
    hookTarget(pod, id),
  ).then(() => undefined, (e) => e);
  assert.ok(err instanceof LifecycleHookError);
  assert.equal(
    err.message,
    'Exec lifecycle hook ([false]) for Container "app" in Pod "web_default(uid-1)" failed - ' +
      "error: command 'false' exited with 3: boom, message: \"out;boom\"",
  );
});

/** Runs an httpGet hook against the local test servers; resolves with the error, if any. */
function runHttpHook(
  action: V1HTTPGetAction,
  opts: { ip?: string; ports?: V1ContainerPort[]; deps?: Partial<HookDeps> } = {},
): Promise<Error | undefined> {
  const pod = makePod({ ports: opts.ports });
  const deps = { runtime: new FakeRuntime(), clock: new FakeClock(), ...opts.deps };
  return runLifecycleHook(deps, { httpGet: action }, hookTarget(pod, "c1", opts.ip)).then(
    () => undefined,
    (e) => e,
  );
}

Deno.test("httpGet hook: any status counts; headers, kube-lifecycle agent, named port, pod IP", async () => {
  const srv = await startServers();
  try {
    const err = await runHttpHook({
      port: "web",
      path: "/fail?x=1",
      httpHeaders: [{ name: "X-Token", value: "t" }],
    }, { ip: "127.0.0.1", ports: [{ name: "web", containerPort: srv.httpPort }] });
    assert.equal(err, undefined, "upstream hooks fail on transport errors only, not on a 500");
    const [hit] = srv.hits;
    assert.equal(hit.path, "/fail?x=1");
    assert.equal(hit.headers.get("x-token"), "t");
    assert.equal(hit.headers.get("accept"), "*/*");
    assert.match(hit.headers.get("user-agent") ?? "", /^kube-lifecycle\/\d+\.\d+$/);
  } finally {
    await srv.close();
  }
});

Deno.test("httpGet hook: HTTPS unverified, Host header honoured, same-host redirects only", async () => {
  const srv = await startServers();
  try {
    const https = { scheme: "HTTPS", port: srv.httpsPort, host: "127.0.0.1" } as const;
    assert.equal(
      await runHttpHook({
        ...https,
        path: "/ok",
        httpHeaders: [{ name: "Host", value: "app.test" }],
      }),
      undefined,
    );
    assert.equal(srv.hits[0].tls, true);
    assert.equal(srv.hits[0].headers.get("host"), "app.test");
    for (const port of [srv.httpPort, srv.httpsPort]) {
      const scheme = port === srv.httpsPort ? "HTTPS" : "HTTP";
      srv.hits.length = 0;
      assert.equal(
        await runHttpHook({ scheme, port, host: "127.0.0.1", path: "/same" }),
        undefined,
      );
      assert.deepEqual(srv.hits.map((h) => h.path), ["/same", "/ok?via=same"]);
      // Another host ends the chain: the 3xx is the answer, which a hook takes as delivered.
      assert.equal(
        await runHttpHook({ scheme, port, host: "127.0.0.1", path: "/away" }),
        undefined,
      );
      const loop = await runHttpHook({ scheme, port, host: "127.0.0.1", path: "/loop" });
      assert.ok(loop instanceof LifecycleHookError);
      assert.match(loop.message, /stopped after 10 redirects/);
    }
    assert.deepEqual(srv.stolen, [], "a redirect to another host is never followed");
  } finally {
    await srv.close();
  }
});

Deno.test("httpGet hook: an HTTPS hook that a plain-HTTP server answers is retried over HTTP", async () => {
  const srv = await startServers();
  try {
    const lines: string[] = [];
    const pod = makePod();
    await runLifecycleHook(
      { runtime: new FakeRuntime(), clock: new FakeClock() },
      {
        httpGet: {
          scheme: "HTTPS",
          port: srv.httpPort,
          path: "/ok",
          httpHeaders: [{ name: "Authorization", value: "Bearer x" }, { name: "X-K", value: "v" }],
        },
      },
      {
        ...hookTarget(pod, "c1", "127.0.0.1"),
        logger: createLogger({ write: (l) => lines.push(l) }),
      },
    );
    assert.equal(srv.hits.length, 1);
    assert.equal(srv.hits[0].headers.get("authorization"), null);
    assert.equal(srv.hits[0].headers.get("x-k"), "v");
    assert.ok(lines.some((l) => l.includes("LifecycleHTTPFallback")), lines.join("\n"));
  } finally {
    await srv.close();
  }
});

Deno.test("httpGet hook: proxy variables are ignored (they point at a dead port)", async () => {
  const srv = await startServers();
  try {
    const lifecycle = new URL("../../src/runtime/_lifecycle.ts", import.meta.url).href;
    const out = await runWithDeadProxy(`
      import { runLifecycleHook } from ${JSON.stringify(lifecycle)};
      const target = {
        pod: { name: "web" },
        container: { name: "app", ports: [{ name: "web", containerPort: ${srv.httpPort} }] },
        containerId: "c1",
        podIP: () => Promise.resolve("127.0.0.1"),
      };
      for (const httpGet of [
        { port: "web", path: "/ok" },
        { port: ${srv.httpsPort}, scheme: "HTTPS", path: "/ok" },
      ]) {
        await runLifecycleHook({ runtime: {}, httpTimeoutMs: 10000 }, { httpGet }, target)
          .then(() => console.log("delivered"), (e) => console.log(e.message));
      }
      ${fetchControl(`http://127.0.0.1:${srv.httpPort}/ok`)}
    `);
    assert.deepEqual(out.trim().split("\n"), ["delivered", "delivered", "fetch-blocked"]);
    assert.equal(srv.hits.length, 2);
  } finally {
    await srv.close();
  }
});

Deno.test("httpGet hook: a transport error fails with the upstream message; unknown port too", async () => {
  const l = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  const refused = await runHttpHook({ port, path: "/started" }, { ip: "127.0.0.1" });
  assert.ok(refused instanceof LifecycleHookError);
  assert.ok(
    refused.message.startsWith(
      `HTTP lifecycle hook (/started) for Container "app" in Pod "web_default(uid-1)" failed - ` +
        `error: Get "http://127.0.0.1:${port}/started": `,
    ),
    refused.message,
  );
  const unknown = await runHttpHook({ port: "nope" });
  assert.ok(unknown instanceof LifecycleHookError);
  assert.match(unknown.message, /container "app" has no port of that name/);
});

Deno.test("httpGet hook: an explicit host wins, no IP at all fails, a hung server times out", async () => {
  const srv = await startServers();
  const clock = new FakeClock();
  const deps = { runtime: new FakeRuntime(), clock, httpTimeoutMs: 5 * S };
  const pod = makePod();
  try {
    // The pod IP is unroutable (TEST-NET): only the explicit host can answer.
    await runLifecycleHook(
      deps,
      { httpGet: { host: "127.0.0.1", port: srv.httpPort, path: "/ok" } },
      hookTarget(pod, "c", "192.0.2.1"),
    );
    assert.deepEqual(srv.hits.map((h) => h.path), ["/ok"]);
    await assert.rejects(
      runLifecycleHook(deps, { httpGet: { port: 81 } }, {
        ...hookTarget(pod, "c"),
        podIP: () => Promise.resolve(undefined),
      }),
      /failed to find networking container/,
    );
    const hung = runLifecycleHook(
      deps,
      { httpGet: { port: srv.httpPort, path: "/hang" } },
      hookTarget(pod, "c", "127.0.0.1"),
    );
    const result = hung.then(() => "resolved", (e: Error) => e.message);
    await srv.arrived("/hang");
    await clock.advance(5 * S);
    assert.match(await result, /did not answer within 5s/);
    assert.equal(clock.pendingTimers, 0);
  } finally {
    await srv.close();
  }
});

Deno.test("sleep hook waits on the clock and stops when aborted", async () => {
  const clock = new FakeClock();
  const deps = { runtime: new FakeRuntime(), clock };
  const pod = makePod();
  let done = false;
  const p = runLifecycleHook(deps, { sleep: { seconds: 3 } }, hookTarget(pod, "c")).then(() => {
    done = true;
  });
  await clock.advance(2 * S);
  assert.equal(done, false);
  await clock.advance(1 * S);
  await p;
  assert.equal(done, true);

  const ac = new AbortController();
  const aborted = runLifecycleHook(deps, { sleep: { seconds: 30 } }, {
    ...hookTarget(pod, "c"),
    signal: ac.signal,
  });
  ac.abort(new Error("sync cancelled"));
  await assert.rejects(aborted, /sync cancelled/);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("a handler of no known kind is an error", async () => {
  await assert.rejects(
    runLifecycleHook({ runtime: new FakeRuntime() }, { tcpSocket: { port: 80 } }, {
      ...hookTarget(makePod(), "c"),
    }),
    /Cannot run handler: invalid handler/,
  );
});

Deno.test("runPreStopHook returns the seconds used and cuts a handler at the grace period", async () => {
  const clock = new FakeClock();
  const lines: string[] = [];
  const logger = createLogger({ write: (l) => lines.push(l), now: () => clock.now() });
  const deps = { runtime: new FakeRuntime(), clock };
  const pod = makePod();
  const quick = runPreStopHook(deps, { sleep: { seconds: 3 } }, {
    ...hookTarget(pod, "c"),
    gracePeriodSeconds: 10,
    logger,
  });
  await clock.advance(3 * S);
  assert.equal(await quick, 3);

  const long = runPreStopHook(deps, { sleep: { seconds: 60 } }, {
    ...hookTarget(pod, "c"),
    gracePeriodSeconds: 5,
    logger,
  });
  await clock.advance(5 * S);
  assert.equal(await long, 5);
  assert.equal(clock.pendingTimers, 0, "the cut handler's sleep is cancelled");
  assert.ok(lines.some((l) => l.includes("PreStop hook not completed in grace period")));
});

function killDeps(cri: FakeRuntime, clock: FakeClock, lines: string[] = []): KillDeps {
  return {
    runtime: cri,
    clock,
    logger: createLogger({ write: (l) => lines.push(l), now: () => clock.now() }),
    runtimeRequestTimeoutMs: 120 * S,
  };
}

Deno.test("stopContainer runs preStop first and takes its time off the grace period", async () => {
  const clock = new FakeClock();
  const cri = new SlowExecRuntime({ clock });
  const pod = makePod({ lifecycle: { preStop: { exec: { command: ["drain"] } } } }, 10);
  const { id } = await runningContainer(cri, pod);
  cri.execWork = async (_cmd, signal) => {
    await clock.sleep(3 * S, { signal });
    return { stdout: new Uint8Array(), stderr: new Uint8Array(), exitCode: 0 };
  };
  // No spec given: the hook is read back from the container's annotations.
  const stop = stopContainer(killDeps(cri, clock), id, { gracePeriodSeconds: 10, name: "app" });
  await settle(clock);
  await clock.advance(3 * S);
  await stop;
  assert.deepEqual(cri.callsTo("execSync").map((c) => c[1]), [["drain"]]);
  assert.equal(cri.callsTo("stopContainer")[0][1], 7);
  assert.equal(isRunning(cri, id), false);
});

Deno.test("a preStop past the grace period is aborted and the stop keeps the 2s minimum", async () => {
  const clock = new FakeClock();
  const cri = new SlowExecRuntime({ clock });
  const pod = makePod({ lifecycle: { preStop: { exec: { command: ["sleep", "600"] } } } }, 4);
  const { id } = await runningContainer(cri, pod);
  let execSignal: AbortSignal | undefined;
  cri.execWork = async (_cmd, signal) => {
    execSignal = signal;
    await clock.sleep(600 * S, { signal });
    return { stdout: new Uint8Array(), stderr: new Uint8Array(), exitCode: 0 };
  };
  const [rp] = await runningPods(cri);
  const kill = killPod(killDeps(cri, clock), pod, rp, {});
  await settle(clock);
  await clock.advance(4 * S);
  await kill;
  assert.equal(execSignal?.aborted, true, "the ExecSync RPC is cancelled at the deadline");
  assert.equal(cri.callsTo("stopContainer")[0][1], 2);
  assert.equal(isRunning(cri, id), false);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("killPod: force deletion (override 0) skips preStop; orphans run it from annotations", async () => {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const pod = makePod({ lifecycle: { preStop: { exec: { command: ["bye"] } } } }, 5);
  await runningContainer(cri, pod);
  const [rp] = await runningPods(cri);
  await killPod(killDeps(cri, clock), pod, rp, { gracePeriodSeconds: 0 });
  assert.equal(cri.callsTo("execSync").length, 0);
  assert.deepEqual(cri.callsTo("stopContainer").map((c) => c[1]), [2]);

  const cri2 = new FakeRuntime({ clock });
  await runningContainer(cri2, pod);
  const [orphan] = await runningPods(cri2);
  await killPod(killDeps(cri2, clock), undefined, orphan, {});
  assert.deepEqual(cri2.callsTo("execSync").map((c) => c[1]), [["bye"]]);
  assert.deepEqual(cri2.callsTo("stopContainer").map((c) => c[1]), [5]);
});

Deno.test("a failing preStop is logged and the container is stopped anyway", async () => {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const pod = makePod({ lifecycle: { preStop: { exec: { command: ["x"] } } } }, 5);
  const { id } = await runningContainer(cri, pod);
  cri.execHandler = () => ({ stdout: new Uint8Array(), stderr: encode("no"), exitCode: 1 });
  const lines: string[] = [];
  await stopContainer(killDeps(cri, clock, lines), id, {
    gracePeriodSeconds: 5,
    name: "app",
    preStop: { handler: pod.spec!.containers[0].lifecycle!.preStop!, ...hookTarget(pod, id) },
  });
  assert.ok(lines.some((l) => l.includes("PreStop hook failed") && l.includes("exited with 1")));
  assert.equal(isRunning(cri, id), false);
  assert.equal(cri.callsTo("stopContainer")[0][1], 5);
});

async function runningPods(cri: FakeRuntime): Promise<RunningPod[]> {
  const sandboxes = await cri.listPodSandbox();
  const containers = await cri.listContainers();
  return sandboxes.map((s) => ({
    uid: s.metadata.uid,
    name: s.metadata.name,
    namespace: s.metadata.namespace,
    sandboxes: [{ id: s.id, state: "ready", createdAt: 0 }],
    containers: containers.filter((c) => c.podSandboxId === s.id).map((c) => ({
      id: c.id,
      name: c.metadata.name,
      sandboxId: s.id,
      state: "running",
      createdAt: 0,
    })),
  }));
}

async function startWithHook(pod: V1Pod, cri: FakeRuntime, clock: FakeClock) {
  cri.addImage(IMAGE);
  const m = pod.metadata!;
  const sandboxConfig = {
    metadata: { name: m.name!, namespace: m.namespace!, uid: m.uid!, attempt: 0 },
  };
  const sandboxId = await cri.runPodSandbox(sandboxConfig);
  const deps: StartDeps = {
    runtime: cri,
    clock,
    puller: new ImagePuller({ image: cri, clock, logger: nullLogger }),
    crashBackoff: new Backoff({ initialMs: 10 * S, maxMs: 300 * S, clock }),
    configOptions: { nodeName: "node1", podLogsDir: "/nonexistent" },
  };
  const status: RuntimePodStatus = {
    uid: m.uid!,
    name: m.name!,
    namespace: m.namespace!,
    sandboxes: [],
    containers: [],
    ips: ["10.85.0.2"],
    timestamp: clock.now(),
  };
  return await startContainer(deps, {
    pod,
    container: pod.spec!.containers[0],
    status,
    sandboxId,
    sandboxConfig,
    podIPs: ["10.85.0.2"],
    volumes: new Map(),
    logger: nullLogger,
  });
}

Deno.test("postStart runs after StartContainer; success leaves the container running", async () => {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const pod = makePod({ lifecycle: { postStart: { exec: { command: ["init"] } } } });
  assert.equal(await startWithHook(pod, cri, clock), undefined);
  const [exec] = cri.callsTo("execSync");
  assert.deepEqual(exec[1], ["init"]);
  const id = exec[0] as string;
  assert.equal(isRunning(cri, id), true);
  const order = cri.calls.map((c) => c.method).filter((m) => m !== "listContainers");
  assert.ok(order.indexOf("startContainer") < order.indexOf("execSync"));
});

Deno.test("a failed postStart kills the container (preStop included) and reports PostStartHookError", async () => {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const pod = makePod({
    lifecycle: {
      postStart: { exec: { command: ["setup"] } },
      preStop: { exec: { command: ["teardown"] } },
    },
  }, 7);
  cri.execHandler = (_id, cmd) => ({
    stdout: new Uint8Array(),
    stderr: new Uint8Array(),
    exitCode: cmd[0] === "setup" ? 2 : 0,
  });
  const err = await startWithHook(pod, cri, clock);
  assert.equal(err?.reason, "PostStartHookError");
  assert.equal(err?.container, "app");
  assert.match(err?.message ?? "", /^Exec lifecycle hook \(\[setup\]\) for Container "app"/);
  assert.deepEqual(cri.callsTo("execSync").map((c) => c[1]), [["setup"], ["teardown"]]);
  const [stop] = cri.callsTo("stopContainer");
  assert.equal(stop[1], 7);
  assert.equal(isRunning(cri, stop[0] as string), false);
});
