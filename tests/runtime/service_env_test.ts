import assert from "node:assert/strict";
import type { V1Container, V1Pod, V1Service, V1ServicePort } from "@kubernetes/client-node";
import { buildEnv } from "../../src/runtime/_env.ts";
import {
  podServiceEnv,
  serviceEnvVars,
  type ServiceLookup,
  ServicesNotSyncedError,
} from "../../src/runtime/_service_env.ts";

function svc(
  namespace: string,
  name: string,
  clusterIP: string,
  ports: Partial<V1ServicePort>[] = [{ port: 80, protocol: "TCP" }],
): V1Service {
  return {
    metadata: { name, namespace },
    spec: { clusterIP, ports: ports as V1ServicePort[] },
  };
}

Deno.test("serviceEnvVars: host, ports, named ports and link forms per service", () => {
  const vars = serviceEnvVars([
    svc("ns", "web-front", "10.0.0.1", [{ port: 8080, protocol: "TCP" }]),
    svc("ns", "dns-2", "10.0.0.2", [
      { name: "dns-udp", port: 53, protocol: "UDP" },
      { name: "dns-tcp", port: 53, protocol: "TCP" },
    ]),
    svc("ns", "mixed", "10.0.0.3", [{ port: 9000 }, {
      name: "9001",
      port: 9001,
      protocol: "SCTP",
    }]),
    svc("ns", "headless", "None"),
    svc("ns", "pending", ""),
  ]);
  assert.deepEqual(vars, [
    ["WEB_FRONT_SERVICE_HOST", "10.0.0.1"],
    ["WEB_FRONT_SERVICE_PORT", "8080"],
    ["WEB_FRONT_PORT", "tcp://10.0.0.1:8080"],
    ["WEB_FRONT_PORT_8080_TCP", "tcp://10.0.0.1:8080"],
    ["WEB_FRONT_PORT_8080_TCP_PROTO", "tcp"],
    ["WEB_FRONT_PORT_8080_TCP_PORT", "8080"],
    ["WEB_FRONT_PORT_8080_TCP_ADDR", "10.0.0.1"],
    ["DNS_2_SERVICE_HOST", "10.0.0.2"],
    ["DNS_2_SERVICE_PORT", "53"],
    ["DNS_2_SERVICE_PORT_DNS_UDP", "53"],
    ["DNS_2_SERVICE_PORT_DNS_TCP", "53"],
    ["DNS_2_PORT", "udp://10.0.0.2:53"],
    ["DNS_2_PORT_53_UDP", "udp://10.0.0.2:53"],
    ["DNS_2_PORT_53_UDP_PROTO", "udp"],
    ["DNS_2_PORT_53_UDP_PORT", "53"],
    ["DNS_2_PORT_53_UDP_ADDR", "10.0.0.2"],
    ["DNS_2_PORT_53_TCP", "tcp://10.0.0.2:53"],
    ["DNS_2_PORT_53_TCP_PROTO", "tcp"],
    ["DNS_2_PORT_53_TCP_PORT", "53"],
    ["DNS_2_PORT_53_TCP_ADDR", "10.0.0.2"],
    // An unnamed first port gets no _SERVICE_PORT_<NAME>; a missing protocol is TCP.
    ["MIXED_SERVICE_HOST", "10.0.0.3"],
    ["MIXED_SERVICE_PORT", "9000"],
    ["MIXED_SERVICE_PORT_9001", "9001"],
    ["MIXED_PORT", "tcp://10.0.0.3:9000"],
    ["MIXED_PORT_9000_TCP", "tcp://10.0.0.3:9000"],
    ["MIXED_PORT_9000_TCP_PROTO", "tcp"],
    ["MIXED_PORT_9000_TCP_PORT", "9000"],
    ["MIXED_PORT_9000_TCP_ADDR", "10.0.0.3"],
    ["MIXED_PORT_9001_SCTP", "sctp://10.0.0.3:9001"],
    ["MIXED_PORT_9001_SCTP_PROTO", "sctp"],
    ["MIXED_PORT_9001_SCTP_PORT", "9001"],
    ["MIXED_PORT_9001_SCTP_ADDR", "10.0.0.3"],
  ]);
});

Deno.test("serviceEnvVars brackets an IPv6 ClusterIP in URLs only", () => {
  const env = new Map(serviceEnvVars([svc("ns", "v6", "fd00::10", [{ port: 443 }])]));
  assert.equal(env.get("V6_SERVICE_HOST"), "fd00::10");
  assert.equal(env.get("V6_PORT"), "tcp://[fd00::10]:443");
  assert.equal(env.get("V6_PORT_443_TCP"), "tcp://[fd00::10]:443");
  assert.equal(env.get("V6_PORT_443_TCP_ADDR"), "fd00::10");
});

const KUBERNETES = svc("default", "kubernetes", "10.96.0.1", [
  { name: "https", port: 443, protocol: "TCP" },
]);

function lookupOf(services: V1Service[]): ServiceLookup {
  return (ns) => services.filter((s) => s.metadata?.namespace === ns);
}

function apiPod(namespace: string, spec: Partial<V1Pod["spec"]> = {}): V1Pod {
  return {
    metadata: { name: "p", namespace, annotations: { "kubernetes.io/config.source": "api" } },
    spec: { containers: [{ name: "c" }], ...spec },
  };
}

Deno.test("podServiceEnv: the kubernetes service always, the namespace's with links on", () => {
  const lookup = lookupOf([
    KUBERNETES,
    svc("default", "other-default", "10.96.0.9"),
    svc("apps", "db", "10.96.1.1", [{ port: 5432 }]),
    svc("apps", "headless", "None"),
    svc("elsewhere", "x", "10.96.2.2"),
  ]);
  const env = podServiceEnv(apiPod("apps"), lookup);
  assert.equal(env.get("KUBERNETES_SERVICE_HOST"), "10.96.0.1");
  assert.equal(env.get("KUBERNETES_SERVICE_PORT"), "443");
  assert.equal(env.get("KUBERNETES_SERVICE_PORT_HTTPS"), "443");
  assert.equal(env.get("KUBERNETES_PORT"), "tcp://10.96.0.1:443");
  assert.equal(env.get("KUBERNETES_PORT_443_TCP"), "tcp://10.96.0.1:443");
  assert.equal(env.get("KUBERNETES_PORT_443_TCP_PROTO"), "tcp");
  assert.equal(env.get("KUBERNETES_PORT_443_TCP_PORT"), "443");
  assert.equal(env.get("KUBERNETES_PORT_443_TCP_ADDR"), "10.96.0.1");
  assert.equal(env.get("DB_SERVICE_HOST"), "10.96.1.1");
  const names = [...env.keys()];
  assert.equal(names.some((n) => n.startsWith("OTHER_DEFAULT_")), false);
  assert.equal(names.some((n) => n.startsWith("HEADLESS_")), false);
  assert.equal(names.some((n) => n.startsWith("X_")), false);

  const off = podServiceEnv(apiPod("apps", { enableServiceLinks: false }), lookup);
  assert.equal(off.get("KUBERNETES_SERVICE_HOST"), "10.96.0.1");
  assert.equal(off.has("DB_SERVICE_HOST"), false);

  const inDefault = podServiceEnv(apiPod("default"), lookup);
  assert.equal(inDefault.get("OTHER_DEFAULT_SERVICE_HOST"), "10.96.0.9");
  assert.equal(inDefault.get("KUBERNETES_SERVICE_HOST"), "10.96.0.1");
});

Deno.test("podServiceEnv: a namespace's own kubernetes service wins with links on", () => {
  const lookup = lookupOf([KUBERNETES, svc("apps", "kubernetes", "10.96.7.7")]);
  assert.equal(podServiceEnv(apiPod("apps"), lookup).get("KUBERNETES_SERVICE_HOST"), "10.96.7.7");
  assert.equal(
    podServiceEnv(apiPod("apps", { enableServiceLinks: false }), lookup)
      .get("KUBERNETES_SERVICE_HOST"),
    "10.96.0.1",
  );
});

Deno.test("podServiceEnv: none standalone; before the first list an API pod fails", () => {
  assert.equal(podServiceEnv(apiPod("apps"), undefined).size, 0);
  const unsynced: ServiceLookup = () => undefined;
  assert.throws(() => podServiceEnv(apiPod("apps"), unsynced), ServicesNotSyncedError);
  const staticPod = apiPod("kube-system");
  staticPod.metadata!.annotations = { "kubernetes.io/config.source": "file" };
  assert.equal(podServiceEnv(staticPod, unsynced).size, 0);
});

Deno.test("buildEnv: the pod's env wins, expansion sees service variables", async () => {
  const c: V1Container = {
    name: "c",
    env: [
      { name: "API", value: "https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)" },
      { name: "DB_SERVICE_HOST", value: "db.local" },
      { name: "DB_URL", value: "$(DB_SERVICE_HOST):$(DB_SERVICE_PORT)" },
    ],
  };
  const pod = apiPod("apps", { containers: [c] });
  const services = lookupOf([KUBERNETES, svc("apps", "db", "10.96.1.1", [{ port: 5432 }])]);
  const env = await buildEnv(pod, c, { nodeName: "n", podIPs: [], services });
  const map = new Map(env.map((kv) => [kv.key, kv.value]));
  assert.deepEqual(env.slice(0, 3).map((kv) => kv.key), ["API", "DB_SERVICE_HOST", "DB_URL"]);
  assert.equal(map.get("API"), "https://10.96.0.1:443");
  assert.equal(map.get("DB_SERVICE_HOST"), "db.local");
  assert.equal(map.get("DB_URL"), "db.local:5432");
  assert.equal(map.get("DB_PORT"), "tcp://10.96.1.1:5432");
  assert.equal(env.filter((kv) => kv.key === "DB_SERVICE_HOST").length, 1);
  await assert.rejects(
    buildEnv(pod, c, { nodeName: "n", podIPs: [], services: () => undefined }),
    /services have not yet been read at least once, cannot construct envvars/,
  );
});
