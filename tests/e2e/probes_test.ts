/**
 * Probes as a user sees them: a failing exec liveness probe restarts the container, HTTP, TCP
 * and gRPC readiness probes flip Ready both ways as the test changes files the servers read
 * (hostPath volumes), and a startup probe holds liveness back until the app has started.
 * The pods run in one agent at once to keep the suite short.
 */
import assert from "node:assert/strict";
import type { V1Pod, V1Probe } from "@kubernetes/client-node";
import { realClock } from "../../src/util/clock.ts";
import { ensureGrpcHealthImage, findGo } from "../support/images.ts";
import {
  containerStatus,
  type E2E,
  E2E_TEST,
  isRunning,
  setupE2E,
  shellContainer,
  specPod,
} from "./_helpers.ts";

const GO = await findGo();
if (!GO) {
  console.warn(
    "[probes_test] go is not installed: the gRPC probe test is skipped (it builds its image)",
  );
}

/** Quick probes: every second, one result flips the state. */
const FAST: Partial<V1Probe> = { periodSeconds: 1, failureThreshold: 1, timeoutSeconds: 1 };

function hostPathVolume(name: string, path: string) {
  return { name, hostPath: { path, type: "Directory" } };
}

const ready = (p: V1Pod, c: string) => containerStatus(p, c)?.ready === true;
const podReady = (p: V1Pod) =>
  p.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";

/** Waits for container `c` of pod `name` to be ready (`want`) and the pod condition to agree. */
function waitReady(e2e: E2E, name: string, c: string, want: boolean): Promise<V1Pod> {
  return e2e.waitPod(name, (p) => isRunning(p) && ready(p, c) === want && podReady(p) === want, {
    what: `${name}/${c} ready=${want}`,
    timeoutMs: 30_000,
  });
}

/** Runs named checks at once; one failure report names each failed check. */
async function allChecks(e2e: E2E, checks: Record<string, () => Promise<void>>): Promise<void> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((n) => checks[n]()));
  const failures = results.flatMap((r, i) =>
    r.status === "rejected" ? [`${names[i]}: ${r.reason}`] : []
  );
  if (failures.length > 0) failures.push(`agent log:\n${await e2e.agent.logTail(40)}`);
  assert.deepEqual(failures, [], failures.join("\n\n"));
}

Deno.test({
  name: "probes: liveness restarts, HTTP/TCP readiness flip Ready, startup holds liveness back",
  ...E2E_TEST,
  async fn(t) {
    const e2e = await setupE2E();
    const www = `${e2e.tmp}/www`;
    await Deno.mkdir(www);
    await Deno.writeTextFile(`${www}/ready`, "yes\n");
    try {
      await e2e.writePod(
        "probe-liveness.yaml",
        specPod("probe-liveness", {
          containers: [shellContainer(
            "main",
            "touch /tmp/ok; echo up; sleep 4; rm /tmp/ok; echo broken; sleep 3600",
            { livenessProbe: { ...FAST, exec: { command: ["test", "-f", "/tmp/ok"] } } },
          )],
        }),
      );
      await e2e.writePod(
        "probe-http.yaml",
        specPod("probe-http", {
          volumes: [hostPathVolume("www", www)],
          containers: [shellContainer("web", "exec httpd -f -p 8080 -h /www", {
            ports: [{ name: "http", containerPort: 8080 }],
            volumeMounts: [{ name: "www", mountPath: "/www" }],
            readinessProbe: { ...FAST, httpGet: { path: "/ready", port: "http" } },
          })],
        }),
      );
      await e2e.writePod(
        "probe-tcp.yaml",
        specPod("probe-tcp", {
          volumes: [hostPathVolume("www", www)],
          containers: [
            shellContainer("open", "exec httpd -f -p 9000 -h /www", {
              volumeMounts: [{ name: "www", mountPath: "/www" }],
              readinessProbe: { ...FAST, tcpSocket: { port: 9000 } },
            }),
            // Nothing listens on 9001 in the pod's network namespace.
            shellContainer("closed", "exec sleep 3600", {
              readinessProbe: { ...FAST, tcpSocket: { port: 9001 } },
            }),
          ],
        }),
      );
      const startupCheck = { exec: { command: ["test", "-f", "/tmp/started"] } };
      await e2e.writePod(
        "probe-startup.yaml",
        specPod("probe-startup", {
          containers: [
            shellContainer("slow", "sleep 6; touch /tmp/started; echo started; sleep 3600", {
              // Alone, this liveness probe would kill the container within seconds of its start.
              livenessProbe: { ...FAST, ...startupCheck },
              startupProbe: { ...FAST, failureThreshold: 30, ...startupCheck },
            }),
          ],
        }),
      );

      const liveness = async () => {
        const p = await e2e.waitPod(
          "probe-liveness",
          (p) => (containerStatus(p, "main")?.restartCount ?? 0) >= 1,
          { what: "probe-liveness to be restarted by its liveness probe", timeoutMs: 45_000 },
        );
        const cs = containerStatus(p, "main");
        assert.ok(cs?.lastState?.terminated, "the killed instance is the last state");
        assert.equal(p.metadata?.uid, (await e2e.pod("probe-liveness"))?.metadata?.uid);
      };

      const http = async () => {
        await waitReady(e2e, "probe-http", "web", true);
        await Deno.remove(`${www}/ready`);
        await waitReady(e2e, "probe-http", "web", false);
        await Deno.writeTextFile(`${www}/ready`, "yes\n");
        const p = await waitReady(e2e, "probe-http", "web", true);
        assert.equal(containerStatus(p, "web")?.restartCount, 0, "readiness never restarts");
      };

      const tcp = async () => {
        const p = await e2e.waitPod(
          "probe-tcp",
          (p) => isRunning(p) && ready(p, "open") && !ready(p, "closed"),
          { what: "probe-tcp: open ready, closed not", timeoutMs: 30_000 },
        );
        assert.equal(podReady(p), false, "one unready container makes the pod unready");
      };

      const startup = async () => {
        const seenUnstarted = { value: false };
        const p = await e2e.waitPod("probe-startup", (p) => {
          const cs = containerStatus(p, "slow");
          if (cs?.state?.running && cs.started === false) seenUnstarted.value = true;
          return cs?.started === true && cs.ready === true;
        }, { what: "probe-startup to be started and ready", timeoutMs: 45_000 });
        assert.equal(containerStatus(p, "slow")?.restartCount, 0, "liveness was held back");
        assert.ok(seenUnstarted.value, "started was false while the startup probe failed");
        // Liveness now runs and passes: still no restart a few periods later.
        await realClock.sleep(4_000);
        const later = await e2e.waitPod("probe-startup", () => true, { what: "probe-startup" });
        assert.equal(containerStatus(later, "slow")?.restartCount, 0);
      };

      await t.step("liveness, HTTP, TCP and startup probes, concurrently", async () => {
        await allChecks(e2e, { liveness, http, tcp, startup });
      });
    } finally {
      await e2e.close();
    }
  },
});

Deno.test({
  name: "probes: a gRPC readiness probe follows grpc.health.v1 SERVING / NOT_SERVING",
  ...E2E_TEST,
  ignore: !GO,
  async fn() {
    const e2e = await setupE2E();
    const dir = `${e2e.tmp}/grpc`;
    await Deno.mkdir(dir);
    try {
      const image = await ensureGrpcHealthImage(e2e.runtime);
      await e2e.writePod(
        "probe-grpc.yaml",
        specPod("probe-grpc", {
          volumes: [hostPathVolume("ctl", dir)],
          containers: [{
            name: "health",
            image,
            imagePullPolicy: "IfNotPresent",
            args: ["-port", "50051", "-unhealthy-file", "/ctl/unhealthy"],
            volumeMounts: [{ name: "ctl", mountPath: "/ctl" }],
            readinessProbe: { ...FAST, grpc: { port: 50051 } },
          }],
        }),
      );
      await waitReady(e2e, "probe-grpc", "health", true);
      await Deno.writeTextFile(`${dir}/unhealthy`, "");
      await waitReady(e2e, "probe-grpc", "health", false);
      await Deno.remove(`${dir}/unhealthy`);
      const p = await waitReady(e2e, "probe-grpc", "health", true);
      assert.equal(containerStatus(p, "health")?.restartCount, 0);
    } finally {
      await e2e.close();
    }
  },
});
