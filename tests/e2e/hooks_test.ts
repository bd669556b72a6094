/**
 * Container lifecycle hooks as a user sees them: postStart and preStop (exec and httpGet) leave
 * traces outside the pod, a failing postStart kills the container and the restart policy
 * restarts it, and a preStop that outlasts the grace period is cut at the deadline.
 * The pods run in one agent at once to keep the suite short.
 */
import assert from "node:assert/strict";
import type { V1Container } from "@kubernetes/client-node";
import { stopwatch } from "../../src/util/clock.ts";
import { waitFor } from "../support/agent.ts";
import {
  containerStatus,
  type E2E,
  E2E_TEST,
  isRunning,
  POD_UID_LABEL,
  setupE2E,
  shellContainer,
  specPod,
} from "./_helpers.ts";

/** Exits on TERM within a second, so stop times measure the hook, not a SIGKILL. */
const POLITE = "trap 'exit 0' TERM; echo started; while :; do sleep 1; done";
const CUT_GRACE_SECONDS = 4;

const busybox = (name: string, extra: Partial<V1Container> = {}) =>
  shellContainer(name, POLITE, extra);

/** Requests the hooks make to a server in this process (httpGet with `host: 127.0.0.1`). */
function hookServer() {
  const hits: { path: string; header: string | null; host: string | null; agent: string | null }[] =
    [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const u = new URL(req.url);
    hits.push({
      path: u.pathname + u.search,
      header: req.headers.get("x-hook"),
      host: req.headers.get("host"),
      agent: req.headers.get("user-agent"),
    });
    // Hooks take any answer as delivered, an error status included (upstream).
    return new Response("busy", { status: 503 });
  });
  return { hits, port: (server.addr as Deno.NetAddr).port, server };
}

/** Milliseconds from removing the manifest until no container of the pod runs. */
async function timeRemoval(e2e: E2E, file: string, uid: string): Promise<number> {
  const elapsed = stopwatch();
  await e2e.removeManifest(file);
  await waitFor(async () => {
    const live = await e2e.cri.runtime.listContainers({
      labelSelector: { [POD_UID_LABEL]: uid },
      state: { state: "CONTAINER_RUNNING" },
    });
    return live.length === 0 ? true : undefined;
  }, { timeoutMs: 90_000, intervalMs: 200, what: `containers of ${file} to stop` });
  return elapsed();
}

Deno.test({
  name: "lifecycle hooks: postStart/preStop effects, failing postStart, preStop cut at grace",
  ...E2E_TEST,
  async fn(t) {
    const e2e = await setupE2E();
    const http = hookServer();
    const hostDir = `${e2e.tmp}/hooks`;
    await Deno.mkdir(hostDir);
    const hostVolume = {
      volumes: [{ name: "host", hostPath: { path: hostDir, type: "Directory" } }],
    };
    const mount = { volumeMounts: [{ name: "host", mountPath: "/host" }] };
    const httpHook = (path: string) => ({
      httpGet: {
        host: "127.0.0.1",
        port: http.port,
        path,
        httpHeaders: [{ name: "X-Hook", value: path }, { name: "Host", value: "hooks.test" }],
      },
    });
    try {
      await e2e.writePod(
        "hooks-effects.yaml",
        specPod("hooks-effects", {
          terminationGracePeriodSeconds: 10,
          ...hostVolume,
          containers: [
            busybox("exec", {
              ...mount,
              lifecycle: {
                postStart: { exec: { command: ["sh", "-c", "echo post-start > /host/poststart"] } },
                preStop: { exec: { command: ["sh", "-c", "echo pre-stop > /host/prestop"] } },
              },
            }),
            busybox("web", {
              lifecycle: { postStart: httpHook("/poststart?c=web"), preStop: httpHook("/prestop") },
            }),
          ],
        }),
      );
      await e2e.writePod(
        "hooks-poststart-fail.yaml",
        specPod("hooks-poststart-fail", {
          ...hostVolume,
          containers: [busybox("main", {
            ...mount,
            command: ["sh", "-c", "sleep 3600"],
            lifecycle: {
              postStart: {
                exec: {
                  command: ["sh", "-c", "echo attempt >> /host/attempts; echo bad >&2; exit 7"],
                },
              },
            },
          })],
        }),
      );
      const cutPod = (name: string, preStop: V1Container["lifecycle"]) =>
        specPod(name, {
          terminationGracePeriodSeconds: CUT_GRACE_SECONDS,
          containers: [busybox("main", { lifecycle: preStop })],
        });
      await e2e.writePod(
        "hooks-cut-exec.yaml",
        cutPod("hooks-cut-exec", { preStop: { exec: { command: ["sleep", "60"] } } }),
      );
      await e2e.writePod(
        "hooks-cut-sleep.yaml",
        // Validation caps a sleep at the grace period (upstream validateSleepAction), so this
        // one uses all of it; the exec hook above is the one that outlasts it.
        cutPod("hooks-cut-sleep", { preStop: { sleep: { seconds: CUT_GRACE_SECONDS } } }),
      );

      const effects = async () => {
        const p = await e2e.waitPod("hooks-effects", isRunning, {
          what: "pod hooks-effects to run",
        });
        assert.equal(await Deno.readTextFile(`${hostDir}/poststart`), "post-start\n");
        await waitFor(() => http.hits.length > 0 || undefined, {
          timeoutMs: 10_000,
          what: "postStart httpGet",
        });
        assert.deepEqual(http.hits.map(({ path, header, host }) => ({ path, header, host })), [
          { path: "/poststart?c=web", header: "/poststart?c=web", host: "hooks.test" },
        ]);
        assert.match(http.hits[0].agent ?? "", /^kube-lifecycle\/\d+\.\d+$/);
        await timeRemoval(e2e, "hooks-effects.yaml", p.metadata!.uid!);
        assert.equal(await Deno.readTextFile(`${hostDir}/prestop`), "pre-stop\n");
        assert.deepEqual(http.hits.map((h) => h.path), ["/poststart?c=web", "/prestop"]);
      };

      const postStartFails = async () => {
        const reasons = new Set<string>();
        const p = await e2e.waitPod("hooks-poststart-fail", (p) => {
          const cs = containerStatus(p, "main");
          if (cs?.state?.waiting?.reason) reasons.add(cs.state.waiting.reason);
          return (cs?.restartCount ?? 0) >= 1;
        }, { what: "hooks-poststart-fail to restart", timeoutMs: 60_000 });
        const cs = containerStatus(p, "main");
        assert.ok(cs?.lastState?.terminated, "the killed instance is the last state");
        const attempts = await Deno.readTextFile(`${hostDir}/attempts`);
        assert.ok(attempts.split("\n").filter((l) => l === "attempt").length >= 2, attempts);
        const log = await e2e.agent.logTail(400);
        assert.match(log, /Failed to execute PostStartHook/);
        assert.match(log, /exited with 7: bad/);
        // The hook's reason shows until the crash-loop back-off takes over.
        assert.ok(
          reasons.has("PostStartHookError") || reasons.has("CrashLoopBackOff"),
          [...reasons].join(","),
        );
      };

      const cut = async (name: string) => {
        const p = await e2e.waitPod(name, isRunning, { what: `pod ${name} to run` });
        const ms = await timeRemoval(e2e, `${name}.yaml`, p.metadata!.uid!);
        // Grace period for the hook, then at least the 2 s minimum for the stop itself (the
        // container exits on TERM within a second); far below the hook's 60 s.
        assert.ok(ms >= (CUT_GRACE_SECONDS - 1) * 1000, `${name} stopped after ${ms} ms`);
        assert.ok(ms < (CUT_GRACE_SECONDS + 8) * 1000, `${name} stopped after ${ms} ms`);
      };

      await t.step("all hook pods, concurrently", async () => {
        const results = await Promise.allSettled([
          effects(),
          postStartFails(),
          cut("hooks-cut-exec"),
          cut("hooks-cut-sleep"),
        ]);
        const failures = results.flatMap((r, i) =>
          r.status === "rejected"
            ? [`${["effects", "postStart failure", "cut exec", "cut sleep"][i]}: ${r.reason}`]
            : []
        );
        if (failures.length > 0) failures.push(`agent log:\n${await e2e.agent.logTail(40)}`);
        assert.deepEqual(failures, [], failures.join("\n\n"));
      });
    } finally {
      await http.server.shutdown();
      await e2e.close();
    }
  },
});
