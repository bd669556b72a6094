import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/mod.ts";
import { depsWith, fails, run } from "./_helpers.ts";
import { EVICTION_DEFAULTS } from "./_eviction_defaults.ts";
import { GC_DEFAULTS } from "./_gc_defaults.ts";
import { IMAGE_DEFAULTS } from "./_image_defaults.ts";
import { RESOURCE_DEFAULTS } from "./_resource_defaults.ts";
import { SHUTDOWN_DEFAULTS } from "./_shutdown_defaults.ts";
import { CLUSTER_DEFAULTS } from "./_cluster_defaults.ts";
import { SERVER_FLAG_DEFAULTS } from "./_server_defaults.ts";

Deno.test("loadConfig without arguments gives the upstream flag defaults", async () => {
  const { config, warnings } = await run([]);
  assert.deepEqual(config, {
    staticPodPath: "",
    staticPodURL: "",
    staticPodURLHeader: {},
    containerRuntimeEndpoint: "unix:///run/containerd/containerd.sock",
    imageServiceEndpoint: "",
    rootDir: "/var/lib/kubelet",
    podLogsDir: "/var/log/pods",
    nodeName: "node-1",
    nodeIP: "",
    syncFrequencyMs: 60_000,
    fileCheckFrequencyMs: 20_000,
    httpCheckFrequencyMs: 20_000,
    address: "0.0.0.0",
    port: 10250,
    readOnlyPort: 10255,
    healthzPort: 10248,
    healthzBindAddress: "127.0.0.1",
    runtimeRequestTimeoutMs: 120_000,
    maxPods: 110,
    clusterDNS: [],
    clusterDomain: "",
    resolvConf: "/etc/resolv.conf",
    podInfraContainerImage: "",
    verbosity: 0,
    featureGates: {},
    seccompDefault: false,
    allowedUnsafeSysctls: [],
    defaultPodSysctls: {},
    userNamespacesIdsPerPod: 65536,
    ...EVICTION_DEFAULTS,
    ...GC_DEFAULTS,
    ...IMAGE_DEFAULTS,
    ...RESOURCE_DEFAULTS,
    ...SHUTDOWN_DEFAULTS,
    ...CLUSTER_DEFAULTS,
    ...SERVER_FLAG_DEFAULTS,
  });
  assert.deepEqual(warnings, []);
});

Deno.test("every flag sets its field, in both --flag=value and --flag value forms", async () => {
  const pairs: Array<[string, string]> = [
    ["pod-manifest-path", "/etc/kubernetes/manifests"],
    ["manifest-url", "http://example.test/pods"],
    ["manifest-url-header", "Authorization:Bearer x"],
    ["container-runtime-endpoint", "unix:///var/run/crio/crio.sock"],
    ["image-service-endpoint", "unix:///run/images.sock"],
    ["root-dir", "/srv/kubelet"],
    ["hostname-override", "My-Node.Example"],
    ["node-ip", "10.0.0.5"],
    ["sync-frequency", "30s"],
    ["file-check-frequency", "5s"],
    ["http-check-frequency", "1m"],
    ["port", "11250"],
    ["read-only-port", "0"],
    ["address", "127.0.0.1"],
    ["runtime-request-timeout", "90s"],
    ["max-pods", "20"],
    ["cluster-dns", "10.96.0.10,10.96.0.11"],
    ["cluster-domain", "cluster.local"],
    ["resolv-conf", "/run/systemd/resolve/resolv.conf"],
    ["pod-infra-container-image", "registry.k8s.io/pause:3.10"],
    ["v", "4"],
    ["feature-gates", "EventedPLEG=false"],
    ["allowed-unsafe-sysctls", "kernel.msg*,net.core.somaxconn"],
  ];
  const expected = {
    staticPodPath: "/etc/kubernetes/manifests",
    staticPodURL: "http://example.test/pods",
    staticPodURLHeader: { Authorization: ["Bearer x"] },
    containerRuntimeEndpoint: "unix:///var/run/crio/crio.sock",
    imageServiceEndpoint: "unix:///run/images.sock",
    rootDir: "/srv/kubelet",
    podLogsDir: "/var/log/pods",
    nodeName: "my-node.example",
    nodeIP: "10.0.0.5",
    syncFrequencyMs: 30_000,
    fileCheckFrequencyMs: 5_000,
    httpCheckFrequencyMs: 60_000,
    address: "127.0.0.1",
    port: 11250,
    readOnlyPort: 0,
    healthzPort: 10248,
    healthzBindAddress: "127.0.0.1",
    runtimeRequestTimeoutMs: 90_000,
    maxPods: 20,
    clusterDNS: ["10.96.0.10", "10.96.0.11"],
    clusterDomain: "cluster.local",
    resolvConf: "/run/systemd/resolve/resolv.conf",
    podInfraContainerImage: "registry.k8s.io/pause:3.10",
    verbosity: 4,
    featureGates: { EventedPLEG: false },
    seccompDefault: false,
    allowedUnsafeSysctls: ["kernel.msg*", "net.core.somaxconn"],
    defaultPodSysctls: {},
    userNamespacesIdsPerPod: 65536,
    ...EVICTION_DEFAULTS,
    ...GC_DEFAULTS,
    ...IMAGE_DEFAULTS,
    ...RESOURCE_DEFAULTS,
    ...SHUTDOWN_DEFAULTS,
    ...CLUSTER_DEFAULTS,
    ...SERVER_FLAG_DEFAULTS,
    certDir: "/srv/kubelet/pki",
  };
  const joined = await run(pairs.map(([k, v]) => `--${k}=${v}`));
  assert.deepEqual(joined.config, expected);
  const separate = await run(pairs.flatMap(([k, v]) => [`--${k}`, v]));
  assert.deepEqual(separate.config, expected);
});

Deno.test("verbosity accepts -v=2, -v 2, -v2 and --v=2", async () => {
  for (const argv of [["-v=2"], ["-v", "2"], ["-v2"], ["--v=2"], ["--v", "2"]]) {
    assert.equal((await run(argv)).config.verbosity, 2, argv.join(" "));
  }
  await fails(["-v=-1"], "-v", /must not be negative/);
  await fails(["-v", "high"], "-v", /invalid argument "high": expected an integer/);
});

Deno.test("the last occurrence of a scalar flag wins", async () => {
  const { config } = await run([
    "--port=1",
    "--port",
    "2",
    "--sync-frequency=1s",
    "--sync-frequency=2s",
  ]);
  assert.equal(config.port, 2);
  assert.equal(config.syncFrequencyMs, 2_000);
});

Deno.test("a value starting with a dash is taken as the flag's argument, as pflag does", async () => {
  await fails(["--sync-frequency", "-1s"], "--sync-frequency", /must be greater than zero/);
});

Deno.test("--manifest-url-header follows upstream multimap semantics", async () => {
  const { config } = await run([
    "--manifest-url-header",
    "a:hello,b:again,c:world",
    "--manifest-url-header",
    "b:beautiful",
  ]);
  assert.deepEqual(config.staticPodURLHeader, {
    a: ["hello"],
    b: ["again", "beautiful"],
    c: ["world"],
  });
});

Deno.test("--manifest-url-header splits at the first colon, trims, and skips empty pairs", async () => {
  const { config } = await run(["--manifest-url-header= X-Url : http://a:8080/x ,,X-Empty:"]);
  assert.deepEqual(config.staticPodURLHeader, { "X-Url": ["http://a:8080/x"], "X-Empty": [""] });
});

Deno.test("--manifest-url-header rejects pairs without a colon and bad header names", async () => {
  await fails(
    ["--manifest-url-header=novalue"],
    "--manifest-url-header",
    /malformed pair "novalue"/,
  );
  await fails(
    ["--manifest-url-header=bad name:v"],
    "--manifest-url-header",
    /"bad name" is not a valid HTTP header name/,
  );
});

Deno.test("--cluster-dns is repeatable and comma-separated; empty clears it", async () => {
  const { config } = await run(["--cluster-dns=10.0.0.10", "--cluster-dns", "10.0.0.11,fd00::a"]);
  assert.deepEqual(config.clusterDNS, ["10.0.0.10", "10.0.0.11", "fd00::a"]);
  assert.deepEqual((await run(["--cluster-dns="])).config.clusterDNS, []);
  await fails(["--cluster-dns=10.0.0.300"], "--cluster-dns", /"10.0.0.300" is not an IP address/);
});

Deno.test("typed flags reject values of the wrong type, naming the flag", async () => {
  await fails(["--port=http"], "--port", /invalid argument "http": expected an integer/);
  await fails(["--port=99999999999"], "--port", /out of range/);
  await fails(["--sync-frequency=10"], "--sync-frequency", /missing unit in duration "10"/);
  await fails(["--sync-frequency", "soon"], "--sync-frequency", /invalid duration "soon"/);
  await fails(["--help=maybe"], "--help", /expected a boolean/);
});

Deno.test("values are validated with the flag named", async () => {
  await fails(["--port=70000"], "--port", /between 0 and 65535/);
  await fails(["--read-only-port=-1"], "--read-only-port", /between 0 and 65535/);
  await fails(["--port=9000", "--read-only-port=9000"], "--read-only-port", /also the port/);
  await fails(["--file-check-frequency=0s"], "--file-check-frequency", /greater than zero/);
  await fails(["--http-check-frequency=0"], "--http-check-frequency", /greater than zero/);
  await fails(["--runtime-request-timeout=-2m"], "--runtime-request-timeout", /greater than zero/);
  await fails(["--max-pods=-1"], "--max-pods", /must not be a negative number/);
  await fails(["--root-dir=var/lib"], "--root-dir", /absolute path/);
  await fails(["--manifest-url=ftp://x/y"], "--manifest-url", /http:\/\/ or https:\/\//);
  await fails(["--manifest-url=not a url"], "--manifest-url", /http:\/\/ or https:\/\//);
  await fails(["--address=localhost"], "--address", /not an IP address/);
  await fails(["--node-ip=10.0.0.1.2"], "--node-ip", /not an IP address/);
  await fails(["--node-ip=10.0.0.1,10.0.0.2"], "--node-ip", /dual-stack pair/);
  await fails(["--hostname-override=under_score"], "--hostname-override", /not a valid node name/);
});

Deno.test("--node-ip accepts one address or a dual-stack pair", async () => {
  assert.equal((await run(["--node-ip=fd00::1"])).config.nodeIP, "fd00::1");
  assert.equal((await run(["--node-ip=10.0.0.1,fd00::1"])).config.nodeIP, "10.0.0.1,fd00::1");
});

Deno.test("runtime endpoints must be unix sockets; a bare path is upgraded with a warning", async () => {
  await fails(
    ["--container-runtime-endpoint=tcp://127.0.0.1:1234"],
    "--container-runtime-endpoint",
    /only unix:\/\/ endpoints are supported on Linux/,
  );
  await fails(
    ["--image-service-endpoint=npipe:////./pipe/x"],
    "--image-service-endpoint",
    /only unix:\/\//,
  );
  await fails(
    ["--container-runtime-endpoint=unix://relative.sock"],
    "--container-runtime-endpoint",
    /absolute socket path/,
  );
  await fails(["--container-runtime-endpoint="], "--container-runtime-endpoint", /empty/);
  const { config, warnings } = await run(["--container-runtime-endpoint=/run/containerd/c.sock"]);
  assert.equal(config.containerRuntimeEndpoint, "unix:///run/containerd/c.sock");
  assert.match(warnings[0], /--container-runtime-endpoint: a bare socket path is deprecated/);
});

Deno.test("the node name is the lowercased hostname unless overridden", async () => {
  assert.equal((await run([])).config.nodeName, "node-1");
  assert.equal((await run(["--hostname-override", " Web-01 "])).config.nodeName, "web-01");
  await assert.rejects(
    loadConfig([], { ...depsWith(), hostname: () => "bad_host" }),
    /node name \(from the hostname; set --hostname-override\): "bad_host" is not a valid node name/,
  );
});

Deno.test("an unknown flag is an error with a suggestion", async () => {
  await fails(["--foo"], "--foo", /unknown flag$/);
  await fails(
    ["--sync-frequncy=1s"],
    "--sync-frequncy",
    /unknown flag \(did you mean --sync-frequency\?\)/,
  );
  await fails(["-x"], "-x", /unknown shorthand flag 'x' in -x/);
});

Deno.test("positional arguments and bad syntax are errors", async () => {
  await fails(["run"], '"run"', /unexpected argument/);
  await fails(["--port=1", "--", "extra"], '"extra"', /unexpected argument/);
  await fails(["---port=1"], "---port=1", /bad flag syntax/);
  await fails(["--port"], "--port", /flag needs an argument/);
  await fails(["-v"], "-v", /flag needs an argument/);
  assert.equal((await run(["--port=1", "--"])).config.port, 1);
});

Deno.test("--help and -h return the usage text; --version the version", async () => {
  for (const argv of [["--help"], ["-h"], ["--port=1", "-h"]]) {
    const r = await loadConfig(argv, depsWith());
    assert.equal(r.kind, "help");
    if (r.kind === "help") {
      assert.match(r.text, /Usage:\n {2}denolet \[flags\]/);
      assert.match(r.text, /--sync-frequency duration +Longest time/);
      assert.match(r.text, /\(default 1m0s\)/);
      assert.match(r.text, /-v, --v Level/);
    }
  }
  const v = await loadConfig(["--version"], depsWith());
  assert.deepEqual(v, { kind: "version", text: "denolet v0.1.0 (commit dev, kubelet-compatible)" });
  assert.equal((await loadConfig(["--help=false"], depsWith())).kind, "run");
});

Deno.test("a bad flag value is reported even with --help, as upstream parses first", async () => {
  await fails(["--help", "--port=x"], "--port", /expected an integer/);
});
