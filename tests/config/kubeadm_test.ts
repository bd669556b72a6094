/**
 * A kubeadm node's kubelet command line and configuration start denolet unchanged (issue 26):
 * the fixtures are what kubeadm v1.37.2 writes (tests/support/kubeadm_fixtures.ts regenerates
 * them with kubeadm itself) and the kubeadm package's systemd drop-in, expanded as systemd does.
 */
import assert from "node:assert/strict";
import { ConfigError } from "../../src/util/errors.ts";
import { type AgentConfig, loadConfig } from "../../src/config/mod.ts";

const DIR = new URL("./fixtures/kubeadm/", import.meta.url).pathname;
const read = (name: string) => Deno.readTextFile(`${DIR}${name}`);

/** `Environment="K=V ..."` lines, `EnvironmentFile=` files and the last ExecStart, as systemd. */
function execStart(dropin: string, files: Record<string, string>): string[] {
  const env: Record<string, string> = {};
  let exec = "";
  for (const line of dropin.split("\n")) {
    const m = /^(\w+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    const [, key, value] = m;
    if (key === "Environment") {
      const [k, ...v] = value.replace(/^"|"$/g, "").split("=");
      env[k] = v.join("=");
    } else if (key === "EnvironmentFile") {
      const text = files[value.replace(/^-/, "")];
      if (text === undefined) continue; // "-": a missing file is fine
      for (const l of text.split("\n")) {
        const kv = /^(\w+)="?(.*?)"?$/.exec(l.trim());
        if (kv) env[kv[1]] = kv[2];
      }
    } else if (key === "ExecStart") exec = value;
  }
  // $VAR (unbraced) splits into words, as systemd expands it.
  return exec.split(/\s+/).slice(1).flatMap((w) =>
    w.startsWith("$") ? (env[w.slice(1)] ?? "").split(/\s+/).filter((s) => s !== "") : [w]
  );
}

async function kubeadmNode(
  edit: (config: string) => string = (c) => c,
): Promise<{ argv: string[]; load: () => ReturnType<typeof loadConfig> }> {
  const argv = execStart(await read("10-kubeadm.conf"), {
    "/var/lib/kubelet/kubeadm-flags.env": await read("kubeadm-flags.env"),
  });
  const config = edit(await read("config.yaml"));
  return {
    argv,
    load: () =>
      loadConfig(argv, {
        readFile: (p) =>
          p === "/var/lib/kubelet/config.yaml"
            ? Promise.resolve(config)
            : Promise.reject(new Deno.errors.NotFound(p)),
        hostname: () => "edge-1",
      }),
  };
}

Deno.test("kubeadm: the drop-in's command line is upstream's flags, all of them denolet's", async () => {
  const { argv } = await kubeadmNode();
  assert.deepEqual(argv, [
    "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf",
    "--kubeconfig=/etc/kubernetes/kubelet.conf",
    "--config=/var/lib/kubelet/config.yaml",
    "--hostname-override=edge-1",
    "--node-ip=10.0.0.5,fd00::5",
  ]);
});

Deno.test("kubeadm: the generated KubeletConfiguration and flags load unchanged", async () => {
  const node = await kubeadmNode();
  let loaded;
  try {
    loaded = await node.load();
  } catch (err) {
    // The systemd cgroup driver is issue 26's other half (branch systemd); until it lands it
    // is the one thing refused, and the rest is checked with cgroupfs below.
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.field, "/var/lib/kubelet/config.yaml: cgroupDriver");
    loaded = await (await kubeadmNode((c) =>
      c.replace("cgroupDriver: systemd", "cgroupDriver: cgroupfs")
    )).load();
  }
  assert.equal(loaded.kind, "run");
  if (loaded.kind !== "run") return;
  const c: AgentConfig = loaded.config;
  assert.equal(c.bootstrapKubeconfig, "/etc/kubernetes/bootstrap-kubelet.conf");
  assert.equal(c.kubeconfig, "/etc/kubernetes/kubelet.conf");
  assert.equal(c.rotateCertificates, true);
  assert.equal(c.certDir, "/var/lib/kubelet/pki");
  assert.equal(c.nodeName, "edge-1");
  assert.equal(c.nodeIP, "10.0.0.5,fd00::5");
  assert.equal(c.containerRuntimeEndpoint, "unix:///var/run/containerd/containerd.sock");
  assert.equal(c.staticPodPath, "/etc/kubernetes/manifests");
  assert.deepEqual(c.clusterDNS, ["10.96.0.10"]);
  assert.equal(c.clusterDomain, "cluster.local");
  assert.equal(c.clientCAFile, "/etc/kubernetes/pki/ca.crt");
  assert.equal(c.anonymousAuth, false);
  assert.equal(c.authenticationTokenWebhook, true);
  assert.equal(c.authorizationMode, "Webhook");
  assert.equal(c.healthzPort, 10248);
  assert.equal(c.readOnlyPort, 0);
  // kubeadm writes every duration as "0s": upstream's defaults apply.
  assert.equal(c.syncFrequencyMs, 60_000);
  assert.equal(c.nodeStatusUpdateFrequencyMs, 10_000);
  // What denolet does not implement is accepted, each named (never a flag).
  for (const w of loaded.warnings) assert.match(w, /^\/var\/lib\/kubelet\/config\.yaml: /);
});
