import assert from "node:assert/strict";
import type { V1Pod, V1PodSpec } from "@kubernetes/client-node";
import {
  buildSandboxConfig,
  parseResolvConf,
  podDNSConfig,
  podHostnameAndDomain,
  podPortMappings,
  type SandboxConfigOptions,
} from "../../src/runtime/_sandbox_config.ts";
import { ConfigError } from "../../src/util/errors.ts";

const hostDNS = parseResolvConf(
  "# comment\nnameserver 1.1.1.1\nnameserver 8.8.8.8\nsearch old.example\nsearch corp.example. lab.example .\noptions ndots:2 timeout:1\noptions ndots:3 rotate\nnameserver\n",
);

const opts: SandboxConfigOptions = {
  podLogsDir: "/var/log/pods",
  clusterDNS: ["10.96.0.10"],
  clusterDomain: "cluster.local",
  hostDNS,
};

function pod(spec: Partial<V1PodSpec> = {}, name = "web"): V1Pod {
  return {
    metadata: {
      name,
      namespace: "prod",
      uid: "u-1",
      labels: { app: "web" },
      annotations: { a: "b" },
    },
    spec: { containers: [{ name: "c", image: "busybox" }], ...spec },
  };
}

Deno.test("parseResolvConf accumulates nameservers, keeps the last search, merges options", () => {
  assert.deepEqual(hostDNS, {
    servers: ["1.1.1.1", "8.8.8.8"],
    searches: ["corp.example", "lab.example"],
    options: ["timeout:1", "ndots:3", "rotate"],
  });
  assert.deepEqual(parseResolvConf(""), { servers: [], searches: [], options: [] });
});

Deno.test("ClusterFirst uses cluster DNS, cluster searches first and ndots:5", () => {
  assert.deepEqual(podDNSConfig(pod(), opts), {
    servers: ["10.96.0.10"],
    searches: [
      "prod.svc.cluster.local",
      "svc.cluster.local",
      "cluster.local",
      "corp.example",
      "lab.example",
    ],
    options: ["ndots:5"],
  });
  // Unset policy defaults to ClusterFirst.
  assert.deepEqual(
    podDNSConfig(pod({ dnsPolicy: "ClusterFirst" }), opts),
    podDNSConfig(pod(), opts),
  );
});

Deno.test("ClusterFirst falls back to the host resolver without clusterDNS or on hostNetwork", () => {
  assert.deepEqual(podDNSConfig(pod(), { ...opts, clusterDNS: [] }), hostDNS);
  assert.deepEqual(podDNSConfig(pod({ hostNetwork: true }), opts), hostDNS);
  assert.deepEqual(podDNSConfig(pod({ dnsPolicy: "Default" }), opts), hostDNS);
  assert.equal(
    podDNSConfig(pod({ hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" }), opts).servers[0],
    "10.96.0.10",
  );
});

Deno.test('host DNS with --resolv-conf="" points at localhost', () => {
  const cfg = podDNSConfig(pod({ dnsPolicy: "Default" }), {
    ...opts,
    resolvConf: "",
    hostDNS: parseResolvConf(""),
    nodeIPs: ["fd00::1"],
  });
  assert.deepEqual(cfg, { servers: ["::1"], searches: ["."], options: [] });
});

Deno.test("dnsPolicy None takes only spec.dnsConfig; dnsConfig merges into other policies", () => {
  const dnsConfig = {
    nameservers: ["9.9.9.9"],
    searches: ["extra.example", "svc.cluster.local"],
    options: [{ name: "ndots", value: "2" }, { name: "edns0" }],
  };
  assert.deepEqual(podDNSConfig(pod({ dnsPolicy: "None", dnsConfig }), opts), {
    servers: ["9.9.9.9"],
    searches: ["extra.example", "svc.cluster.local"],
    options: ["ndots:2", "edns0"],
  });
  assert.deepEqual(podDNSConfig(pod({ dnsConfig }), opts), {
    servers: ["10.96.0.10", "9.9.9.9"],
    searches: [
      "prod.svc.cluster.local",
      "svc.cluster.local",
      "cluster.local",
      "corp.example",
      "lab.example",
      "extra.example",
    ],
    options: ["ndots:2", "edns0"],
  });
});

Deno.test("DNS config is cut to resolver limits", () => {
  const many = Array.from({ length: 40 }, (_, i) => `d${i}.example`);
  const cfg = podDNSConfig(
    pod({
      dnsPolicy: "None",
      dnsConfig: { nameservers: ["1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4"], searches: many },
    }),
    opts,
  );
  assert.deepEqual(cfg.servers, ["1.1.1.1", "2.2.2.2", "3.3.3.3"]);
  assert.equal(cfg.searches.length, 32);
  const long = Array.from(
    { length: 12 },
    (_, i) => `${String(i).padStart(2, "0")}${"x".repeat(200)}`,
  );
  const cut = podDNSConfig(
    pod({ dnsPolicy: "None", dnsConfig: { searches: [...long, "y".repeat(300)] } }),
    opts,
  );
  assert.ok(cut.searches.join(" ").length <= 2048);
  assert.equal(cut.searches.length, 10);
});

Deno.test("hostname rules: spec.hostname, truncation, subdomain FQDN", () => {
  assert.deepEqual(podHostnameAndDomain(pod(), "cluster.local"), { hostname: "web", domain: "" });
  assert.deepEqual(
    podHostnameAndDomain(pod({ hostname: "h1", subdomain: "sub" }), "cluster.local"),
    {
      hostname: "h1",
      domain: "sub.prod.svc.cluster.local",
    },
  );
  const longName = "a".repeat(60) + "-.-bbbb";
  assert.equal(podHostnameAndDomain(pod({}, longName), "c").hostname, "a".repeat(60));
  assert.throws(() => podHostnameAndDomain(pod({ hostname: "Bad_Host" }), "c"), ConfigError);
  assert.throws(() => podHostnameAndDomain(pod({ subdomain: "x.y" }), "c"), ConfigError);
});

Deno.test("hostnameOverride wins over hostname and subdomain, with no domain", () => {
  // The e2e "Override hostname of Pod" specs: `hostname` and `hostname -f` both print it.
  assert.deepEqual(
    podHostnameAndDomain(pod({ hostnameOverride: "override.example.host" }), "cluster.local"),
    { hostname: "override.example.host", domain: "" },
  );
  assert.deepEqual(
    podHostnameAndDomain(
      pod({ hostname: "custom-host", subdomain: "t", hostnameOverride: "override-host" }),
      "cluster.local",
    ),
    { hostname: "override-host", domain: "" },
  );
  // A DNS subdomain, cut to 63 characters as a pod-name hostname is.
  const long = `${"a".repeat(62)}.b`;
  assert.equal(podHostnameAndDomain(pod({ hostnameOverride: long }), "c").hostname, "a".repeat(62));
  assert.throws(
    () => podHostnameAndDomain(pod({ hostnameOverride: "Invalid-Hostname-!" }), "c"),
    /not a valid DNS subdomain/,
  );
  assert.equal(
    buildSandboxConfig(pod({ hostnameOverride: "override-host" }), 0, opts).hostname,
    "override-host",
  );
});

Deno.test("buildSandboxConfig sets hostname (FQDN when asked) unless hostNetwork", () => {
  assert.equal(buildSandboxConfig(pod(), 0, opts).hostname, "web");
  assert.equal(buildSandboxConfig(pod({ hostNetwork: true }), 0, opts).hostname, undefined);
  const fqdn = buildSandboxConfig(
    pod({ hostname: "h", subdomain: "s", setHostnameAsFQDN: true }),
    0,
    opts,
  );
  assert.equal(fqdn.hostname, "h.s.prod.svc.cluster.local");
  assert.throws(
    () =>
      buildSandboxConfig(
        pod({ hostname: "h".repeat(40), subdomain: "s", setHostnameAsFQDN: true }),
        0,
        opts,
      ),
    /too long/,
  );
});

Deno.test("port mappings include every container port, deduplicated per container", () => {
  const p = pod({
    containers: [
      {
        name: "a",
        ports: [
          { containerPort: 80, hostPort: 8080 },
          { containerPort: 53, protocol: "UDP" },
          { containerPort: 80, hostPort: 8080 },
          { name: "metrics", containerPort: 9090, hostIP: "127.0.0.1", hostPort: 9090 },
        ],
      },
      { name: "b", ports: [{ containerPort: 80, hostPort: 8080 }] },
    ],
  });
  assert.deepEqual(podPortMappings(p), [
    { protocol: "TCP", containerPort: 80, hostPort: 8080, hostIp: "" },
    { protocol: "UDP", containerPort: 53, hostPort: 0, hostIp: "" },
    { protocol: "TCP", containerPort: 9090, hostPort: 9090, hostIp: "127.0.0.1" },
    { protocol: "TCP", containerPort: 80, hostPort: 8080, hostIp: "" },
  ]);
  assert.equal(buildSandboxConfig(pod(), 0, opts).portMappings, undefined);
});

Deno.test("buildSandboxConfig fills metadata, labels, log dir, namespaces and security context", () => {
  const p = pod({
    hostPID: true,
    hostIPC: true,
    securityContext: {
      runAsUser: 1000,
      runAsGroup: 2000,
      fsGroup: 3000,
      supplementalGroups: [4000, 5000],
      sysctls: [{ name: "net.ipv4.ip_unprivileged_port_start", value: "0" }],
    },
    initContainers: [{ name: "i", securityContext: { privileged: true } }],
  });
  const cfg = buildSandboxConfig(p, 2, { ...opts, cgroupParent: "/kubepods" });
  assert.deepEqual(cfg.metadata, { name: "web", uid: "u-1", namespace: "prod", attempt: 2 });
  assert.equal(cfg.logDirectory, "/var/log/pods/prod_web_u-1");
  assert.equal(cfg.labels?.["io.kubernetes.pod.uid"], "u-1");
  assert.equal(cfg.labels?.app, "web");
  assert.deepEqual(cfg.annotations, { a: "b" });
  assert.deepEqual(cfg.linux, {
    cgroupParent: "/kubepods",
    sysctls: { "net.ipv4.ip_unprivileged_port_start": "0" },
    securityContext: {
      namespaceOptions: { network: "POD", pid: "NODE", ipc: "NODE" },
      privileged: true,
      runAsUser: { value: 1000 },
      runAsGroup: { value: 2000 },
      supplementalGroups: [3000, 4000, 5000],
      seccomp: { profileType: "RuntimeDefault" },
    },
  });
  const ns = (spec: Partial<V1PodSpec>) =>
    buildSandboxConfig(pod(spec), 0, opts).linux?.securityContext?.namespaceOptions;
  assert.deepEqual(ns({}), { network: "POD", pid: "CONTAINER", ipc: "POD" });
  assert.deepEqual(ns({ shareProcessNamespace: true }), { network: "POD", pid: "POD", ipc: "POD" });
  assert.deepEqual(ns({ hostNetwork: true }), { network: "NODE", pid: "CONTAINER", ipc: "POD" });
});

Deno.test("the sandbox always asks for RuntimeDefault seccomp, whatever the pod's profile", () => {
  for (
    const seccompProfile of [
      undefined,
      { type: "Unconfined" },
      { type: "Localhost", localhostProfile: "strict.json" },
    ]
  ) {
    const cfg = buildSandboxConfig(pod({ securityContext: { seccompProfile } }), 0, opts);
    assert.deepEqual(
      cfg.linux?.securityContext?.seccomp,
      { profileType: "RuntimeDefault" },
      JSON.stringify(seccompProfile),
    );
  }
});
