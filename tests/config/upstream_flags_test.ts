import assert from "node:assert/strict";
import { FLAGS } from "../../src/config/_flag_table.ts";
import { IGNORED_FLAGS } from "../../src/config/_upstream_flags.ts";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const ignored = (flag: string) => `${flag}: not implemented by denolet; ignored`;

Deno.test("a kubeadm-style command line starts, ignoring --bootstrap-kubeconfig with a warning", async () => {
  const { config, warnings } = await run([
    "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf",
    "--kubeconfig=/etc/kubernetes/kubelet.conf",
    "--config=/var/lib/kubelet/config.yaml",
  ], { "/var/lib/kubelet/config.yaml": HEAD + "syncFrequency: 30s\n" });
  assert.equal(config.kubeconfig, "/etc/kubernetes/kubelet.conf");
  assert.equal(config.syncFrequencyMs, 30_000);
  assert.deepEqual(warnings, [ignored("--bootstrap-kubeconfig")]);
});

Deno.test("an ignored flag with a value consumes it in either form", async () => {
  const { config, warnings } = await run([
    "--cloud-provider",
    "external",
    "--provider-id=aws:///eu-west-1a/i-0abc",
    "--max-open-files",
    "1000000",
    "--streaming-connection-idle-timeout=5m",
    "--volume-plugin-dir",
    "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/",
    "--port",
    "11250",
  ]);
  assert.equal(config.port, 11250);
  assert.deepEqual(warnings, [
    ignored("--cloud-provider"),
    ignored("--provider-id"),
    ignored("--max-open-files"),
    ignored("--streaming-connection-idle-timeout"),
    ignored("--volume-plugin-dir"),
  ]);
});

Deno.test("an ignored boolean flag takes --x or --x=value only, as pflag's bools", async () => {
  for (
    const argv of [["--protect-kernel-defaults"], ["--protect-kernel-defaults=false"], [
      "--rotate-certificates=true",
    ]]
  ) {
    const { warnings } = await run(argv);
    assert.deepEqual(warnings, [ignored(argv[0].split("=")[0])], argv.join(" "));
  }
  await run(["--serialize-image-pulls=false", "--port=1"]);
  // A separate "false" is a positional argument, which pflag refuses too.
  await fails(["--protect-kernel-defaults", "false"], '"false"', /unexpected argument/);
  await fails(
    ["--protect-kernel-defaults=maybe"],
    "--protect-kernel-defaults",
    /expected a boolean/,
  );
});

Deno.test("an ignored flag's value is still type-checked, and one is required", async () => {
  await fails(["--max-open-files=lots"], "--max-open-files", /expected an integer/);
  await fails(["--event-qps=9999999999"], "--event-qps", /out of range/);
  await fails(
    ["--streaming-connection-idle-timeout=5"],
    "--streaming-connection-idle-timeout",
    /missing unit/,
  );
  await fails(["--cloud-provider"], "--cloud-provider", /flag needs an argument/);
});

Deno.test("an ignored flag given twice warns once", async () => {
  const { warnings } = await run(["--node-ip=10.0.0.1", "--lock-file=/a", "--lock-file=/b"]);
  assert.deepEqual(warnings, [ignored("--lock-file")]);
});

Deno.test("a name upstream does not have is still an error, with a hint", async () => {
  await fails(
    ["--bootstrap-kubeconfg=/x"],
    "--bootstrap-kubeconfg",
    /unknown flag \(did you mean --bootstrap-kubeconfig\?\)/,
  );
  await fails(["--swap-on-fail"], "--swap-on-fail", /unknown flag/);
});

Deno.test("no flag denolet implements is in the ignored list", () => {
  const implemented = FLAGS.map((f) => f.name).filter((n) => IGNORED_FLAGS.has(n));
  assert.deepEqual(implemented, []);
});
