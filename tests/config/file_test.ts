import assert from "node:assert/strict";
import { ConfigError, findCause } from "../../src/util/errors.ts";
import { loadConfig } from "../../src/config/mod.ts";
import { depsWith, fails, run } from "./_helpers.ts";
import { EVICTION_DEFAULTS } from "./_eviction_defaults.ts";
import { GC_DEFAULTS } from "./_gc_defaults.ts";
import { IMAGE_DEFAULTS } from "./_image_defaults.ts";
import { RESOURCE_DEFAULTS } from "./_resource_defaults.ts";
import { SHUTDOWN_DEFAULTS } from "./_shutdown_defaults.ts";
import { CLUSTER_DEFAULTS } from "./_cluster_defaults.ts";
import { SERVER_FILE_DEFAULTS } from "./_server_defaults.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const file = (body: string) => ({ "/etc/kubernetes/kubelet.yaml": HEAD + body });
const CONFIG = ["--config", "/etc/kubernetes/kubelet.yaml"];

Deno.test("every supported field is read from a YAML config file", async () => {
  const { config, warnings } = await run(
    CONFIG,
    file(`
staticPodPath: /etc/kubernetes/manifests
staticPodURL: https://example.test/pods
staticPodURLHeader:
  X-Foo: [a, b]
  Authorization: ["Bearer t"]
containerRuntimeEndpoint: unix:///var/run/crio/crio.sock
imageServiceEndpoint: unix:///run/img.sock
podLogsDir: /srv/logs
syncFrequency: 30s
fileCheckFrequency: 5s
httpCheckFrequency: 1m30s
address: "::"
port: 11250
readOnlyPort: 10255
runtimeRequestTimeout: 3m
maxPods: 32
clusterDNS: [10.96.0.10]
clusterDomain: cluster.local
resolvConf: /run/systemd/resolve/resolv.conf
logging:
  format: text
  verbosity: 3
featureGates:
  EventedPLEG: false
  DefaultPodSysctls: true
seccompDefault: true
allowedUnsafeSysctls: ["kernel.msg*"]
defaultPodSysctls:
  net.ipv4.tcp_syncookies: "0"
userNamespaces:
  idsPerPod: 131072
`),
  );
  assert.deepEqual(warnings, []);
  assert.deepEqual(config, {
    staticPodPath: "/etc/kubernetes/manifests",
    staticPodURL: "https://example.test/pods",
    staticPodURLHeader: { "X-Foo": ["a", "b"], Authorization: ["Bearer t"] },
    containerRuntimeEndpoint: "unix:///var/run/crio/crio.sock",
    imageServiceEndpoint: "unix:///run/img.sock",
    rootDir: "/var/lib/kubelet",
    podLogsDir: "/srv/logs",
    nodeName: "node-1",
    nodeIP: "",
    syncFrequencyMs: 30_000,
    fileCheckFrequencyMs: 5_000,
    httpCheckFrequencyMs: 90_000,
    address: "::",
    port: 11250,
    readOnlyPort: 10255,
    healthzPort: 10248,
    healthzBindAddress: "127.0.0.1",
    runtimeRequestTimeoutMs: 180_000,
    maxPods: 32,
    clusterDNS: ["10.96.0.10"],
    clusterDomain: "cluster.local",
    resolvConf: "/run/systemd/resolve/resolv.conf",
    podInfraContainerImage: "",
    verbosity: 3,
    featureGates: { EventedPLEG: false, DefaultPodSysctls: true },
    seccompDefault: true,
    allowedUnsafeSysctls: ["kernel.msg*"],
    defaultPodSysctls: { "net.ipv4.tcp_syncookies": "0" },
    userNamespacesIdsPerPod: 131072,
    ...EVICTION_DEFAULTS,
    ...GC_DEFAULTS,
    ...IMAGE_DEFAULTS,
    ...RESOURCE_DEFAULTS,
    ...SHUTDOWN_DEFAULTS,
    ...CLUSTER_DEFAULTS,
    ...SERVER_FILE_DEFAULTS,
  });
});

Deno.test("a JSON config file works too", async () => {
  const json = JSON.stringify({
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    syncFrequency: "10s",
    staticPodURLHeader: { "X-A": ["1"] },
  });
  const { config } = await run(["--config=/k.json"], { "/k.json": json });
  assert.equal(config.syncFrequencyMs, 10_000);
  assert.deepEqual(config.staticPodURLHeader, { "X-A": ["1"] });
});

Deno.test("with a config file readOnlyPort defaults to 0, as upstream", async () => {
  assert.equal((await run([])).config.readOnlyPort, 10255);
  assert.equal((await run(CONFIG, file(""))).config.readOnlyPort, 0);
  assert.equal(
    (await run([...CONFIG, "--read-only-port=10255"], file(""))).config.readOnlyPort,
    10255,
  );
});

Deno.test("precedence: defaults < config file < flags on the command line", async () => {
  const files = file("syncFrequency: 30s\nport: 11250\nclusterDNS: [10.0.0.1]\n");
  const fromFile = await run(CONFIG, files);
  assert.equal(fromFile.config.syncFrequencyMs, 30_000);
  assert.equal(fromFile.config.port, 11250);
  assert.equal(fromFile.config.fileCheckFrequencyMs, 20_000);
  // Flags win regardless of their position relative to --config.
  const flagged = await run(["--sync-frequency=5s", ...CONFIG, "--cluster-dns=10.0.0.2"], files);
  assert.equal(flagged.config.syncFrequencyMs, 5_000);
  assert.equal(flagged.config.port, 11250);
  assert.deepEqual(flagged.config.clusterDNS, ["10.0.0.2"]);
});

Deno.test("--manifest-url-header replaces the file's headers, then appends", async () => {
  const files = file("staticPodURLHeader:\n  X-File: [f]\n");
  assert.deepEqual((await run(CONFIG, files)).config.staticPodURLHeader, { "X-File": ["f"] });
  const { config } = await run(
    [...CONFIG, "--manifest-url-header=X-A:1", "--manifest-url-header=X-A:2"],
    files,
  );
  assert.deepEqual(config.staticPodURLHeader, { "X-A": ["1", "2"] });
});

Deno.test("a bad file value overridden by a flag is not an error (validation is on the merge)", async () => {
  const { config } = await run([...CONFIG, "--port=8080"], file("port: 70000\n"));
  assert.equal(config.port, 8080);
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: port",
    /between 0 and 65535/,
    file("port: 70000\n"),
  );
});

Deno.test("zero values of defaulted fields mean the default, as upstream SetDefaults", async () => {
  const { config } = await run(
    CONFIG,
    file('syncFrequency: 0s\nport: 0\naddress: ""\ncontainerRuntimeEndpoint: ""\npodLogsDir: ""\n'),
  );
  assert.equal(config.syncFrequencyMs, 60_000);
  assert.equal(config.port, 10250);
  assert.equal(config.address, "0.0.0.0");
  assert.equal(config.containerRuntimeEndpoint, "unix:///run/containerd/containerd.sock");
  assert.equal(config.podLogsDir, "/var/log/pods");
  // resolvConf is a pointer upstream: "" is kept and disables host DNS configuration.
  assert.equal((await run(CONFIG, file('resolvConf: ""\n'))).config.resolvConf, "");
  // null is the same as absent.
  assert.equal((await run(CONFIG, file("syncFrequency: null\n"))).config.syncFrequencyMs, 60_000);
});

Deno.test("relative paths in the file are resolved against the file's directory", async () => {
  const { config } = await run(
    ["--config", "conf/kubelet.yaml"],
    {
      "/etc/kubernetes/conf/kubelet.yaml": HEAD +
        "staticPodPath: manifests\nresolvConf: ../resolv\npodLogsDir: ./logs\n",
    },
  );
  assert.equal(config.staticPodPath, "/etc/kubernetes/conf/manifests");
  assert.equal(config.podLogsDir, "/etc/kubernetes/conf/logs");
  assert.equal(config.resolvConf, "/etc/kubernetes/resolv");
});

Deno.test("upstream fields at their default load silently; logging-only ones warn", async () => {
  const { config, warnings } = await run(
    CONFIG,
    file(
      "eventRecordQPS: 50\nserializeImagePulls: false\nlogging:\n  format: json\n",
    ),
  );
  assert.equal(config.serializeImagePulls, false);
  assert.deepEqual(warnings, [
    "/etc/kubernetes/kubelet.yaml: logging.format: denolet writes text logs only; accepted, " +
    "as it changes no pod or node",
  ]);
});

Deno.test("an unknown field is an error naming the file and field, with a suggestion", async () => {
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: syncFreqency",
    /unknown field "syncFreqency" \(did you mean "syncFrequency"\?\)/,
    file("syncFreqency: 1m\n"),
  );
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: notAThing",
    /unknown field "notAThing"$/,
    file("notAThing: 1\n"),
  );
});

Deno.test("mistyped values are errors naming the field path", async () => {
  const cases: Array<[string, string, RegExp]> = [
    ['port: "10250"\n', "port", /expected an integer, got string "10250"/],
    ["port: 10.5\n", "port", /expected an integer, got 10.5/],
    ["port: 99999999999\n", "port", /out of range/],
    [
      "syncFrequency: 60\n",
      "syncFrequency",
      /expected a duration string such as "20s", got number 60/,
    ],
    ["syncFrequency: 1 minute\n", "syncFrequency", /unknown unit " minute"/],
    ["staticPodPath: 12\n", "staticPodPath", /expected a string, got number 12/],
    ["clusterDNS: 10.0.0.1\n", "clusterDNS", /expected a list of strings/],
    ["clusterDNS: [10.0.0.1, 5]\n", "clusterDNS[1]", /expected a string, got number 5/],
    ["staticPodURLHeader: [a]\n", "staticPodURLHeader", /expected a map/],
    [
      "staticPodURLHeader:\n  X-Foo: bar\n",
      "staticPodURLHeader.X-Foo",
      /expected a list of strings/,
    ],
    [
      "staticPodURLHeader:\n  X-Foo: [1]\n",
      "staticPodURLHeader.X-Foo[0]",
      /expected a string, got number 1/,
    ],
    ["logging:\n  verbosity: -1\n", "logging.verbosity", /non-negative integer/],
  ];
  for (const [body, path, message] of cases) {
    await fails(CONFIG, `/etc/kubernetes/kubelet.yaml: ${path}`, message, file(body));
  }
});

Deno.test("validation errors name the file field that supplied the value", async () => {
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: containerRuntimeEndpoint",
    /only unix:\/\//,
    file("containerRuntimeEndpoint: tcp://localhost:1\n"),
  );
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: staticPodURLHeader",
    /not a valid HTTP header name/,
    file("staticPodURLHeader:\n  'bad header': [x]\n"),
  );
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: clusterDNS",
    /not an IP address/,
    file("clusterDNS: [dns]\n"),
  );
});

Deno.test("apiVersion and kind must be KubeletConfiguration v1beta1", async () => {
  const f = "/etc/kubernetes/kubelet.yaml";
  await fails(
    CONFIG,
    `${f}: apiVersion`,
    /must be "kubelet.config.k8s.io\/v1beta1", got string "v1"/,
    {
      [f]: "apiVersion: v1\nkind: KubeletConfiguration\n",
    },
  );
  await fails(CONFIG, `${f}: apiVersion`, /got nothing/, { [f]: "kind: KubeletConfiguration\n" });
  await fails(CONFIG, `${f}: kind`, /must be "KubeletConfiguration", got string "Pod"/, {
    [f]: "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: Pod\n",
  });
});

Deno.test("unreadable, empty, non-map and malformed files are errors", async () => {
  const err = await fails(["--config=/missing.yaml"], "--config", /cannot read \/missing.yaml/);
  assert.ok(findCause(err, Deno.errors.NotFound));
  await fails(["--config=/e.yaml"], "/e.yaml", /empty/, { "/e.yaml": "" });
  await fails(["--config=/l.yaml"], "/l.yaml", /got a list/, { "/l.yaml": "- a\n" });
  await fails(["--config=/b.yaml"], "/b.yaml", /cannot parse as YAML or JSON/, {
    "/b.yaml": "a: [1\n",
  });
  await fails(["--config=/d.yaml"], "/d.yaml", /cannot parse/, {
    "/d.yaml": HEAD + "port: 1\nport: 2\n",
  });
});

Deno.test("--config given empty means no file, as upstream", async () => {
  const deps = depsWith();
  const r = await loadConfig(["--config="], deps);
  assert.equal(r.kind, "run");
  assert.deepEqual(deps.reads, []);
  if (r.kind === "run") assert.equal(r.config.readOnlyPort, 10255);
});

Deno.test("errors are ConfigError instances the caller can find in a cause chain", async () => {
  const err = await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: port",
    /integer/,
    file("port: x\n"),
  );
  assert.equal(findCause(new Error("wrapped", { cause: err }), ConfigError), err);
});

Deno.test("the config file is YAML 1.1, as the kubelet reads it: no and yes are booleans", async () => {
  const { config } = await run(
    CONFIG,
    file("cgroupsPerQOS: no\nenforceNodeAllocatable: []\nserverTLSBootstrap: yes\n"),
  );
  assert.equal(config.cgroupsPerQOS, false);
  assert.equal(config.serverTLSBootstrap, true);
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: cgroupDriver",
    /expected a string, got boolean false \(quote it: YAML 1.1 reads unquoted yes, no/,
    file("cgroupDriver: no\n"),
  );
});

Deno.test("sysctl settings are checked as upstream's config validation checks them", async () => {
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: allowedUnsafeSysctls",
    /"kernel.panic" are not known to be namespaced/,
    file("allowedUnsafeSysctls: [kernel.panic]\n"),
  );
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: defaultPodSysctls",
    /DefaultPodSysctls feature gate is required/,
    file('defaultPodSysctls: {net.ipv4.tcp_syncookies: "0"}\n'),
  );
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: defaultPodSysctls",
    /"vm.swappiness": the sysctls "vm.swappiness" are not known to be namespaced/,
    file('featureGates: {DefaultPodSysctls: true}\ndefaultPodSysctls: {vm.swappiness: "1"}\n'),
  );
  await fails(["--allowed-unsafe-sysctls=net.*,Bad"], "--allowed-unsafe-sysctls", /must have/);
});

Deno.test("userNamespaces.idsPerPod is checked as upstream's config validation checks it", async () => {
  const at = "/etc/kubernetes/kubelet.yaml: userNamespaces.idsPerPod";
  await fails(CONFIG, at, /must not be less than 65536/, file("userNamespaces: {idsPerPod: 0}\n"));
  await fails(
    CONFIG,
    at,
    /must be a multiple of 65536/,
    file("userNamespaces: {idsPerPod: 70000}\n"),
  );
  await fails(
    CONFIG,
    at,
    /must not be more than 4294967295/,
    file("userNamespaces: {idsPerPod: 4295032832}\n"),
  );
  await fails(
    CONFIG,
    "/etc/kubernetes/kubelet.yaml: userNamespaces.idsPerPd",
    /unknown field "idsPerPd"/,
    file("userNamespaces: {idsPerPd: 65536}\n"),
  );
});
