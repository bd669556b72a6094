/**
 * The API-mode fault campaign: one agent joined to a real control plane through a TCP proxy,
 * pods running on it, and one fault after another: a flood of random bearer tokens at the node
 * API, a black-holed link (every open connection silently dead, as after a NAT timeout), the
 * agent's wall clock stepped back an hour (injected into the agent alone; the machine's clock
 * is not touched), an API server restart and an etcd restart. It ends with 0 crashes (the same
 * agent process throughout), 0 lost pods and 0 needless restarts (the same containers, restart
 * count 0), and the Lease never late (a renewal seen at least once per lease duration while the
 * API server is up, and within a grace period of its return).
 *
 * About four minutes (three of faults, one to start the control plane): part of the e2e suite,
 * and on its own with `deno task test:faults`.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { startControlPlane } from "../support/control_plane.ts";
import { startTcpProxy } from "../support/tcp_proxy.ts";
import { freePort, waitFor } from "../support/wait.ts";
import { busyboxPod, E2E_TEST, setupCluster } from "./_cluster.ts";
import { nodeFetch, servingCA } from "./_node_api.ts";
import { startLeaseMonitor } from "./_lease_monitor.ts";

const LEASE_DURATION_MS = 40_000;
/** After the API server returns: one renewal period, a failed try's deadline and a retry. */
const GRACE_MS = 30_000;
const HOUR = 3_600_000;
const FLOOD_REQUESTS = 1500;
const FLOOD_CONCURRENCY = 50;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ready = (n: V1Node | undefined) =>
  n?.status?.conditions?.find((c) => c.type === "Ready")?.status;

Deno.test({
  name: "API-mode fault campaign: token flood, black-holed link, clock step back, API server " +
    "and etcd restarts; no crash, no lost pod, no needless restart, the Lease never late",
  ...E2E_TEST,
  async fn(t) {
    const started = performance.now();
    const cp = await startControlPlane();
    const proxy = startTcpProxy({ hostname: "127.0.0.1", port: Number(new URL(cp.server).port) });
    const tmp = await Deno.makeTempDir({ prefix: "denolet-faults-" });
    const offsetFile = `${tmp}/wall-offset-ms`;
    await Deno.writeTextFile(offsetFile, "0");
    const port = freePort();
    const e2e = await setupCluster({
      controlPlane: cp,
      apiServerURL: `https://127.0.0.1:${proxy.port}`,
      env: { DENOLET_TEST_WALL_OFFSET_FILE: offsetFile },
      extraArgs: [
        "--address=127.0.0.1",
        `--port=${port}`,
        "--anonymous-auth=false",
        "--authentication-token-webhook",
        "--authorization-mode=Webhook",
      ],
    }).catch(async (err) => {
      await proxy.close();
      await cp.stop();
      throw err;
    });
    const node = e2e.nodeName;
    const monitor = await startLeaseMonitor({
      adminKubeconfig: cp.adminKubeconfig,
      nodeName: node,
      leaseDurationMs: LEASE_DURATION_MS,
      graceMs: GRACE_MS,
    });
    const log = (s: string) =>
      console.error(`[faults +${Math.round((performance.now() - started) / 1000)}s] ${s}`);
    try {
      await waitFor(async () => ready(await e2e.getJson<V1Node>(["node", node])) === "True", {
        what: `node ${node} Ready`,
        timeoutMs: 60_000,
      });
      const names = ["steady-a", "steady-b", "steady-c"];
      await e2e.apply(...names.map((n) => busyboxPod(n, "sleep 36000", { node })));
      const running = (p: V1Pod) =>
        p.status?.phase === "Running" && !!p.status.containerStatuses?.[0]?.state?.running;
      const before = new Map<string, string>();
      for (const n of names) {
        const p = await e2e.waitPod(n, running, { what: `${n} Running`, timeoutMs: 120_000 });
        before.set(n, p.status!.containerStatuses![0].containerID!);
      }
      const agentPid = e2e.agent.pid;
      let exited = false;
      e2e.agent.exited.then(() => exited = true);
      log("pods running; faults begin");

      /** A pod created now runs: the agent's watches and writes work after the fault. */
      const newPodRuns = async (name: string, timeoutMs: number) => {
        await e2e.apply(busyboxPod(name, "sleep 36000", { node }));
        await e2e.waitPod(name, running, { what: `${name} Running after the fault`, timeoutMs });
      };
      const nodeStaysReady = async () => {
        assert.equal(ready(await e2e.getJson<V1Node>(["node", node])), "True");
      };

      await t.step(
        "a flood of random bearer tokens is refused and the Lease stays on time",
        async () => {
          const ca = await servingCA(`${e2e.rootDir}/pki`);
          const statuses = new Map<number, number>();
          let next = 0;
          const worker = async () => {
            while (next < FLOOD_REQUESTS) {
              next++;
              const token = crypto.randomUUID();
              const res = await nodeFetch(port, "/pods", { caCerts: [ca], token });
              statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            }
          };
          await Promise.all(Array.from({ length: FLOOD_CONCURRENCY }, worker));
          log(`flood answered: ${JSON.stringify(Object.fromEntries(statuses))}`);
          assert.equal(statuses.get(401), FLOOD_REQUESTS, "every random token is refused");
          await newPodRuns("after-flood", 60_000);
          await nodeStaysReady();
        },
      );

      await t.step("a black-holed link is noticed: new connections, watches relisted", async () => {
        const accepted = proxy.accepted;
        proxy.dropExisting();
        // Before the fix nothing noticed for as long as the kernel kept the dead connection.
        await newPodRuns("after-blackhole", 120_000);
        assert.ok(proxy.accepted > accepted, "the agent dialled new connections");
        await nodeStaysReady();
        log(`black hole recovered; ${proxy.accepted - accepted} new connections`);
      });

      await t.step("the agent's wall clock stepped back an hour changes nothing", async () => {
        await Deno.writeTextFile(offsetFile, String(-HOUR));
        await sleep(15_000);
        await newPodRuns("after-clock-step", 60_000);
        await nodeStaysReady();
      });

      await t.step("an API server restart: the agent comes back on its own", async () => {
        monitor.down();
        await cp.stopApiServer();
        await sleep(20_000);
        await cp.startApiServer();
        monitor.up();
        await newPodRuns("after-apiserver", 90_000);
        await waitFor(async () => ready(await e2e.getJson<V1Node>(["node", node])) === "True", {
          what: `node ${node} Ready after the API server's return`,
          timeoutMs: GRACE_MS,
        });
      });

      await t.step("an etcd restart: the agent comes back on its own", async () => {
        monitor.down();
        await cp.stopEtcd();
        await sleep(20_000);
        await cp.startEtcd();
        await waitFor(async () => {
          await e2e.kubectl(["get", "--raw", "/readyz"]);
          return true;
        }, { what: "the API server ready again", timeoutMs: 60_000 });
        monitor.up();
        await newPodRuns("after-etcd", 90_000);
        await waitFor(async () => ready(await e2e.getJson<V1Node>(["node", node])) === "True", {
          what: `node ${node} Ready after etcd's return`,
          timeoutMs: GRACE_MS,
        });
      });

      await t.step(
        "the end: no crash, no lost pod, no needless restart, the Lease never late",
        async () => {
          // Let the lease run a full period after the last fault.
          await sleep(LEASE_DURATION_MS);
          assert.equal(exited, false, "the agent never exited");
          assert.equal(e2e.agent.pid, agentPid);
          for (const n of names) {
            const p = await e2e.pod(n);
            assert.ok(p && running(p), `${n} still Running`);
            const cs = p!.status!.containerStatuses![0];
            assert.equal(cs.restartCount, 0, `${n} never restarted`);
            assert.equal(cs.containerID, before.get(n), `${n} is the same container`);
          }
          log(
            `lease: ${monitor.renewals()} renewals seen, longest gap ${monitor.longestGapMs()} ms, ` +
              `late samples ${JSON.stringify(monitor.late())}`,
          );
          assert.deepEqual(monitor.late(), [], "the Lease was never late");
          const logText = await Deno.readTextFile(e2e.agent.logFile);
          assert.doesNotMatch(logText, /Uncaught|panicked/, "nothing uncaught in the agent's log");
          log(`campaign took ${Math.round((performance.now() - started) / 1000)} s`);
        },
      );
    } finally {
      await monitor.stop();
      await e2e.close();
      await proxy.close();
      await cp.stop();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
