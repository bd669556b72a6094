/**
 * Edge autonomy (issue 12) on the real stack: a control plane, the dev containerd, the agent.
 * (a) a Deployment's pods (a ConfigMap volume, a Secret in env, the injected service-account
 * token) run; the API server stops; an agent restart adopts the running containers; the node
 * "reboots" (agent stopped, every sandbox and container removed, tmpfs volumes unmounted,
 * cgroups gone, containerd restarted); the agent starts without the API server and runs them
 * all again from its checkpoint within 30 s of the runtime being ready (measured, printed); the
 * API server returns: the Node is Ready, the statuses in the API are the new containers', and
 * nothing restarts. (b) Then the API's view
 * wins: a deleted pod stops, a scaled Deployment's new pods start. (c) kill -9 of the agent
 * during a burst of updates leaves a checkpoint that loads. A Node deleted from the API server
 * registers again. (d) An agent with no checkpoint and no API server runs its static pods, keeps
 * retrying, and `/healthz` says why.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod, V1PodList } from "@kubernetes/client-node";
import { stringify as toYaml } from "yaml";
import {
  type CheckpointKind,
  CheckpointStore,
  type KindData,
  TEMP_MARK,
} from "../../src/checkpoint/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { systemMounter } from "../../src/volumes/mod.ts";
import { removeAgentSandboxes, removeCgroupTree, startAgent } from "../support/agent.ts";
import { startContainerd, stopContainerd } from "../support/containerd.ts";
import { waitFor } from "../support/wait.ts";
import { BUSYBOX, busyboxPod, E2E_TEST, setupCluster } from "./_cluster.ts";
import { isRunning } from "./_helpers.ts";

const TARGET_MS = 30_000;

const ready = (p: V1Pod | V1Node | undefined) =>
  (p?.status?.conditions as { type: string; status: string }[] | undefined)?.find((c) =>
    c.type === "Ready"
  )?.status === "True";

/** The pod template: every kind of checkpointed object is needed to become Ready. */
const EDGE_DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "edge", namespace: "default" },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "edge" } },
    template: {
      metadata: { labels: { app: "edge" } },
      spec: {
        terminationGracePeriodSeconds: 5,
        volumes: [{ name: "config", configMap: { name: "edge-config" } }],
        containers: [{
          name: "main",
          image: BUSYBOX,
          imagePullPolicy: "IfNotPresent",
          command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"],
          env: [{
            name: "PASSWORD",
            valueFrom: { secretKeyRef: { name: "edge-secret", key: "password" } },
          }],
          volumeMounts: [{ name: "config", mountPath: "/config" }],
          // Ready only with the ConfigMap's file, the Secret's value and the token in place.
          readinessProbe: {
            exec: {
              command: [
                "sh",
                "-c",
                'grep -q hello /config/greeting && [ "$PASSWORD" = s3cret ] && ' +
                "[ -s /var/run/secrets/kubernetes.io/serviceaccount/token ]",
              ],
            },
            periodSeconds: 1,
          },
          resources: { requests: { cpu: "10m", memory: "8Mi" } },
        }],
      },
    },
  },
};

async function loadCheckpoint(rootDir: string) {
  const store = new CheckpointStore({
    dir: `${rootDir}/checkpoint`,
    clock: realClock,
    logger: nullLogger,
  });
  const kinds: CheckpointKind[] = ["pods", "configmaps", "secrets", "tokens", "services"];
  const out: Partial<{ [K in CheckpointKind]: KindData[K] }> = {};
  for (const kind of kinds) {
    const loaded = await store.load(kind);
    assert.equal(loaded.state, "saved", `${kind}: ${JSON.stringify(loaded)}`);
    if (loaded.state === "saved") Object.assign(out, { [kind]: loaded.data });
  }
  return out as { [K in CheckpointKind]: KindData[K] };
}

/** The checkpoint's entries, `<kind>/<file>` for those in a kind's directory. */
function checkpointEntries(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    out.push(e.name);
    if (e.isDirectory) {
      for (const f of Deno.readDirSync(`${dir}/${e.name}`)) out.push(`${e.name}/${f.name}`);
    }
  }
  return out;
}

const uidsOf = (pods: V1Pod[]) => pods.map((p) => p.metadata!.uid!).sort();

Deno.test({
  name: "Edge autonomy: pods come back after an offline reboot, the API's view wins on return, " +
    "the checkpoint survives kill -9, and a start with nothing says why",
  ...E2E_TEST,
  async fn(t) {
    // Its own control plane, stopped by close() (or when the set-up fails).
    const e2e = await setupCluster();
    const cp = e2e.cp;
    const node = e2e.nodeName;
    const rs = e2e.cri.runtime;
    let apiUp = true;
    const edgePods = async () =>
      ((await e2e.getJson<V1PodList>(["pods", "-n", "default", "-l", "app=edge"]))?.items ?? [])
        .filter((p) => !p.metadata?.deletionTimestamp);
    /** The running containers of the node's edge pods, as `id@attempt`, by pod UID. */
    const runningContainers = async () => {
      const list = await rs.listContainers({
        labelSelector: { "io.denolet.node-name": node },
      });
      return list
        .filter((c) =>
          c.state === "CONTAINER_RUNNING" &&
          c.labels?.["io.kubernetes.pod.name"]?.startsWith("edge-")
        )
        .map((c) => `${c.labels?.["io.kubernetes.pod.uid"]}/${c.id}@${c.metadata.attempt}`)
        .sort();
    };
    /** The edge pods as the agent's own node API shows them (works without the API server). */
    const localEdgePods = async () =>
      (await e2e.agent.pods()).items.filter((p) => p.metadata?.labels?.app === "edge");

    try {
      await waitFor(async () => ready(await e2e.getJson<V1Node>(["node", node])), {
        timeoutMs: 60_000,
        intervalMs: 500,
        what: `node ${node} Ready`,
      });

      let before: V1Pod[] = [];
      await t.step(
        "(a) a reboot without the API server brings every pod back within 30 s",
        async () => {
          await e2e.apply(
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: "edge-config", namespace: "default" },
              data: { greeting: "hello" },
            },
            {
              apiVersion: "v1",
              kind: "Secret",
              metadata: { name: "edge-secret", namespace: "default" },
              stringData: { password: "s3cret" },
            },
            EDGE_DEPLOYMENT,
          );
          before = await waitFor(async () => {
            const items = await edgePods();
            return items.length === 3 && items.every((p) => isRunning(p) && ready(p))
              ? items
              : undefined;
          }, { timeoutMs: 120_000, intervalMs: 500, what: "3 edge pods Running and Ready" });

          // The checkpoint holds them, what they use, and nothing for others to read.
          const saved = await waitFor(async () => {
            const c = await loadCheckpoint(e2e.rootDir);
            const pods = c.pods.pods.filter((p) => p.metadata?.labels?.app === "edge");
            return uidsOf(pods).join() === uidsOf(before).join() && c.tokens.tokens.length >= 3 &&
                c.configmaps.objects.some((o) => o.metadata?.name === "kube-root-ca.crt")
              ? c
              : undefined;
          }, {
            timeoutMs: 30_000,
            what: "the checkpoint holding the edge pods, objects and tokens",
          });
          assert.ok(saved.configmaps.objects.some((o) => o.metadata?.name === "edge-config"));
          assert.ok(saved.secrets.objects.some((o) => o.metadata?.name === "edge-secret"));
          // The service-link env of pods restarted offline comes from here.
          assert.ok(saved.services.objects.some((o) => o.metadata?.name === "kubernetes"));
          const dir = `${e2e.rootDir}/checkpoint`;
          assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
          // A directory per kind (0700), a file per object (0600).
          for (const name of checkpointEntries(dir)) {
            const st = await Deno.stat(`${dir}/${name}`);
            assert.equal(st.mode! & 0o777, st.isDirectory ? 0o700 : 0o600, name);
          }

          // The uplink goes. An agent restart now adopts what runs: same pods, same containers.
          await cp.stopApiServer();
          apiUp = false;
          const survivors = await runningContainers();
          assert.equal(survivors.length, 3);
          await e2e.restartAgent();
          await waitFor(async () => {
            const pods = await localEdgePods();
            return pods.length === 3 && pods.every((p) => isRunning(p) && ready(p));
          }, {
            timeoutMs: 60_000,
            what: "the edge pods adopted from the checkpoint, Running and Ready",
          });
          await new Promise((r) => setTimeout(r, 10_000)); // syncs, housekeeping, clean-up
          assert.deepEqual(await runningContainers(), survivors, "adopted: no container restarted");

          // Then the power.
          await e2e.agent.stop();
          const removed = await removeAgentSandboxes(rs, node);
          assert.ok(removed >= 3, `the node's sandboxes removed (${removed})`);
          const mounter = systemMounter();
          for (
            const m of (await mounter.mountPointsUnder(e2e.rootDir)).sort((a, b) =>
              b.length - a.length
            )
          ) {
            await mounter.unmount(m); // tmpfs does not survive a reboot
          }
          await removeCgroupTree(`denolet-e2e/${node}`);
          await stopContainerd();
          await startContainerd();
          const runtimeReady = Date.now();

          await e2e.restartAgent();
          const running = await waitFor(async () => {
            const pods = await localEdgePods();
            return pods.length === 3 && pods.every(isRunning) ? pods : undefined;
          }, {
            timeoutMs: 120_000,
            intervalMs: 200,
            what: "the 3 edge pods Running from the checkpoint",
          });
          const runningMs = Date.now() - runtimeReady;
          await waitFor(async () => (await localEdgePods()).every(ready), {
            timeoutMs: 120_000,
            intervalMs: 200,
            what: "the 3 edge pods Ready (ConfigMap, Secret and token from the checkpoint)",
          });
          const readyMs = Date.now() - runtimeReady;
          console.log(
            `[edge-autonomy] after an offline reboot: 3 checkpointed pods Running ${runningMs} ms ` +
              `and Ready ${readyMs} ms after the runtime was ready (target ${TARGET_MS} ms)`,
          );
          assert.deepEqual(uidsOf(running), uidsOf(before), "the same pods, by UID");
          assert.ok(runningMs <= TARGET_MS, `Running ${runningMs} ms after the runtime was ready`);
          const health = await e2e.agent.get("/healthz/apiserver");
          assert.equal(
            health.status,
            200,
            `running from the checkpoint is not a failure: ${await health.text()}`,
          );
          assert.match(await e2e.agent.logTail(2_000), /running the pods of the checkpoint/);

          // The uplink returns.
          await cp.startApiServer();
          apiUp = true;
          const back = Date.now();
          await waitFor(async () => ready(await e2e.getJson<V1Node>(["node", node])), {
            timeoutMs: 60_000,
            intervalMs: 500,
            what: "the Node Ready again",
          });
          const containers = await runningContainers();
          assert.equal(containers.length, 3);
          await waitFor(async () => {
            const items = await edgePods();
            if (items.length !== 3 || !items.every((p) => isRunning(p) && ready(p))) return false;
            // Current: the API shows the containers that run now, not the ones before the reboot.
            const shown = items.map((p) => p.status!.containerStatuses![0].containerID!).sort();
            const ids = containers.map((c) => `containerd://${c.split("/")[1].split("@")[0]}`)
              .sort();
            return shown.join() === ids.join();
          }, {
            timeoutMs: 60_000,
            intervalMs: 500,
            what: "the API's statuses naming the new containers",
          });
          console.log(
            `[edge-autonomy] statuses current in the API ${Date.now() - back} ms after it returned`,
          );
          await new Promise((r) => setTimeout(r, 15_000)); // several syncs, watches, status writes
          assert.deepEqual(
            await runningContainers(),
            containers,
            "no container restarted after the return",
          );
          assert.deepEqual(uidsOf(await edgePods()), uidsOf(before), "the same pods in the API");
        },
      );

      await t.step(
        "(b) back online, the API's view wins: a deleted pod stops, new pods start",
        async () => {
          const victim = before[0];
          const victimUid = victim.metadata!.uid!;
          const t0 = Date.now();
          const took = (what: string) =>
            console.log(`[edge-autonomy] ${what} after ${Date.now() - t0} ms`);
          await e2e.kubectl(["delete", "pod", victim.metadata!.name!, "--wait=false"]);
          await e2e.kubectl(["scale", "deployment", "edge", "--replicas=4"]);
          await waitFor(
            async () => !(await runningContainers()).some((c) => c.startsWith(`${victimUid}/`)),
            { timeoutMs: 60_000, what: "the deleted pod's container stopped" },
          );
          took("the deleted pod's container stopped");
          await waitFor(async () => (await e2e.pod(victim.metadata!.name!)) === undefined, {
            timeoutMs: 60_000,
            intervalMs: 500,
            what: "the deleted pod gone from the API",
          });
          took("the deleted pod gone from the API");
          await waitFor(async () => {
            const items = await edgePods();
            return items.length === 4 && items.every((p) => p.spec?.nodeName === node);
          }, { timeoutMs: 180_000, intervalMs: 500, what: "4 edge pods bound to the node" });
          took("4 edge pods bound to the node (the scheduler's part)");
          const now = await waitFor(async () => {
            const items = await edgePods();
            return items.length === 4 && items.every((p) => isRunning(p) && ready(p)) &&
                !items.some((p) => p.metadata?.uid === victimUid)
              ? items
              : undefined;
          }, {
            timeoutMs: 120_000,
            intervalMs: 500,
            what: "4 edge pods Running and Ready without the deleted one",
          });
          took("4 edge pods Running and Ready in the API");
          const kept = before.slice(1).map((p) => p.metadata!.uid!);
          for (const uid of kept) {
            assert.ok(now.some((p) => p.metadata?.uid === uid), `${uid} kept`);
          }
          await waitFor(async () => {
            const c = await loadCheckpoint(e2e.rootDir);
            const pods = c.pods.pods.filter((p) => p.metadata?.labels?.app === "edge");
            return uidsOf(pods).join() === uidsOf(now).join();
          }, {
            timeoutMs: 30_000,
            what: "the checkpoint following: the deleted pod out, the new ones in",
          });
          before = now;
        },
      );

      await t.step(
        "(c) kill -9 during a burst of updates leaves a checkpoint that loads",
        async () => {
          const containers = await runningContainers();
          for (let round = 0; round < 3; round++) {
            const stop = new AbortController();
            const burst = (async () => {
              for (let i = 0; !stop.signal.aborted; i++) {
                await Promise.all([
                  e2e.kubectl([
                    "annotate",
                    "pods",
                    "-l",
                    "app=edge",
                    `burst=${round}-${i}`,
                    "--overwrite",
                  ]),
                  e2e.kubectl([
                    "patch",
                    "configmap",
                    "edge-config",
                    "-p",
                    JSON.stringify({ data: { greeting: "hello", n: `${round}-${i}` } }),
                  ]),
                ]);
              }
            })();
            await new Promise((r) => setTimeout(r, 2_000 + Math.random() * 3_000));
            e2e.agent.kill("SIGKILL");
            await e2e.agent.exited;
            stop.abort();
            await burst;
            const c = await loadCheckpoint(e2e.rootDir);
            assert.equal(c.pods.pods.filter((p) => p.metadata?.labels?.app === "edge").length, 4);
            assert.ok(c.configmaps.objects.some((o) => o.metadata?.name === "edge-config"));
            const left = checkpointEntries(`${e2e.rootDir}/checkpoint`);
            assert.ok(!left.some((n) => n.endsWith(".corrupt")), `nothing corrupt: ${left}`);
            // A write the kill cut short leaves its temp file; the next start removes it (the
            // agent's own writes after that use new names).
            const torn = left.filter((n) => n.includes(TEMP_MARK));
            if (torn.length > 0) {
              console.log(`[edge-autonomy] kill -9 round ${round} cut a write short: ${torn}`);
            }
            await e2e.restartAgent();
            const after = checkpointEntries(`${e2e.rootDir}/checkpoint`);
            assert.ok(!torn.some((n) => after.includes(n)), `torn temp files swept: ${after}`);
          }
          await waitFor(async () => (await edgePods()).every((p) => isRunning(p) && ready(p)), {
            timeoutMs: 60_000,
            what: "the edge pods Running and Ready after the kills",
          });
          assert.deepEqual(
            await runningContainers(),
            containers,
            "the containers were adopted each time",
          );
        },
      );

      await t.step("a Node deleted from the API server registers again", async () => {
        const old = await e2e.getJson<V1Node>(["node", node]);
        const t0 = Date.now();
        await e2e.kubectl(["delete", "node", node, "--wait=false"]);
        const again = await waitFor(async () => {
          const n = await e2e.getJson<V1Node>(["node", node]);
          return n && n.metadata?.uid !== old?.metadata?.uid && ready(n) ? n : undefined;
        }, { timeoutMs: 60_000, intervalMs: 500, what: `node ${node} registered again and Ready` });
        console.log(
          `[edge-autonomy] the deleted Node registered again after ${Date.now() - t0} ms`,
        );
        assert.equal(again.metadata?.labels?.["kubernetes.io/hostname"], node);
        await waitFor(async () => {
          const lease = await e2e.getJson<{ metadata: { ownerReferences?: { uid: string }[] } }>(
            ["lease", node, "-n", "kube-node-lease"],
          );
          return lease?.metadata.ownerReferences?.[0]?.uid === again.metadata?.uid;
        }, { timeoutMs: 60_000, intervalMs: 1_000, what: "the lease owned by the new Node" });
      });

      await t.step(
        "(d) no checkpoint and no API server: static pods run, /healthz says why",
        async () => {
          const name = `${node}-bare`;
          const kubeconfig = await cp.nodeKubeconfig(name);
          const manifestDir = await Deno.makeTempDir({ prefix: "denolet-e2e-bare-" });
          await Deno.writeTextFile(
            `${manifestDir}/lonely.yaml`,
            toYaml(busyboxPod("lonely", "while true; do sleep 1; done")),
          );
          await cp.stopApiServer();
          apiUp = false;
          const bare = await startAgent({
            runtime: e2e.agent.runtime,
            hostname: name,
            manifestDir,
            cleanupWith: rs,
            extraArgs: ["--kubeconfig", kubeconfig, "--file-check-frequency", "1s"],
          });
          try {
            await waitFor(async () => {
              const p = (await bare.pods()).items.find((x) =>
                x.metadata?.name === `lonely-${name}`
              );
              return p && isRunning(p);
            }, { timeoutMs: 60_000, what: "the static pod Running without the API server" });
            const healthz = async () => {
              const all = await bare.get("/healthz");
              const one = await bare.get("/healthz/apiserver");
              return {
                all: all.status,
                allText: await all.text(),
                one: one.status,
                oneText: await one.text(),
              };
            };
            let h = await healthz();
            assert.equal(h.all, 500);
            assert.match(h.allText, /\[-\]apiserver failed: reason withheld/);
            assert.equal(h.one, 500);
            assert.match(
              h.oneText,
              new RegExp(
                `cannot list the pods bound to node "${name}" from the API server at https://[^:]+:\\d+: .+; ` +
                  "no checkpoint of them to run meanwhile \\(static pods run\\); retrying",
              ),
            );
            await new Promise((r) => setTimeout(r, 10_000));
            h = await healthz();
            assert.equal(h.one, 500, "still failing, still saying why");
            assert.ok(
              (await bare.pods()).items.some((p) =>
                p.metadata?.name === `lonely-${name}` && isRunning(p)
              ),
            );
            assert.match(await bare.logTail(2_000), /Cannot list; will retry/);

            await cp.startApiServer();
            apiUp = true;
            // It kept trying: the first list that works makes it healthy and a node of the cluster.
            await waitFor(async () => (await healthz()).all === 200, {
              timeoutMs: 90_000,
              intervalMs: 500,
              what: "/healthz passing once the API server answers",
            });
            await waitFor(async () => ready(await e2e.getJson<V1Node>(["node", name])), {
              timeoutMs: 60_000,
              intervalMs: 500,
              what: `node ${name} registered and Ready`,
            });
          } finally {
            await bare.stop();
            await Deno.remove(manifestDir, { recursive: true });
            if (apiUp) {
              await e2e.kubectl(["delete", "node", name, "--ignore-not-found", "--wait=false"]);
            }
          }
        },
      );
    } finally {
      if (!apiUp) {
        await cp.startApiServer().catch((err) =>
          console.error(`cannot restart the API server: ${err}`)
        );
      }
      await e2e.close();
    }
  },
});
