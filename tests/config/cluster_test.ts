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
  ]);
  assert.equal(config.kubeconfig, "/etc/kubernetes/kubelet.conf");
  assert.equal(config.registerNode, false);
  assert.deepEqual(config.nodeLabels, { zone: "a", "example.com/role": "edge", extra: "1" });
  assert.deepEqual(config.registerWithTaints, [
    { key: "dedicated", value: "gpu", effect: "NoSchedule" },
    { key: "edge", effect: "NoExecute" },
  ]);
  assert.equal(config.nodeStatusUpdateFrequencyMs, 20_000);
  // Only the update frequency was given: it is the report frequency's default too.
  assert.equal(config.nodeStatusReportFrequencyMs, 20_000);
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
`,
  });
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
