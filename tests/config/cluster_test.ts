import assert from "node:assert/strict";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

Deno.test("API-mode flags set their fields with upstream syntax", async () => {
  const { config } = await run([
    "--kubeconfig=/etc/kubernetes/kubelet.conf",
    "--register-node=false",
    "--node-labels=zone=a,example.com/role=edge",
    "--node-labels=extra=1",
    "--register-with-taints=dedicated=gpu:NoSchedule,edge:NoExecute",
    "--node-status-update-frequency=20s",
    "--kube-reserved=cpu=100m,memory=256Mi",
    "--system-reserved=memory=128Mi,pid=500",
    "--kube-api-qps=10",
    "--kube-api-burst=20",
    "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf",
    "--rotate-certificates",
  ]);
  assert.equal(config.bootstrapKubeconfig, "/etc/kubernetes/bootstrap-kubelet.conf");
  assert.equal(config.rotateCertificates, true);
  assert.equal(config.kubeconfig, "/etc/kubernetes/kubelet.conf");
  assert.equal(config.registerNode, false);
  assert.deepEqual(config.nodeLabels, { zone: "a", "example.com/role": "edge", extra: "1" });
  assert.deepEqual(config.registerWithTaints, [
    { key: "dedicated", value: "gpu", effect: "NoSchedule" },
    { key: "edge", effect: "NoExecute" },
  ]);
  assert.equal(config.nodeStatusUpdateFrequencyMs, 20_000);
  // Upstream copies the update frequency only while defaulting the file; a flag never does.
  assert.equal(config.nodeStatusReportFrequencyMs, 300_000);
  assert.deepEqual(config.kubeReserved, { cpu: "100m", memory: "256Mi" });
  assert.deepEqual(config.systemReserved, { memory: "128Mi", pid: "500" });
  assert.equal(config.kubeAPIQPS, 10);
  assert.equal(config.kubeAPIBurst, 20);
});

Deno.test("API-mode fields are read from the config file", async () => {
  const { config } = await run(["--config", "/k.yaml"], {
    "/k.yaml": HEAD + `
registerNode: false
registerWithTaints:
- {key: dedicated, value: db, effect: NoSchedule}
nodeStatusUpdateFrequency: 15s
nodeStatusReportFrequency: 1m
nodeLeaseDurationSeconds: 60
nodeStatusMaxImages: -1
kubeReserved: {cpu: 200m}
systemReserved: {memory: 1Gi}
kubeAPIQPS: 5
kubeAPIBurst: 10
rotateCertificates: true
`,
  });
  assert.equal(config.rotateCertificates, true);
  assert.equal(config.registerNode, false);
  assert.deepEqual(config.registerWithTaints, [
    { key: "dedicated", value: "db", effect: "NoSchedule" },
  ]);
  assert.equal(config.nodeStatusUpdateFrequencyMs, 15_000);
  assert.equal(config.nodeStatusReportFrequencyMs, 60_000);
  assert.equal(config.nodeLeaseDurationSeconds, 60);
  assert.equal(config.nodeStatusMaxImages, -1);
  assert.deepEqual(config.kubeReserved, { cpu: "200m" });
  assert.deepEqual(config.systemReserved, { memory: "1Gi" });
  assert.equal(config.kubeAPIQPS, 5);
  assert.equal(config.kubeAPIBurst, 10);
});

Deno.test("bad API-mode settings are refused naming the flag or field", async () => {
  await fails(
    ["--register-with-taints=a=b:Sometimes"],
    "--register-with-taints",
    /invalid taint effect "Sometimes"/,
  );
  await fails(
    ["--register-with-taints=novalue"],
    "--register-with-taints",
    /expect key=value:Effect/,
  );
  await fails(["--kube-reserved=gpu=1"], "--kube-reserved", /unsupported resource "gpu"/);
  await fails(["--system-reserved=memory=lots"], "--system-reserved", /memory=lots/);
  await fails(["--node-labels=bad key=1"], "--node-labels", /invalid label key "bad key"/);
  await fails(
    ["--node-labels=node-role.kubernetes.io/edge="],
    "--node-labels",
    /unknown 'kubernetes.io' or 'k8s.io' label "node-role.kubernetes.io\/edge"/,
  );
  // The well-known ones and the kubelet's own namespaces are fine.
  await run([
    "--node-labels=topology.kubernetes.io/zone=a,node.kubernetes.io/pool=x,example.com/role=edge",
  ]);
  await fails(["--kube-api-qps=-1"], "--kube-api-qps", /must not be a negative number/);
  await fails(
    ["--node-status-update-frequency=0s"],
    "--node-status-update-frequency",
    /greater than zero/,
  );
  await fails(["--config", "/k.yaml"], "/k.yaml: registerWithTaints[0]", /invalid taint effect/, {
    "/k.yaml": HEAD + "registerWithTaints: [{key: a, effect: Never}]\n",
  });
});

Deno.test("--api-checkpoint is on by default, turns off with =false, and is a flag only", async () => {
  assert.equal((await run([])).config.apiCheckpoint, true);
  assert.equal((await run(["--api-checkpoint=false"])).config.apiCheckpoint, false);
  assert.equal((await run(["--api-checkpoint"])).config.apiCheckpoint, true);
  await fails(
    ["--config", "/k.yaml"],
    "/k.yaml: apiCheckpoint",
    /unknown field "apiCheckpoint"/,
    { "/k.yaml": HEAD + "apiCheckpoint: false\n" },
  );
});

Deno.test("the file's nodeStatusUpdateFrequency alone is also its report frequency; a flag's is not", async () => {
  const only = await run(["--config", "/k.yaml"], {
    "/k.yaml": HEAD + "nodeStatusUpdateFrequency: 20s\n",
  });
  assert.equal(only.config.nodeStatusReportFrequencyMs, 20_000);
  const both = await run(["--config", "/k.yaml"], {
    "/k.yaml": HEAD + "nodeStatusUpdateFrequency: 20s\nnodeStatusReportFrequency: 2m\n",
  });
  assert.equal(both.config.nodeStatusReportFrequencyMs, 120_000);
  // The flag overrides the update frequency after the file was defaulted: the copy stays.
  const flagged = await run(["--config", "/k.yaml", "--node-status-update-frequency=30s"], {
    "/k.yaml": HEAD + "nodeStatusUpdateFrequency: 20s\n",
  });
  assert.equal(flagged.config.nodeStatusUpdateFrequencyMs, 30_000);
  assert.equal(flagged.config.nodeStatusReportFrequencyMs, 20_000);
  const flagOnly = await run(["--config", "/k.yaml", "--node-status-update-frequency=30s"], {
    "/k.yaml": HEAD,
  });
  assert.equal(flagOnly.config.nodeStatusReportFrequencyMs, 300_000);
});

Deno.test("taints are checked as upstream parseTaint does", async () => {
  const cases: Array<[string, RegExp]> = [
    ["bad key!:NoSchedule", /invalid taint key "bad key!"/],
    ["k=v=w:NoSchedule", /more than one '='/],
    ["a:b:NoSchedule", /expect key=value:Effect/],
    ["k=bad value:NoExecute", /invalid taint value "bad value"/],
    ["=v:NoSchedule", /a taint needs a key/],
    ["example.com/x/y=v:NoSchedule", /invalid taint key/],
    [`k=${"v".repeat(64)}:NoSchedule`, /invalid taint value/],
  ];
  for (const [spec, message] of cases) {
    await fails([`--register-with-taints=${spec}`], "--register-with-taints", message);
  }
  const { config } = await run([
    "--register-with-taints=example.com/gpu=A100_x.2:NoSchedule,k=:PreferNoSchedule",
  ]);
  assert.deepEqual(config.registerWithTaints, [
    { key: "example.com/gpu", value: "A100_x.2", effect: "NoSchedule" },
    { key: "k", effect: "PreferNoSchedule" },
  ]);
  await fails(["--config", "/k.yaml"], "/k.yaml: registerWithTaints[0]", /invalid taint key/, {
    "/k.yaml": HEAD + "registerWithTaints: [{key: 'bad key!', effect: NoSchedule}]\n",
  });
  await fails(["--config", "/k.yaml"], "/k.yaml: registerWithTaints[0]", /invalid taint value/, {
    "/k.yaml": HEAD + "registerWithTaints: [{key: k, value: 'bad value', effect: NoExecute}]\n",
  });
});

Deno.test("kubeAPIBurst: 0 in the file means the default 100; kubeAPIQPS: 0 stays 0", async () => {
  const { config } = await run(["--config", "/k.yaml"], {
    "/k.yaml": HEAD + "kubeAPIBurst: 0\nkubeAPIQPS: 0\n",
  });
  assert.equal(config.kubeAPIBurst, 100);
  assert.equal(config.kubeAPIQPS, 0);
});

Deno.test("--node-status-max-images sets nodeStatusMaxImages", async () => {
  assert.equal((await run(["--node-status-max-images=-1"])).config.nodeStatusMaxImages, -1);
  await fails(["--node-status-max-images=-2"], "--node-status-max-images", /-1 \(no limit\)/);
});

Deno.test("--api-checkpoint-secrets is on by default, turns off with =false, and is a flag only", async () => {
  assert.equal((await run([])).config.apiCheckpointSecrets, true);
  assert.equal(
    (await run(["--api-checkpoint-secrets=false"])).config.apiCheckpointSecrets,
    false,
  );
  await fails(
    ["--config", "/k.yaml"],
    "/k.yaml: apiCheckpointSecrets",
    /unknown field "apiCheckpointSecrets"/,
    { "/k.yaml": HEAD + "apiCheckpointSecrets: false\n" },
  );
});

Deno.test("--cloud-provider takes external or nothing, as v1.37; --provider-id and providerID", async () => {
  const { config } = await run([
    "--cloud-provider=external",
    "--provider-id=aws:///eu-west-1a/i-0abc",
  ]);
  assert.equal(config.cloudProvider, "external");
  assert.equal(config.providerID, "aws:///eu-west-1a/i-0abc");
  assert.equal((await run([])).config.cloudProvider, "");
  await fails(
    ["--cloud-provider=aws"],
    "--cloud-provider",
    /cloud provider "aws" was specified, but built-in cloud providers are disabled/,
  );
  const fromFile = await run(["--config", "/etc/kubernetes/kubelet.yaml"], {
    "/etc/kubernetes/kubelet.yaml":
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nproviderID: x://1\n",
  });
  assert.equal(fromFile.config.providerID, "x://1");
});

Deno.test("--bootstrap-kubeconfig without --kubeconfig is standalone, with a warning", async () => {
  const { config, warnings } = await run(["--bootstrap-kubeconfig=/b.conf"]);
  assert.equal(config.kubeconfig, "");
  assert.deepEqual(warnings, ["--bootstrap-kubeconfig: has no effect without --kubeconfig"]);
});
