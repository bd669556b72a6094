import assert from "node:assert/strict";
import { FLAGS } from "../../src/config/_flag_table.ts";
import { UPSTREAM_FLAGS } from "../../src/config/_upstream_flags.ts";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

Deno.test("a kubeadm-style command line starts, with --bootstrap-kubeconfig honoured", async () => {
  const { config, warnings } = await run([
    "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf",
    "--kubeconfig=/etc/kubernetes/kubelet.conf",
    "--config=/var/lib/kubelet/config.yaml",
  ], { "/var/lib/kubelet/config.yaml": HEAD + "syncFrequency: 30s\n" });
  assert.equal(config.kubeconfig, "/etc/kubernetes/kubelet.conf");
  assert.equal(config.bootstrapKubeconfig, "/etc/kubernetes/bootstrap-kubelet.conf");
  assert.equal(config.syncFrequencyMs, 30_000);
  assert.deepEqual(warnings, []);
});

Deno.test("an upstream flag at its default value is accepted in either form, silently", async () => {
  const { config, warnings } = await run([
    "--cloud-provider",
    "",
    "--max-open-files",
    "1000000",
    "--streaming-connection-idle-timeout=5m",
    "--volume-plugin-dir",
    "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/",
    "--port",
    "11250",
  ]);
  assert.equal(config.port, 11250);
  assert.deepEqual(warnings, []);
});

Deno.test("an upstream flag at another value is refused, naming the flag and the value", async () => {
  await fails(
    ["--max-open-files", "1000"],
    "--max-open-files",
    /^--max-open-files: 1000: denolet does not implement setting its own open-file limit .*; only the default 1000000 is accepted$/,
  );
  await fails(
    ["--cpu-manager-policy=static"],
    "--cpu-manager-policy",
    /"static": denolet does not implement the CPU manager's policies other than none; only the default "none" is accepted/,
  );
  await fails(
    ["--cpu-cfs-quota=false"],
    "--cpu-cfs-quota",
    /false: denolet does not implement CPU limits without CFS quota; only the default true/,
  );
  await fails(
    ["--qos-reserved=memory=50%"],
    "--qos-reserved",
    /"memory=50%": denolet does not implement reserving memory per QoS class/,
  );
});

Deno.test("the last occurrence of a scalar upstream flag decides", async () => {
  await run(["--cpu-cfs-quota=false", "--cpu-cfs-quota=true"]);
  await fails(["--cpu-cfs-quota=true", "--cpu-cfs-quota=false"], "--cpu-cfs-quota", /false/);
});

Deno.test("an upstream boolean flag takes --x or --x=value only, as pflag's bools", async () => {
  for (const argv of [["--cpu-cfs-quota"], ["--cpu-cfs-quota=true"]]) {
    const { warnings } = await run(argv);
    assert.deepEqual(warnings, [], argv.join(" "));
  }
  for (
    const [argv, want] of [
      [["--serialize-image-pulls"], true],
      [["--serialize-image-pulls=false"], false],
      [["--serialize-image-pulls=true"], true],
    ] as const
  ) {
    const { config, warnings } = await run([...argv]);
    assert.equal(config.serializeImagePulls, want, argv.join(" "));
    assert.deepEqual(warnings, [], argv.join(" "));
  }
  assert.equal((await run(["--serialize-image-pulls=false", "--port=1"])).config.port, 1);
  // A separate "false" is a positional argument, which pflag refuses too.
  await fails(["--rotate-certificates", "false"], '"false"', /unexpected argument/);
  await fails(
    ["--rotate-certificates=maybe"],
    "--rotate-certificates",
    /expected a boolean/,
  );
});

Deno.test("an upstream flag's value is still type-checked, and one is required", async () => {
  await fails(["--max-open-files=lots"], "--max-open-files", /expected an integer/);
  await fails(["--event-qps=9999999999"], "--event-qps", /out of range/);
  await fails(
    ["--streaming-connection-idle-timeout=5"],
    "--streaming-connection-idle-timeout",
    /missing unit/,
  );
  await fails(["--cloud-provider"], "--cloud-provider", /flag needs an argument/);
});

Deno.test("--registry-qps given twice: the last one is honoured", async () => {
  const { config, warnings } = await run([
    "--node-ip=10.0.0.1",
    "--registry-qps=3",
    "--registry-qps=4",
  ]);
  assert.equal(config.registryPullQPS, 4);
  assert.deepEqual(warnings, []);
});

Deno.test("logging flags are accepted; a value denolet does not follow is named in a warning", async () => {
  const quiet = await run([
    "--logging-format=text",
    "--log-flush-frequency=5s",
    "--vmodule=",
    "--log-text-split-stream=false",
    "--log-json-info-buffer-size=0",
  ]);
  assert.deepEqual(quiet.warnings, []);
  const { warnings } = await run(["--logging-format=json", "--vmodule=pod*=4"]);
  assert.deepEqual(warnings, [
    '--logging-format: "json": denolet writes text logs to stderr, one stream; accepted, as it ' +
    "changes no pod or node",
    '--vmodule: "pod*=4": denolet has no per-file verbosity; -v applies everywhere; accepted, ' +
    "as it changes no pod or node",
  ]);
});

Deno.test("a name upstream does not have is still an error, with a hint", async () => {
  await fails(
    ["--bootstrap-kubeconfg=/x"],
    "--bootstrap-kubeconfg",
    /unknown flag \(did you mean --bootstrap-kubeconfig\?\)/,
  );
  await fails(["--swap-on-fail"], "--swap-on-fail", /unknown flag/);
});

Deno.test("no flag denolet implements is in the upstream list", () => {
  const implemented = FLAGS.map((f) => f.name).filter((n) => UPSTREAM_FLAGS.has(n));
  assert.deepEqual(implemented, []);
});
