import assert from "node:assert/strict";
import { featureEnabled } from "../../src/config/mod.ts";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const file = (body: string) => ({ "/etc/kubernetes/kubelet.yaml": HEAD + body });
const CONFIG = ["--config", "/etc/kubernetes/kubelet.yaml"];

Deno.test("EventedPLEG is on unless a gate turns it off", async () => {
  const { config, warnings } = await run([]);
  assert.deepEqual(config.featureGates, {});
  assert.equal(featureEnabled(config, "EventedPLEG"), true);
  assert.deepEqual(warnings, []);
  const off = await run(["--feature-gates", "EventedPLEG=false"]);
  assert.equal(featureEnabled(off.config, "EventedPLEG"), false);
});

Deno.test("--feature-gates takes pflag's booleans, spaces and repeats", async () => {
  const { config } = await run([
    "--feature-gates= EventedPLEG = F ,DefaultPodSysctls=1,",
    "--feature-gates",
    "GracefulNodeShutdown=True",
  ]);
  assert.deepEqual(config.featureGates, {
    EventedPLEG: false,
    DefaultPodSysctls: true,
    GracefulNodeShutdown: true,
  });
});

Deno.test("the flags win over the file gate by gate; the file's other gates stay", async () => {
  const { config } = await run(
    [...CONFIG, "--feature-gates", "EventedPLEG=true"],
    file("featureGates:\n  EventedPLEG: false\n  MemoryQoS: true\n"),
  );
  assert.deepEqual(config.featureGates, { EventedPLEG: true, MemoryQoS: true });
  const fromFile = await run(CONFIG, file("featureGates:\n  EventedPLEG: off\n"));
  assert.equal(featureEnabled(fromFile.config, "EventedPLEG"), false, "YAML 1.1: off is false");
});

Deno.test("an unknown gate is refused, as upstream, naming where it was set", async () => {
  await fails(
    ["--feature-gates", "EventedPLGE=true"],
    "--feature-gates",
    /unrecognized feature gate: EventedPLGE \(did you mean EventedPLEG\?\)/,
  );
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: featureGates.SomeGate",
    /unrecognized feature gate: SomeGate/,
    file("featureGates:\n  SomeGate: true\n"),
  );
});

Deno.test("a gate at what denolet does is accepted; the opposite is refused", async () => {
  // Upstream's defaults, which are what denolet does.
  const { warnings } = await run([
    "--feature-gates=RotateKubeletServerCertificate=true,KubeletInUserNamespace=true",
  ]);
  assert.deepEqual(warnings, []);
  await fails(
    ["--feature-gates=RotateKubeletServerCertificate=false"],
    "--feature-gates",
    /RotateKubeletServerCertificate=false: denolet does not implement .*; only the default true is accepted/,
  );
  // An alpha gate turned on asks for a feature denolet does not have.
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: featureGates.ContainerStopSignals",
    /ContainerStopSignals=true: denolet does not implement/,
    file("featureGates:\n  ContainerStopSignals: true\n"),
  );
  await fails(["--feature-gates=AllAlpha=true"], "--feature-gates", /AllAlpha=true/);
  // On by default upstream, but denolet does not have the feature: off is what it does.
  await run(["--feature-gates=ContainerCheckpoint=false"]);
  await fails(
    ["--feature-gates=ContainerCheckpoint=true"],
    "--feature-gates",
    /ContainerCheckpoint=true: denolet does not implement the container checkpoint API/,
  );
  // Either value behaves alike here (shutdownGracePeriod is accepted at 0s only).
  await run(["--feature-gates=GracefulNodeShutdown=false"]);
});

Deno.test("a locked gate cannot be turned away from its default, as upstream", async () => {
  await run(["--feature-gates=NodeSwap=true"]);
  await fails(
    ["--feature-gates=NodeSwap=false"],
    "--feature-gates",
    /cannot set feature gate NodeSwap to false, feature is locked to true/,
  );
});

Deno.test("a gate no kubelet code reads takes either value, as upstream's kubelet ignores it", async () => {
  await run(["--feature-gates=APIServerWebhookAuthenticationToken=true"]);
});

Deno.test("a bad gate value is an error naming the flag or field", async () => {
  await fails(
    ["--feature-gates", "EventedPLEG"],
    "--feature-gates",
    /malformed pair "EventedPLEG"/,
  );
  await fails(["--feature-gates", "=true"], "--feature-gates", /"=true" names no gate/);
  for (const inherited of ["constructor", "toString"]) {
    await fails(
      [`--feature-gates=EventedPLEG=${inherited}`],
      "--feature-gates",
      /EventedPLEG: expected a boolean/,
    );
  }
  await fails(
    ["--feature-gates=EventedPLEG=maybe"],
    "--feature-gates",
    /EventedPLEG: expected a boolean \(true or false\), got "maybe"/,
  );
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: featureGates.EventedPLEG",
    /expected true or false, got string "maybe"/,
    file("featureGates:\n  EventedPLEG: maybe\n"),
  );
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: featureGates",
    /expected a map of gate name to boolean, got a list/,
    file("featureGates: [EventedPLEG]\n"),
  );
});
