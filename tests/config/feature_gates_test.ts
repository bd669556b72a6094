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
    "--feature-gates= EventedPLEG = F ,Other=1,",
    "--feature-gates",
    "Third=True",
  ]);
  assert.deepEqual(config.featureGates, { EventedPLEG: false, Other: true, Third: true });
});

Deno.test("the flags win over the file gate by gate; the file's other gates stay", async () => {
  const { config } = await run(
    [...CONFIG, "--feature-gates", "EventedPLEG=true"],
    file("featureGates:\n  EventedPLEG: false\n  FromFile: true\n"),
  );
  assert.deepEqual(config.featureGates, { EventedPLEG: true, FromFile: true });
  const fromFile = await run(CONFIG, file("featureGates:\n  EventedPLEG: off\n"));
  assert.equal(featureEnabled(fromFile.config, "EventedPLEG"), false, "YAML 1.1: off is false");
});

Deno.test("a gate denolet does not read is accepted with a warning naming it", async () => {
  const { warnings } = await run(["--feature-gates", "RotateKubeletServerCertificate=true"]);
  assert.deepEqual(warnings, [
    'feature gate "RotateKubeletServerCertificate" is not implemented by denolet; ignored',
  ]);
  const fromFile = await run(CONFIG, file("featureGates:\n  SomeGate: true\n"));
  assert.deepEqual(fromFile.warnings, [
    'feature gate "SomeGate" is not implemented by denolet; ignored',
  ]);
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
