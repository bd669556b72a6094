/**
 * The node API through a real control plane: kube-apiserver dials the node at its InternalIP and
 * the port the Node reports, with its kubelet client certificate, and kubectl users get logs
 * (-f, --previous, --tail, --timestamps), exec (a command, and -it with a TTY), attach and
 * port-forward on pods of a denolet node; `kubectl top` works through a real metrics-server
 * scraping /metrics/resource. The gate: tokens through TokenReview and SubjectAccessReview
 * (nodes/stats without nodes/proxy), anonymous refused (401, or 403 when allowed in but not
 * authorized), client certificates from the cluster CA, and a serving certificate bootstrapped
 * through a kubernetes.io/kubelet-serving CSR approved here.
 *
 * Why InternalIP and not the node name: the upstream kubelet refuses a loopback --node-ip, and
 * mapping a per-test node name to 127.0.0.1 needs a machine-wide /etc/hosts entry. The node's
 * real interface address is routable on the test machine, and the node API listens there.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { detectNodeIP } from "../../src/agent/_node_ip.ts";
import { type ControlPlane, startControlPlane } from "../support/control_plane.ts";
import {
  frontProxyArgs,
  type MetricsServer,
  startMetricsServer,
} from "../support/metrics_server.ts";
import { freePort, waitFor } from "../support/wait.ts";
import { BUSYBOX, type ClusterE2E, E2E_TEST, setupCluster } from "./_cluster.ts";
import { nodeFetch, servingCA, type TlsIdentity } from "./_node_api.ts";

function pod(name: string, node: string, spec: Partial<V1Pod["spec"]> & { script: string }): V1Pod {
  const { script, ...rest } = spec;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 2,
      // No service-account token: nothing here talks to the API server.
      automountServiceAccountToken: false,
      containers: [{
        name: "main",
        image: BUSYBOX,
        imagePullPolicy: "IfNotPresent",
        command: ["sh", "-c", script],
      }],
      ...rest,
    },
  };
}

/** Reads lines from its stdin and answers each: what `kubectl attach -i` talks to. */
function listenerPod(node: string): V1Pod {
  const p = pod("listener", node, { script: 'while read l; do echo "got:$l"; done; sleep 3600' });
  p.spec!.containers[0].stdin = true;
  return p;
}

/** A kubectl child process (admin) whose output is collected as it comes. */
function kubectlProcess(cp: ControlPlane, args: string[], opts: { stdin?: boolean } = {}) {
  const child = new Deno.Command(cp.binaries.kubectl, {
    args: [`--kubeconfig=${cp.adminKubeconfig}`, ...args],
    stdin: opts.stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  let err = "";
  const pump = async (s: ReadableStream<Uint8Array>, add: (t: string) => void) => {
    for await (const t of s.pipeThrough(new TextDecoderStream())) add(t);
  };
  const done = Promise.all([
    pump(child.stdout, (t) => (out += t)),
    pump(child.stderr, (t) => (err += t)),
    child.status,
  ]);
  return {
    child,
    get out() {
      return out;
    },
    get err() {
      return err;
    },
    async waitOut(pred: (s: string) => boolean, what: string, timeoutMs = 60_000) {
      await waitFor(() => pred(out), {
        what: `${what} (kubectl said: ${out}${err})`,
        timeoutMs,
        intervalMs: 100,
      });
    },
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch (e) {
        // Already exited.
        if (!(e instanceof TypeError)) throw e;
      }
      await done;
    },
    done,
  };
}

Deno.test({
  name:
    "node API through the control plane: kubectl logs, exec, attach, port-forward, top; the gate",
  ...E2E_TEST,
  async fn(t) {
    const nodeIP = detectNodeIP();
    assert.ok(nodeIP, "the test machine needs a non-loopback address for the node");
    const front = await frontProxyArgs();
    const cp = await startControlPlane({ apiServerArgs: front.apiServerArgs });
    const port = freePort();
    let c: ClusterE2E | undefined;
    let metrics: MetricsServer | undefined;
    try {
      // On every interface: the API server dials the InternalIP, the harness checks the
      // read-only port (same --address, as upstream) on loopback.
      c = await setupCluster({ controlPlane: cp, nodeApi: { port } });
      const e2e = c;
      const node = e2e.nodeName;
      await e2e.waitNodeReady({ timeoutMs: 60_000 });
      const kubectl = (args: string[], stdin?: string) => e2e.kubectl(args, { stdin });

      await e2e.apply(
        pod("talker", node, {
          script: 'i=0; while true; do i=$((i+1)); echo "talk $i"; sleep 0.2; done',
        }),
        pod("crasher", node, {
          script: 'echo "crash run at $(cat /proc/uptime)"; sleep 2; exit 1',
        }),
        pod("shell", node, { script: "echo ready; sleep 3600" }),
        pod("web", node, {
          script:
            "mkdir -p /www; echo page-from-pod > /www/index.html; exec httpd -f -p 8080 -h /www",
        }),
        listenerPod(node),
      );
      const running = (name: string) =>
        e2e.waitPod(
          name,
          (p) => p.status?.phase === "Running" && !!p.status.containerStatuses?.[0]?.state?.running,
          {
            what: `${name} Running`,
            timeoutMs: 90_000,
          },
        );
      await Promise.all(["talker", "shell", "web", "listener"].map(running));

      await t.step("kubectl logs: plain, --tail, --timestamps, -f and --previous", async () => {
        await waitFor(async () => (await kubectl(["logs", "talker"])).includes("talk 5\n"), {
          what: "talker's fifth line through kubectl logs",
        });
        const tail = (await kubectl(["logs", "talker", "--tail=2"])).trimEnd().split("\n");
        assert.equal(tail.length, 2);
        assert.match(tail[0], /^talk \d+$/);
        const stamped = await kubectl(["logs", "talker", "--tail=1", "--timestamps"]);
        assert.match(stamped, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+\S* talk \d+\n$/);
        const follow = kubectlProcess(cp, ["logs", "-f", "talker", "--tail=1"]);
        try {
          const first = await (async () => {
            await follow.waitOut((s) => /talk (\d+)\n/.test(s), "a first followed line");
            return Number(/talk (\d+)\n/.exec(follow.out)![1]);
          })();
          await follow.waitOut(
            (s) => s.includes(`talk ${first + 5}\n`),
            "five more followed lines",
          );
        } finally {
          await follow.stop();
        }
        await e2e.waitPod(
          "crasher",
          (p) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1,
          { what: "crasher restarted", timeoutMs: 90_000 },
        );
        assert.match(
          await kubectl(["logs", "crasher", "--previous"]),
          /^crash run at [\d.]+ [\d.]+\n$/,
        );
      });

      await t.step("kubectl exec: a command, and -it with a TTY", async () => {
        assert.equal(
          await kubectl(["exec", "shell", "--", "sh", "-c", "echo hi from $(hostname)"]),
          "hi from shell\n",
        );
        // `script` gives kubectl a terminal, so -t is honoured end to end.
        const tty = new Deno.Command("script", {
          args: [
            "-qec",
            `${cp.binaries.kubectl} --kubeconfig=${cp.adminKubeconfig} exec -it shell -- sh`,
            "/dev/null",
          ],
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const w = tty.stdin.getWriter();
        await w.write(new TextEncoder().encode("tty; echo answer=$((6*7)); exit\n"));
        const out = await Promise.race([
          tty.output(),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error("exec -it hung")), 60_000)
          ),
        ]);
        await w.close().catch(() => undefined);
        const text = new TextDecoder().decode(out.stdout);
        assert.match(text, /\/dev\/pts\/\d+/, text);
        assert.match(text, /answer=42/, text);
      });

      await t.step(
        "kubectl attach -i: stdin reaches the process, its output comes back",
        async () => {
          const attach = kubectlProcess(cp, ["attach", "-i", "listener", "-c", "main"], {
            stdin: true,
          });
          const w = attach.child.stdin.getWriter();
          try {
            await waitFor(async () => {
              await w.write(new TextEncoder().encode("hello\n"));
              return attach.out.includes("got:hello");
            }, {
              what: `attached output (kubectl: ${attach.err})`,
              intervalMs: 1000,
              timeoutMs: 60_000,
            });
          } finally {
            await w.close().catch(() => undefined);
            await attach.stop();
          }
        },
      );

      await t.step("kubectl port-forward: the pod's page through the forwarded port", async () => {
        const pf = kubectlProcess(cp, ["port-forward", "pod/web", ":8080"]);
        try {
          await pf.waitOut(
            (s) => /Forwarding from 127\.0\.0\.1:(\d+)/.test(s),
            "port-forward ready",
          );
          const local = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(pf.out)![1]);
          const page = await waitFor(async () => {
            const res = await fetch(`http://127.0.0.1:${local}/`);
            return res.ok ? await res.text() : undefined;
          }, { what: "the page through the forward" });
          assert.equal(page, "page-from-pod\n");
        } finally {
          await pf.stop();
        }
      });

      const ca = await servingCA(`${e2e.rootDir}/pki`);
      await t.step("the gate: tokens are reviewed, nodes/stats is not nodes/proxy", async () => {
        await kubectl(["create", "serviceaccount", "viewer"]);
        await kubectl([
          "create",
          "clusterrole",
          "node-stats",
          "--verb=get",
          "--resource=nodes/stats",
        ]);
        await kubectl([
          "create",
          "clusterrolebinding",
          "viewer-node-stats",
          "--clusterrole=node-stats",
          "--serviceaccount=default:viewer",
        ]);
        const token = (await kubectl(["create", "token", "viewer"])).trim();
        const viewer: TlsIdentity = { host: nodeIP, caCerts: [ca], token };
        const stats = await waitFor(async () => {
          const res = await nodeFetch(port, "/stats/summary", viewer);
          return res.status === 200 ? await res.json() : undefined;
        }, { what: "/stats/summary with the viewer's token (RBAC takes a moment)" });
        assert.equal(stats.node.nodeName, node);
        const exec = await nodeFetch(port, "/exec/default/shell/main?command=id&output=1", viewer, {
          method: "POST",
        });
        assert.equal(exec.status, 403);
        assert.equal(
          await exec.text(),
          "Forbidden (user=system:serviceaccount:default:viewer, verb=create, resource=nodes, subresource(s)=[proxy])",
        );
        const pods = await nodeFetch(port, "/pods", viewer);
        assert.equal(pods.status, 403);
        assert.match(await pods.text(), /subresource\(s\)=\[pods proxy\]/);
        const forged = await nodeFetch(port, "/stats/summary", { ...viewer, token: `${token}x` });
        assert.equal(forged.status, 401);
        const anonymous = await nodeFetch(port, "/stats/summary", { host: nodeIP, caCerts: [ca] });
        assert.equal(anonymous.status, 401);
      });

      await t.step("the gate: client certificates signed by the cluster CA are users", async () => {
        const admin: TlsIdentity = {
          host: nodeIP,
          caCerts: [ca],
          cert: await Deno.readTextFile(`${cp.dir}/pki/admin.crt`),
          key: await Deno.readTextFile(`${cp.dir}/pki/admin.key`),
        };
        const res = await nodeFetch(port, "/pods", admin);
        assert.equal(res.status, 200);
        const { testCA } = await import("../server/_certs.ts");
        const stranger = await (await testCA("not-the-cluster")).issue({
          commonName: "kubernetes-admin",
          organizations: ["system:masters"],
          usages: ["clientAuth"],
        });
        const refused = await nodeFetch(port, "/pods", {
          ...admin,
          cert: stranger.certPem,
          key: stranger.keyPem,
        });
        assert.equal(refused.status, 401);
      });

      await t.step("kubectl top node and pod through a real metrics-server", async () => {
        metrics = await startMetricsServer(cp, { host: nodeIP });
        const top = await waitFor(async () => {
          try {
            return await kubectl(["top", "node", node, "--no-headers"]);
          } catch {
            // Not scraped yet: metrics-server needs two samples for CPU.
            return undefined;
          }
        }, { what: "kubectl top node", timeoutMs: 120_000, intervalMs: 3000 });
        assert.match(top, new RegExp(`^${node}\\s+\\d+m\\s+\\d+%\\s+\\d+Mi\\s+\\d+%`));
        const topPod = await waitFor(async () => {
          try {
            return await kubectl(["top", "pod", "talker", "--no-headers"]);
          } catch {
            return undefined;
          }
        }, { what: "kubectl top pod", timeoutMs: 120_000, intervalMs: 3000 });
        assert.match(topPod, /^talker\s+\d+m\s+\d+Mi/);
      });

      await t.step("anonymous allowed in but not authorized is 403", async () => {
        await e2e.restartAgent({ extraArgs: ["--anonymous-auth=true"] });
        const res = await nodeFetch(port, "/pods", { host: nodeIP, caCerts: [ca] });
        assert.equal(res.status, 403);
        assert.equal(
          await res.text(),
          "Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource(s)=[pods proxy])",
        );
      });

      await t.step(
        "serverTLSBootstrap: a kubelet-serving CSR, approved, serves a cluster-signed certificate",
        async () => {
          await e2e.restartAgent({ extraArgs: ["--rotate-server-certificates"] });
          const csr = await waitFor(async () => {
            const list = await e2e.getJson<{
              items: {
                metadata: { name: string };
                spec: { signerName: string; username: string };
              }[];
            }>(["csr"]);
            return list?.items.find((x) =>
              x.spec.signerName === "kubernetes.io/kubelet-serving" &&
              x.spec.username === `system:node:${node}`
            );
          }, { what: "the node's serving CSR" });
          await kubectl(["certificate", "approve", csr.metadata.name]);
          const clusterTrusted: TlsIdentity = {
            host: nodeIP,
            caCerts: [await Deno.readTextFile(cp.caFile)],
            cert: await Deno.readTextFile(`${cp.dir}/pki/admin.crt`),
            key: await Deno.readTextFile(`${cp.dir}/pki/admin.key`),
          };
          const res = await waitFor(async () => {
            try {
              return await nodeFetch(port, "/healthz", clusterTrusted);
            } catch {
              // Not serving yet, or still the previous certificate.
              return undefined;
            }
          }, { what: "the node API serving the cluster-signed certificate", timeoutMs: 60_000 });
          assert.equal(res.status, 200);
          assert.match(await kubectl(["logs", "talker", "--tail=1"]), /^talk \d+\n$/);
        },
      );
    } finally {
      await metrics?.stop();
      await c?.close();
      await cp.stop();
      await Deno.remove(front.dir, { recursive: true });
    }
  },
});
