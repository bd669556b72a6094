/**
 * Graceful node shutdown end to end on this host, which has no systemd: the agent talks to a
 * stand-in for logind on a private message bus (DBUS_SYSTEM_BUS_ADDRESS) that hands out a real
 * inhibitor descriptor and sends PrepareForShutdown; the pods run in the shared containerd. The
 * real logind and a real reboot are `deno task test:vm`'s.
 */
import assert from "node:assert/strict";
import type { V1Container, V1Node, V1Pod } from "@kubernetes/client-node";
import {
  connectBus,
  type DBusConnection,
  fdUnixTransport,
  type ReceivedMessage,
  Variant,
} from "../../src/dbus/mod.ts";
import { freePort, waitFor } from "../support/agent.ts";
import { startPrivateBus } from "../support/dbus_daemon.ts";
import { type LibcPipes, libcPipes } from "../support/pipes.ts";
import { BUSYBOX, type E2E, E2E_TEST, isRunning, setupE2E } from "./_helpers.ts";
import { nodeApiArgs, nodeApiGet } from "./_node_api.ts";

const LOGIND = "/org/freedesktop/login1";
const MANAGER = "org.freedesktop.login1.Manager";
const MESSAGE = "Pod was terminated in response to imminent node shutdown.";
/** The authenticated port: `/node` is not served on the read-only one. */
const API_PORT = freePort();

async function readyCondition(e2e: E2E) {
  const res = await nodeApiGet(e2e.agent, API_PORT, "/node");
  assert.equal(res.status, 200);
  const node = await res.json() as V1Node;
  return node.status?.conditions?.find((x) => x.type === "Ready");
}

/** A stand-in logind: InhibitDelayMaxUSec 60 s (no drop-in written), Inhibit with a real fd. */
async function fakeLogind(path: string, c: LibcPipes) {
  const conn: DBusConnection = await connectBus({ transport: await fdUnixTransport(path) });
  await conn.call({
    destination: "org.freedesktop.DBus",
    path: "/org/freedesktop/DBus",
    interface: "org.freedesktop.DBus",
    member: "RequestName",
    signature: "su",
    body: ["org.freedesktop.login1", 4],
  });
  const locks: number[] = [];
  conn.handleCalls((m: ReceivedMessage) => {
    if (m.member === "Get" && m.body[1] === "InhibitDelayMaxUSec") {
      return { signature: "v", body: [new Variant("t", 60_000_000n)] };
    }
    if (m.member !== "Inhibit") return undefined;
    assert.deepEqual(m.body, [
      "shutdown",
      "kubelet",
      "Kubelet needs time to handle node shutdown",
      "delay",
    ]);
    const [r, w] = c.pipe();
    locks.push(r);
    // As logind: its copy of the write end closes once the reply is on its way.
    return { signature: "h", body: [0], fds: [w], onSent: () => c.close(w) };
  });
  return {
    conn,
    locks,
    prepareForShutdown: (active: boolean) =>
      conn.emitSignal({
        path: LOGIND,
        interface: MANAGER,
        member: "PrepareForShutdown",
        signature: "b",
        body: [active],
      }),
  };
}

function pod(name: string, marker: string, extra: Partial<NonNullable<V1Pod["spec"]>>): V1Pod {
  const container: V1Container = {
    name: "main",
    image: BUSYBOX,
    imagePullPolicy: "IfNotPresent",
    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"],
    volumeMounts: [{ name: "markers", mountPath: "/markers" }],
    lifecycle: {
      preStop: {
        exec: {
          command: [
            "sh",
            "-c",
            `echo begin >> /markers/${marker}; sleep 2; echo end >> /markers/${marker}`,
          ],
        },
      },
    },
  };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: { containers: [container], ...extra },
  };
}

Deno.test({
  name: "graceful shutdown: PrepareForShutdown stops pods in priority order with their hooks",
  ...E2E_TEST,
  fn: async () => {
    const bus = await startPrivateBus();
    // logind's side of an inhibitor: a pipe whose write end goes to the caller.
    const c = libcPipes();
    const logind = await fakeLogind(bus.path, c);
    const markers = await Deno.makeTempDir({ prefix: "denolet-e2e-shutdown-" });
    const e2e = await setupE2E({
      config: { shutdownGracePeriod: "20s", shutdownGracePeriodCriticalPods: "8s" },
      env: { DBUS_SYSTEM_BUS_ADDRESS: `unix:path=${bus.path}` },
      extraArgs: nodeApiArgs(API_PORT),
    });
    try {
      const volumes = [{ name: "markers", hostPath: { path: markers, type: "Directory" } }];
      await e2e.writePod(
        "drain.yaml",
        pod("drain", "drain", { volumes, terminationGracePeriodSeconds: 30 }),
      );
      await e2e.writePod(
        "critical.yaml",
        pod("critical", "critical", {
          volumes,
          priority: 2_000_000_000,
          priorityClassName: "system-node-critical",
        }),
      );
      await e2e.waitPod("drain", isRunning, { what: "drain running", timeoutMs: 90_000 });
      await e2e.waitPod("critical", isRunning, { what: "critical running", timeoutMs: 90_000 });
      // The agent holds an inhibitor: the pipe's write end is open in its process alone.
      await waitFor(() => Promise.resolve(logind.locks.length === 1 || undefined), {
        timeoutMs: 30_000,
        what: "the agent's Inhibit call",
      });
      const lock = logind.locks[0];
      assert.equal(c.hungUp(lock), false);

      await logind.prepareForShutdown(true);
      const drained = await e2e.waitPod("drain", (p) => p.status?.phase === "Failed", {
        what: "drain Failed",
        timeoutMs: 60_000,
      });
      assert.equal(drained.status?.reason, "Terminated");
      assert.equal(drained.status?.message, MESSAGE);
      const target = drained.status?.conditions?.find((x) => x.type === "DisruptionTarget");
      assert.deepEqual([target?.status, target?.reason, target?.message], [
        "True",
        "TerminationByKubelet",
        MESSAGE,
      ]);
      // The Node is NotReady with upstream's message, and new pods are refused.
      const ready = await readyCondition(e2e);
      assert.deepEqual([ready?.status, ready?.message], ["False", "node is shutting down"]);
      await e2e.writePod("late.yaml", pod("late", "late", { volumes }));
      const late = await e2e.waitPod("late", (p) => p.status?.phase === "Failed", {
        what: "late refused",
      });
      assert.deepEqual([late.status?.reason, late.status?.message], [
        "NodeShutdown",
        // The kubelet's rejectPod puts its own prefix before the handler's message.
        "Pod was rejected: Pod was rejected as the node is shutting down.",
      ]);

      // The lock goes only after the critical group, whose hook ran after the others'.
      await waitFor(() => Promise.resolve(c.hungUp(lock) || undefined), {
        timeoutMs: 60_000,
        what: "the inhibitor released",
      });
      assert.equal(await Deno.readTextFile(`${markers}/drain`), "begin\nend\n");
      assert.equal(await Deno.readTextFile(`${markers}/critical`), "begin\nend\n");
      const drainEnd = (await Deno.stat(`${markers}/drain`)).mtime!.getTime();
      const criticalEnd = (await Deno.stat(`${markers}/critical`)).mtime!.getTime();
      assert.ok(drainEnd <= criticalEnd, "critical pods stop last");
      const critical = await e2e.pod("critical");
      assert.equal(critical?.status?.phase, "Failed");
      const log = await e2e.agent.logTail(200);
      const order = [
        /Shutdown manager killing pod with gracePeriod.*pod=default\/drain-.*gracePeriod=12/,
        /Shutdown manager killing pod with gracePeriod.*pod=default\/critical-.*gracePeriod=8/,
        /Shutdown manager completed processing shutdown event/,
      ].map((re) => log.split("\n").findIndex((l) => re.test(l)));
      assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), log);

      // Cancelled: the agent takes a new inhibitor and admits pods again.
      await logind.prepareForShutdown(false);
      await waitFor(() => Promise.resolve(logind.locks.length === 2 || undefined), {
        timeoutMs: 30_000,
        what: "a new inhibitor after the cancellation",
      });
      const readyAgain = await waitFor(async () => {
        const r = await readyCondition(e2e);
        return r?.status === "True" ? r : undefined;
      }, { timeoutMs: 30_000, what: "Ready again" });
      assert.equal(readyAgain.reason, "KubeletReady");
    } finally {
      await e2e.close();
      logind.conn.close();
      for (const fd of logind.locks) c.close(fd);
      c.unload();
      await bus.close();
      await Deno.remove(markers, { recursive: true });
    }
  },
});
