import assert from "node:assert/strict";
import {
  type ControlPlane,
  ensureControlPlaneBinaries,
  ETCD_VERSION,
  KubectlError,
  KUBERNETES_VERSION,
  startControlPlane,
} from "./control_plane.ts";
import { kubernetesGoMod, stagingModules } from "./_control_plane_build.ts";
import { firstServiceIP } from "./_control_plane_config.ts";
import { run } from "./_exec.ts";
import { waitFor } from "./wait.ts";

const UPSTREAM_GO_MOD = `module k8s.io/kubernetes

go 1.26.0

godebug default=go1.26

require (
\tgithub.com/blang/semver/v4 v4.0.0
\tk8s.io/api v0.0.0
\tk8s.io/client-go v0.0.0
\tk8s.io/kube-openapi v0.0.0-20260721132016-d427ff9ee9ad
\tk8s.io/utils v0.0.0-20260626114624-be93311217bd
)

require k8s.io/kubelet v0.0.0

replace (
\tk8s.io/api => ./staging/src/k8s.io/api
\tk8s.io/client-go => ./staging/src/k8s.io/client-go
\tk8s.io/kubelet => ./staging/src/k8s.io/kubelet
\tk8s.io/sample-controller => ./staging/src/k8s.io/sample-controller
)
`;

Deno.test("the build module replaces exactly the staging modules required at v0.0.0", () => {
  assert.deepEqual(
    [...stagingModules(UPSTREAM_GO_MOD, "v1.37.2")],
    [["k8s.io/api", "v0.37.2"], ["k8s.io/client-go", "v0.37.2"], ["k8s.io/kubelet", "v0.37.2"]],
  );
  const mod = kubernetesGoMod(UPSTREAM_GO_MOD, "v1.37.2");
  assert.match(mod, /^module denolet\.test\/kubernetes-build$/m);
  assert.match(mod, /^go 1\.26\.0$/m);
  assert.match(mod, /^godebug default=go1\.26$/m);
  assert.match(mod, /^require k8s\.io\/kubernetes v1\.37\.2$/m);
  assert.match(mod, /^\tk8s\.io\/client-go => k8s\.io\/client-go v0\.37\.2$/m);
  assert.doesNotMatch(mod, /kube-openapi|k8s\.io\/utils|sample-controller|staging/);
});

Deno.test("the first service IP is the range's first address", () => {
  assert.equal(firstServiceIP("10.96.0.0/12"), "10.96.0.1");
  assert.equal(firstServiceIP("10.0.0.0/24"), "10.0.0.1");
  assert.equal(firstServiceIP("192.168.7.130/25"), "192.168.7.129");
});

Deno.test("ensureControlPlaneBinaries provides the pinned versions and reuses its cache", async () => {
  const bins = await ensureControlPlaneBinaries();
  const before = await Promise.all(Object.values(bins).map((p) => Deno.stat(p)));
  const again = await ensureControlPlaneBinaries({ log: () => assert.fail("rebuilt") });
  assert.deepEqual(again, bins);
  const after = await Promise.all(Object.values(bins).map((p) => Deno.stat(p)));
  assert.deepEqual(after.map((s) => s.mtime), before.map((s) => s.mtime));

  const kubectl = JSON.parse(await run(bins.kubectl, ["version", "--client", "-o", "json"]));
  assert.equal(kubectl.clientVersion.gitVersion, KUBERNETES_VERSION);
  assert.match(
    await run(bins.kubelet, ["--version"]),
    new RegExp(`Kubernetes ${KUBERNETES_VERSION}`),
  );
  assert.match(
    await run(bins.etcd, ["--version"]),
    new RegExp(`etcd Version: ${ETCD_VERSION.slice(1)}`),
  );
});

Deno.test({
  name: "startControlPlane runs a working control plane on loopback and stop() leaves nothing",
  // The first run on a machine builds the binaries (minutes); the sanitizers would only see the
  // daemons' child processes, which stop() awaits.
  async fn(t) {
    const cp = await startControlPlane();
    const pids = cp.processes();
    let stoppedOk = false;
    try {
      assert.deepEqual(pids.map((p) => p.name), [
        "etcd",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
      ]);
      assert.match(cp.server, /^https:\/\/127\.0\.0\.1:\d+$/);

      await t.step("the API server is ready and reports the pinned version", async () => {
        assert.equal((await cp.kubectl(["get", "--raw", "/readyz"])).trim(), "ok");
        const v = JSON.parse(await cp.kubectl(["version", "-o", "json"]));
        assert.equal(v.serverVersion.gitVersion, KUBERNETES_VERSION);
      });

      await t.step("a namespace and a ConfigMap can be created", async () => {
        await cp.kubectl(["create", "namespace", "cp-test"]);
        await cp.kubectl([
          "create",
          "configmap",
          "settings",
          "-n",
          "cp-test",
          "--from-literal=colour=blue",
        ]);
        const cm = JSON.parse(
          await cp.kubectl(["get", "configmap", "settings", "-n", "cp-test", "-o", "json"]),
        );
        assert.equal(cm.data.colour, "blue");
      });

      await t.step(
        "a Deployment gets its ReplicaSet and Pods, unschedulable without nodes",
        async () => {
          await cp.kubectl(["apply", "-f", "-"], { stdin: deployment("web", "cp-test", 2) });
          await waitForPods(cp, "cp-test", "app=web", 2);
          const rs = JSON.parse(await cp.kubectl(["get", "rs", "-n", "cp-test", "-o", "json"]));
          assert.equal(rs.items.length, 1);
          assert.equal(rs.items[0].metadata.ownerReferences[0].kind, "Deployment");
          assert.equal(rs.items[0].metadata.ownerReferences[0].name, "web");
          // The scheduler saw them: PodScheduled=False, Unschedulable (there is no node).
          const pods = await waitFor(async () => {
            const list = JSON.parse(
              await cp.kubectl(["get", "pods", "-n", "cp-test", "-l", "app=web", "-o", "json"]),
            );
            const all = list.items as PodJSON[];
            return all.every((p) => scheduledCondition(p)?.reason === "Unschedulable") && all;
          }, { timeoutMs: 120_000, what: "the scheduler to mark the pods Unschedulable" });
          for (const p of pods) {
            assert.equal(p.status.phase, "Pending");
            assert.equal(p.spec.nodeName, undefined);
            assert.equal(p.metadata.ownerReferences[0].kind, "ReplicaSet");
          }
        },
      );

      await t.step("a node kubeconfig authenticates as system:node:<name>", async () => {
        const kubeconfig = await cp.nodeKubeconfig("edge-1");
        const who = JSON.parse(
          await cp.kubectl(["auth", "whoami", "-o", "json"], { kubeconfig }),
        );
        assert.equal(who.status.userInfo.username, "system:node:edge-1");
        assert.ok(who.status.userInfo.groups.includes("system:nodes"), who.status.userInfo.groups);
        // The Node authorizer keeps a node from listing what is not bound to it.
        const denied = await cp.kubectl(["get", "secrets", "-n", "cp-test"], { kubeconfig }).then(
          () => undefined,
          (err) => err,
        );
        assert.ok(denied instanceof KubectlError, String(denied));
        assert.match(denied.stderr, /forbidden/i);
      });

      await t.step("stopApiServer/startApiServer keeps the data and the port", async () => {
        const server = cp.server;
        const apiPid = cp.processes().find((p) => p.name === "kube-apiserver")!.pid;
        await cp.stopApiServer();
        assert.ok(!cp.processes().some((p) => p.name === "kube-apiserver"));
        assert.ok(!(await alive(apiPid)));
        await assert.rejects(
          cp.kubectl(["get", "configmap", "settings", "-n", "cp-test"]),
          (err: unknown) => err instanceof KubectlError && /refused/.test(err.stderr),
        );
        await cp.startApiServer();
        assert.equal(cp.server, server);
        const cm = JSON.parse(
          await cp.kubectl(["get", "configmap", "settings", "-n", "cp-test", "-o", "json"]),
        );
        assert.equal(cm.data.colour, "blue");
        // The controllers reconnect too: a new Deployment still gets its pods.
        await cp.kubectl(["apply", "-f", "-"], { stdin: deployment("after", "cp-test", 1) });
        await waitForPods(cp, "cp-test", "app=after", 1);
      });

      await t.step("stop() leaves no process and no temp dir behind", async () => {
        const all = [...pids, ...cp.processes()];
        await cp.stop();
        stoppedOk = true;
        for (const p of all) assert.ok(!(await alive(p.pid)), `${p.name} (${p.pid}) survived`);
        assert.deepEqual(cp.processes(), []);
        assert.deepEqual(await processesUsing(cp.dir), []);
        await assert.rejects(Deno.stat(cp.dir), Deno.errors.NotFound);
      });
    } finally {
      if (!stoppedOk) await cp.stop();
    }
  },
});

interface PodJSON {
  metadata: { name: string; ownerReferences: { kind: string; name: string }[] };
  spec: { nodeName?: string };
  status: { phase: string; conditions?: { type: string; status: string; reason?: string }[] };
}

function scheduledCondition(p: PodJSON) {
  return p.status.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
}

function deployment(name: string, namespace: string, replicas: number): string {
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{
            name: "main",
            image: "denolet.test/busybox:1.35",
            imagePullPolicy: "IfNotPresent",
            command: ["sleep", "3600"],
          }],
        },
      },
    },
  });
}

async function waitForPods(
  cp: ControlPlane,
  namespace: string,
  selector: string,
  count: number,
): Promise<void> {
  await waitFor(async () => {
    const out = await cp.kubectl(["get", "pods", "-n", namespace, "-l", selector, "-o", "name"]);
    return out.trim().split("\n").filter((l) => l !== "").length === count;
  }, { timeoutMs: 120_000, what: `${count} pods ${selector} in ${namespace}` });
}

async function alive(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** Pids whose command line mentions `dir`: every daemon gets paths under the temp dir. */
async function processesUsing(dir: string): Promise<number[]> {
  const found: number[] = [];
  for await (const e of Deno.readDir("/proc")) {
    const pid = Number(e.name);
    if (!Number.isInteger(pid) || pid === Deno.pid) continue;
    const cmdline = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch((err) => {
      if (err instanceof Deno.errors.NotFound) return "";
      throw err;
    });
    if (cmdline.includes(dir) && (await alive(pid))) found.push(pid);
  }
  return found;
}
