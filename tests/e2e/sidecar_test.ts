/**
 * Sidecar containers (init containers with `restartPolicy: Always`) as a user sees them: they
 * start in spec order with the other init containers, the next one waiting until a sidecar has
 * started (its startup probe passed); the app containers come after all of them; a sidecar that
 * exits comes back with the crash-loop back-off even under restartPolicy Never; on shutdown the
 * sidecars stop after the app containers, the last one first; and a run-to-completion pod ends
 * Succeeded or Failed with its sidecars stopped. The pods run in one agent at once.
 */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { waitFor } from "../support/agent.ts";
import {
  containerStatus,
  E2E_TEST,
  initStatus,
  isRunning,
  POD_UID_LABEL,
  setupE2E,
  shellContainer,
  specPod,
  time,
} from "./_helpers.ts";

const LONG_WAIT_MS = 90_000;
/** Ends on TERM (within the second its `sleep 1` takes), after running `onTerm`. */
const untilTerm = (onTerm: string) => `trap '${onTerm}; exit 0' TERM; while :; do sleep 1; done`;

function sidecar(name: string, script: string, extra: Partial<V1Container> = {}): V1Container {
  return shellContainer(name, script, { restartPolicy: "Always", ...extra });
}

const work = { volumeMounts: [{ name: "work", mountPath: "/work" }] };

/**
 * s1 (sidecar) is ready to serve only after 3 s, which its startup probe checks; i2 (regular
 * init) records whether s1 was ready when it ran; s3 (sidecar) and the app record themselves.
 * Every container appends its name to /work/order when it starts.
 */
const ORDER = specPod("sidecar-order", {
  volumes: [{ name: "work", emptyDir: {} }],
  initContainers: [
    sidecar(
      "s1",
      "echo s1 >> /work/order; sleep 3; touch /work/s1-ready; " + untilTerm("true"),
      {
        ...work,
        startupProbe: {
          exec: { command: ["test", "-f", "/work/s1-ready"] },
          periodSeconds: 1,
          failureThreshold: 60,
        },
      },
    ),
    shellContainer(
      "i2",
      "if test -f /work/s1-ready; then echo i2 >> /work/order; " +
        "else echo i2-before-s1-started >> /work/order; fi",
      work,
    ),
    sidecar("s3", "echo s3 >> /work/order; " + untilTerm("true"), work),
  ],
  containers: [
    shellContainer(
      "app",
      'echo app >> /work/order; echo "order=`cat /work/order | tr "\\n" " "`"; ' +
        untilTerm("true"),
      work,
    ),
  ],
});

/** The sidecar crashes after 4 s every time; the pod must not restart anything else. */
const RESTART = specPod("sidecar-restart", {
  restartPolicy: "Never",
  initContainers: [
    sidecar("crashy", "echo up; sleep 4; exit 1", {
      readinessProbe: { exec: { command: ["true"] }, periodSeconds: 1 },
    }),
  ],
  containers: [shellContainer("app", untilTerm("true"))],
});

/** Each container appends what happens to it at shutdown to a host file the test reads. */
function stopPod(hostDir: string): V1Pod {
  const log = (what: string) => `echo ${what} >> /host/stop`;
  // The app containers take 3 s to wind down, so a sidecar stopped too early shows up first.
  const app = (name: string) =>
    shellContainer(name, untilTerm(`sleep 3; ${log(`${name}-done`)}`), host);
  const host = { volumeMounts: [{ name: "host", mountPath: "/host" }] };
  return specPod("sidecar-stop", {
    terminationGracePeriodSeconds: 30,
    volumes: [{ name: "host", hostPath: { path: hostDir, type: "Directory" } }],
    initContainers: [
      sidecar("s1", untilTerm(log("s1-term")), {
        ...host,
        lifecycle: { preStop: { exec: { command: ["sh", "-c", log("s1-prestop")] } } },
      }),
      sidecar("s2", untilTerm(log("s2-term")), host),
    ],
    containers: [app("app1"), app("app2")],
  });
}

/** A run-to-completion pod whose sidecar would run forever on its own. */
function jobPod(name: string, restartPolicy: string, exitCode: number): V1Pod {
  return specPod(name, {
    restartPolicy,
    initContainers: [sidecar("helper", untilTerm("true"))],
    containers: [shellContainer("job", `sleep 3; exit ${exitCode}`)],
  });
}

Deno.test({
  name: "sidecars: start order, restarts under Never, stop order, pods that run to completion",
  ...E2E_TEST,
  async fn(t) {
    const e2e = await setupE2E();
    const hostDir = `${e2e.tmp}/stop`;
    await Deno.mkdir(hostDir);
    const runningIn = async (uid: string) =>
      (await e2e.cri.runtime.listContainers({
        labelSelector: { [POD_UID_LABEL]: uid },
        state: { state: "CONTAINER_RUNNING" },
      })).map((c) => c.metadata.name);
    try {
      await e2e.writePod("sidecar-order.yaml", ORDER);
      await e2e.writePod("sidecar-restart.yaml", RESTART);
      await e2e.writePod("sidecar-stop.yaml", stopPod(hostDir));
      await e2e.writePod("sidecar-job-ok.yaml", jobPod("sidecar-job-ok", "OnFailure", 0));
      await e2e.writePod("sidecar-job-fail.yaml", jobPod("sidecar-job-fail", "Never", 3));

      await t.step(
        "init containers and sidecars start in spec order, gated by the startup probe",
        async () => {
          const p = await e2e.waitPod("sidecar-order", isRunning, {
            what: "pod sidecar-order to be Running",
            timeoutMs: LONG_WAIT_MS,
          });
          const log = await e2e.waitLog(p, "app", ["order="]);
          // i2 ran only once s1's startup probe had passed, s3 after i2 finished.
          assert.match(log, /order=s1 i2 s3 app $/m, `app log:\n${log}`);
          const s1 = initStatus(p, "s1");
          assert.ok(s1?.state?.running, "s1 keeps running");
          assert.equal(s1?.started, true);
          assert.equal(s1?.ready, true);
          assert.equal(s1?.restartCount, 0);
          assert.equal(initStatus(p, "i2")?.state?.terminated?.reason, "Completed");
          const s1Start = time(s1?.state?.running?.startedAt);
          const i2Start = time(initStatus(p, "i2")?.state?.terminated?.startedAt);
          assert.ok(i2Start - s1Start >= 3_000, `i2 started ${i2Start - s1Start} ms after s1`);
          const initialized = p.status?.conditions?.find((c) => c.type === "Initialized");
          assert.equal(initialized?.status, "True");
        },
      );

      await t.step("app containers start after every init container and sidecar", async () => {
        const p = await e2e.waitPod("sidecar-order", isRunning, { what: "sidecar-order" });
        const s3 = initStatus(p, "s3");
        assert.ok(s3?.state?.running, "s3 keeps running beside the app");
        assert.equal(s3?.started, true);
        const i2Done = time(initStatus(p, "i2")?.state?.terminated?.finishedAt);
        const s3Start = time(s3?.state?.running?.startedAt);
        const appStart = time(containerStatus(p, "app")?.state?.running?.startedAt);
        assert.ok(i2Done <= s3Start && s3Start <= appStart, "i2, then s3, then the app");
        assert.equal(p.status?.conditions?.find((c) => c.type === "Ready")?.status, "True");
        const names = await runningIn(p.metadata?.uid ?? "");
        assert.deepEqual(names.sort(), ["app", "s1", "s3"]);
      });

      await t.step(
        "a sidecar that exits is restarted with back-off under restartPolicy Never",
        async () => {
          const crashy = (p: V1Pod) => initStatus(p, "crashy");
          const backingOff = await e2e.waitPod(
            "sidecar-restart",
            (p) => crashy(p)?.state?.waiting?.reason === "CrashLoopBackOff",
            { what: "sidecar crashy to back off", timeoutMs: LONG_WAIT_MS },
          );
          assert.match(crashy(backingOff)?.state?.waiting?.message ?? "", /^back-off 10s /);
          assert.equal(crashy(backingOff)?.lastState?.terminated?.exitCode, 1);
          assert.equal(backingOff.status?.phase, "Running", "the pod is not failed by its sidecar");
          const p = await e2e.waitPod(
            "sidecar-restart",
            (p) => (crashy(p)?.restartCount ?? 0) >= 2 && crashy(p)?.ready === true,
            { what: "sidecar crashy restarted twice and ready again", timeoutMs: LONG_WAIT_MS },
          );
          assert.ok(crashy(p)?.state?.running, "running again");
          const app = containerStatus(p, "app");
          assert.ok(app?.state?.running, "the app keeps running");
          assert.equal(app?.restartCount, 0);
          assert.equal(p.status?.phase, "Running");
          // Each run logs to <restartCount>.log: the current one and the one before it are kept.
          const count = crashy(p)?.restartCount ?? 0;
          for (const n of [count - 1, count]) {
            assert.match(await e2e.readLog(p, "crashy", n), /up/, `crashy/${n}.log`);
          }
        },
      );

      await t.step(
        "on shutdown the sidecars stop after the app containers, in reverse order",
        async () => {
          const p = await e2e.waitPod("sidecar-stop", isRunning, {
            what: "pod sidecar-stop to be Running",
            timeoutMs: LONG_WAIT_MS,
          });
          const uid = p.metadata?.uid ?? "";
          await waitFor(async () => (await runningIn(uid)).length === 4 ? true : undefined, {
            timeoutMs: 30_000,
            what: "the four containers of sidecar-stop to run",
          });
          await e2e.removeManifest("sidecar-stop.yaml");
          await waitFor(async () => (await runningIn(uid)).length === 0 ? true : undefined, {
            timeoutMs: LONG_WAIT_MS,
            intervalMs: 200,
            what: "the containers of sidecar-stop to stop",
          });
          const lines = (await Deno.readTextFile(`${hostDir}/stop`)).trim().split("\n");
          const at = (what: string) => {
            const i = lines.indexOf(what);
            assert.ok(i >= 0, `${what} in ${JSON.stringify(lines)}`);
            return i;
          };
          const appsDone = Math.max(at("app1-done"), at("app2-done"));
          assert.ok(at("s2-term") > appsDone, `s2 after the apps: ${lines}`);
          assert.ok(at("s1-term") > at("s2-term"), `s1 after s2: ${lines}`);
          // preStop hooks do not wait for their turn; only the stop signal does.
          assert.ok(at("s1-prestop") < at("s2-term"), `s1's preStop ran at once: ${lines}`);
        },
      );

      await t.step(
        "run-to-completion pods end Succeeded or Failed with their sidecars stopped",
        async () => {
          for (
            const [name, phase, exitCode] of [
              ["sidecar-job-ok", "Succeeded", 0],
              ["sidecar-job-fail", "Failed", 3],
            ] as const
          ) {
            const p = await e2e.waitPod(name, (p) => p.status?.phase === phase, {
              what: `pod ${name} to be ${phase}`,
              timeoutMs: LONG_WAIT_MS,
            });
            const job = containerStatus(p, "job");
            assert.equal(job?.state?.terminated?.exitCode, exitCode, name);
            assert.equal(job?.restartCount, 0, name);
            const helper = initStatus(p, "helper");
            assert.ok(helper?.state?.terminated, `${name}: the sidecar is stopped`);
            assert.equal(helper?.restartCount, 0, `${name}: the sidecar is not restarted`);
            assert.deepEqual(await runningIn(p.metadata?.uid ?? ""), [], `${name}: nothing runs`);
            const sandboxes = await e2e.sandboxes(p.metadata?.uid ?? "");
            assert.ok(
              sandboxes.every((s) => s.state === "SANDBOX_NOTREADY"),
              `${name}: the sandbox is stopped`,
            );
          }
        },
      );
    } finally {
      await e2e.close();
    }
  },
});
