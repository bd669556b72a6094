/**
 * The upstream-settings decisions that the table-driven test cannot state generically: answers
 * that depend on the node, upstream's own validation of settings accepted at any value, the
 * file's zero values, flag-over-file precedence, Go types, and the logging struct.
 */
import assert from "node:assert/strict";
import { fails, run } from "./_helpers.ts";

const PATH = "/etc/kubernetes/kubelet.yaml";
const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const file = (body: string) => ({ [PATH]: HEAD + body });
const CONFIG = ["--config", PATH];

Deno.test("failCgroupV1: true refuses to start on a cgroup v1 node, as upstream", async () => {
  await run(CONFIG, file("failCgroupV1: true\n"), { cgroupV2: true });
  await run(CONFIG, file("failCgroupV1: false\n"), { cgroupV2: false });
  await fails(
    CONFIG,
    `${PATH}: failCgroupV1`,
    /true: denolet is configured to not run on a host using cgroup v1/,
    file("failCgroupV1: true\n"),
    { cgroupV2: false },
  );
  await fails(["--fail-cgroupv1"], "--fail-cgroupv1", /cgroup v1/, {}, { cgroupV2: false });
});

Deno.test("singleProcessOOMKill: only the value that names what this node does", async () => {
  await run(CONFIG, file("singleProcessOOMKill: false\n"), { cgroupV2: true });
  await run(CONFIG, file("singleProcessOOMKill: true\n"), { cgroupV2: false });
  await fails(
    CONFIG,
    `${PATH}: singleProcessOOMKill`,
    /true: denolet does not implement singleProcessOOMKill; on this node \(cgroup v2\) it kills the whole container \(memory.oom.group\), upstream's default, so only false is accepted/,
    file("singleProcessOOMKill: true\n"),
    { cgroupV2: true },
  );
});

Deno.test("settings accepted at any value keep upstream's validation", async () => {
  await run(CONFIG, file("hairpinMode: hairpin-veth\ntopologyManagerScope: pod\n"));
  await run(["--hairpin-mode=none", "--topology-manager-scope=container"]);
  await fails(
    ["--hairpin-mode=bridge"],
    "--hairpin-mode",
    /option "bridge" specified for HairpinMode \(--hairpin-mode\)/,
  );
  await fails(
    CONFIG,
    `${PATH}: iptablesDropBit`,
    /must be between 0 and 31/,
    file("iptablesDropBit: 40\n"),
  );
  await fails(
    CONFIG,
    `${PATH}: containerLogMaxWorkers`,
    /greater than or equal to 1/,
    file("containerLogMaxWorkers: 0\n"),
  );
  await run(CONFIG, file("containerLogMaxWorkers: 4\nstreamingConnectionIdleTimeout: 30m\n"));
});

Deno.test("the file's zero values are upstream's defaults, but a flag's are not", async () => {
  await run(CONFIG, file('eventBurst: 0\nmaxOpenFiles: 0\ncpuManagerPolicy: ""\n'));
  await fails(["--event-burst=0"], "--event-burst", /0: denolet does not implement/);
  // cpuCFSQuotaPeriod is a pointer upstream: an explicit 0s is a value, not the default.
  await fails(CONFIG, `${PATH}: cpuCFSQuotaPeriod`, /0s: denolet/, file("cpuCFSQuotaPeriod: 0s\n"));
});

Deno.test("a flag wins over the file for an upstream setting, as upstream", async () => {
  await run([...CONFIG, "--cpu-manager-policy=none"], file("cpuManagerPolicy: static\n"));
  await fails(
    [...CONFIG, "--cpu-manager-policy=static"],
    "--cpu-manager-policy",
    /"static"/,
    file("cpuManagerPolicy: none\n"),
  );
});

Deno.test("an upstream field of the wrong Go type is an error naming its path", async () => {
  await fails(
    CONFIG,
    `${PATH}: cpuCFSQuota`,
    /expected true or false, got string "yes"/,
    file('cpuCFSQuota: "yes"\n'),
  );
  await fails(
    CONFIG,
    `${PATH}: eventRecordQPS`,
    /out of range/,
    file("eventRecordQPS: 9999999999\n"),
  );
  await fails(
    CONFIG,
    `${PATH}: crashLoopBackOff.maxRestart`,
    /unknown field "maxRestart"/,
    file("crashLoopBackOff:\n  maxRestart: 1s\n"),
  );
  await fails(
    CONFIG,
    `${PATH}: crashLoopBackOff.maxContainerRestartPeriod`,
    /missing unit/,
    file("crashLoopBackOff:\n  maxContainerRestartPeriod: '5'\n"),
  );
  await run(CONFIG, file("crashLoopBackOff:\n  maxContainerRestartPeriod: 5m\n"));
  await fails(
    CONFIG,
    `${PATH}: crashLoopBackOff`,
    /\{maxContainerRestartPeriod: 1m0s\}: denolet does not implement another crash-loop back-off cap/,
    file("crashLoopBackOff:\n  maxContainerRestartPeriod: 1m\n"),
  );
});

Deno.test("a security setting asked for at upstream's default but not installed is refused", async () => {
  await fails(
    CONFIG,
    `${PATH}: makeIPTablesUtilChains`,
    /true: denolet does not implement the iptables utility chains .*; only false is accepted$/,
    file("makeIPTablesUtilChains: true\n"),
  );
  await run(CONFIG, file("makeIPTablesUtilChains: false\n"));
});

Deno.test("logging: defaults are silent, other values are warned, bad ones refused", async () => {
  const quiet = await run(
    CONFIG,
    file(
      "logging:\n  format: text\n  flushFrequency: 5s\n  verbosity: 3\n  vmodule: []\n" +
        "  options:\n    text:\n      splitStream: false\n      infoBufferSize: '0'\n",
    ),
  );
  assert.deepEqual(quiet.warnings, []);
  assert.equal(quiet.config.verbosity, 3);
  const { warnings } = await run(
    CONFIG,
    file(
      "logging:\n  flushFrequency: 1000000000\n  options:\n    json:\n      splitStream: true\n",
    ),
  );
  assert.deepEqual(warnings, [
    `${PATH}: logging.flushFrequency: denolet writes each log line at once; accepted, as it ` +
    "changes no pod or node",
    `${PATH}: logging.options.json.splitStream: denolet writes one stream, to stderr; accepted, ` +
    "as it changes no pod or node",
  ]);
  await fails(
    CONFIG,
    `${PATH}: logging.format`,
    /Unsupported value: "xml"/,
    file("logging:\n  format: xml\n"),
  );
  await fails(
    CONFIG,
    `${PATH}: logging.color`,
    /unknown field "color"/,
    file("logging:\n  color: true\n"),
  );
});
