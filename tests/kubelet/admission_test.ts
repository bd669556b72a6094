/**
 * Admission predicates as the upstream kubelet runs them (lifecycle/predicate.go over the
 * scheduler's AdmissionCheck): each refusal with its reason and message, the request formula
 * (init containers, sidecars, overhead, pod-level requests) and the order of the checks.
 */
import assert from "node:assert/strict";
import type { V1Container, V1Node, V1Pod, V1PodSpec, V1Taint } from "@kubernetes/client-node";
import { type AdmissionInput, admitPod } from "../../src/kubelet/_admission.ts";
import { podRequests, podUsage } from "../../src/kubelet/_admission_fit.ts";

const NODE = "node1";

function node(opts: {
  allocatable?: Record<string, string>;
  labels?: Record<string, string>;
  taints?: V1Taint[];
} = {}): V1Node {
  return {
    metadata: { name: NODE, labels: { "kubernetes.io/hostname": NODE, ...opts.labels } },
    spec: { taints: opts.taints },
    status: {
      allocatable: opts.allocatable ??
        { cpu: "2", memory: "4Gi", "ephemeral-storage": "10Gi", pods: "110" },
    },
  };
}

function container(
  name: string,
  requests?: Record<string, string>,
  extra: Partial<V1Container> = {},
) {
  return { name, image: "busybox", resources: requests ? { requests } : undefined, ...extra };
}

function pod(name: string, spec: Partial<V1PodSpec> = {}, meta: V1Pod["metadata"] = {}): V1Pod {
  return {
    metadata: { name, namespace: "default", uid: `uid-${name}`, ...meta },
    spec: { nodeName: NODE, containers: [container("app")], ...spec },
  };
}

const staticPod = (name: string, spec: Partial<V1PodSpec> = {}) =>
  pod(name, spec, { annotations: { "kubernetes.io/config.source": "file" } });

function admit(p: V1Pod, input: Partial<AdmissionInput> = {}) {
  return admitPod(p, { activePods: [], maxPods: 110, node: node(), ...input });
}

const refused = (reason: string, message: string) => ({ admit: false, reason, message });

Deno.test("admission: the eviction manager's refusal comes first", () => {
  const before = () => refused("Evicted", "The node had condition: [DiskPressure]. ");
  const big = pod("big", { containers: [container("app", { cpu: "64" })] });
  assert.deepEqual(admit(big, { before }), before());
});

Deno.test("admission: without a Node only the pod count is checked (OutOfpods)", () => {
  const others = [pod("a"), pod("b")];
  const big = pod("big", { containers: [container("app", { cpu: "64" })] });
  assert.deepEqual(admit(big, { node: undefined, activePods: [pod("a")], maxPods: 2 }), {
    admit: true,
  });
  assert.deepEqual(
    admit(pod("c"), { node: undefined, activePods: others, maxPods: 2 }),
    refused(
      "OutOfpods",
      "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
    ),
  );
});

Deno.test("admission: OutOfpods with a Node too, before the other resources", () => {
  const big = pod("big", { containers: [container("app", { cpu: "64" })] });
  assert.deepEqual(
    admit(big, { activePods: [pod("a")], maxPods: 1 }),
    refused(
      "OutOfpods",
      "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1",
    ),
  );
});

Deno.test("admission: OutOfcpu counts the other active pods' requests in millicores", () => {
  const other = pod("other", { containers: [container("app", { cpu: "500m" })] });
  const p = pod("p", { containers: [container("app", { cpu: "1600m" })] });
  assert.deepEqual(
    admit(p, { activePods: [other] }),
    refused(
      "OutOfcpu",
      "Node didn't have enough resource: cpu, requested: 1600, used: 500, capacity: 2000",
    ),
  );
  assert.deepEqual(admit(p), { admit: true });
  // Exactly what is left fits.
  const rest = pod("rest", { containers: [container("app", { cpu: "1500m" })] });
  assert.deepEqual(admit(rest, { activePods: [other] }), { admit: true });
});

Deno.test("admission: OutOfmemory and OutOfephemeral-storage in bytes", () => {
  const mem = pod("mem", { containers: [container("app", { memory: "5Gi" })] });
  assert.deepEqual(
    admit(mem),
    refused(
      "OutOfmemory",
      "Node didn't have enough resource: memory, requested: 5368709120, used: 0, capacity: 4294967296",
    ),
  );
  const disk = pod("disk", { containers: [container("app", { "ephemeral-storage": "11Gi" })] });
  assert.deepEqual(
    admit(disk),
    refused(
      "OutOfephemeral-storage",
      "Node didn't have enough resource: ephemeral-storage, requested: 11811160064, used: 0, " +
        "capacity: 10737418240",
    ),
  );
});

Deno.test("admission: a pod that requests nothing fits a full node", () => {
  const hog = pod("hog", { containers: [container("app", { cpu: "2", memory: "4Gi" })] });
  assert.deepEqual(admit(pod("empty"), { activePods: [hog] }), { admit: true });
});

Deno.test("admission: requests follow the sidecar formula, pod-level requests and overhead", () => {
  // Init "setup" (1500m) runs beside sidecar "proxy" declared before it (300m): peak 1800m;
  // running: app 1000m + proxy 300m + late sidecar 200m = 1500m; the pod needs the larger.
  const p = pod("init", {
    initContainers: [
      container("proxy", { cpu: "300m" }, { restartPolicy: "Always" }),
      container("setup", { cpu: "1500m", memory: "64Mi" }),
      container("late", { cpu: "200m" }, { restartPolicy: "Always" }),
    ],
    containers: [container("app", { cpu: "1", memory: "32Mi" })],
  });
  const req = podRequests(p);
  assert.equal(req.get("cpu"), 1800);
  assert.equal(req.get("memory"), 64 * 2 ** 20);

  const withOverhead = pod("oh", {
    containers: [container("app", { cpu: "1" })],
    overhead: { cpu: "250m", memory: "10Mi" },
  });
  assert.equal(podRequests(withOverhead).get("cpu"), 1250);
  assert.equal(podRequests(withOverhead).get("memory"), 10 * 2 ** 20);

  const podLevel = pod("pl", {
    containers: [container("a", { cpu: "100m" }), container("b", { cpu: "100m" })],
    resources: { requests: { cpu: "1500m" } },
  });
  assert.equal(podRequests(podLevel).get("cpu"), 1500);

  // The formula decides admission: 1800m + 300m used by another pod does not fit in 2 cores.
  const other = pod("other", { containers: [container("app", { cpu: "300m" })] });
  assert.deepEqual(
    admit(p, { activePods: [other] }),
    refused(
      "OutOfcpu",
      "Node didn't have enough resource: cpu, requested: 1800, used: 300, capacity: 2000",
    ),
  );
});

Deno.test("admission: extended resources the node lacks are ignored; others are checked", () => {
  const gpu = pod("gpu", { containers: [container("app", { "example.com/gpu": "1" })] });
  assert.deepEqual(admit(gpu), { admit: true });
  const n = node({ allocatable: { cpu: "2", memory: "4Gi", "example.com/gpu": "1" } });
  const two = pod("two", { containers: [container("app", { "example.com/gpu": "2" })] });
  assert.deepEqual(
    admit(two, { node: n }),
    refused(
      "OutOfexample.com/gpu",
      "Node didn't have enough resource: example.com/gpu, requested: 2, used: 0, capacity: 1",
    ),
  );
  const huge = pod("huge", { containers: [container("app", { "hugepages-2Mi": "4Mi" })] });
  assert.deepEqual(
    admit(huge),
    refused(
      "OutOfhugepages-2Mi",
      "Node didn't have enough resource: hugepages-2Mi, requested: 4194304, used: 0, capacity: 0",
    ),
  );
});

const NODE_AFFINITY = refused(
  "NodeAffinity",
  "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
);

Deno.test("admission: nodeSelector must match the Node's labels (NodeAffinity)", () => {
  const n = node({ labels: { disk: "ssd" } });
  assert.deepEqual(admit(pod("ok", { nodeSelector: { disk: "ssd" } }), { node: n }), {
    admit: true,
  });
  assert.deepEqual(admit(pod("no", { nodeSelector: { disk: "hdd" } }), { node: n }), NODE_AFFINITY);
  assert.deepEqual(
    admit(pod("none", { nodeSelector: { gpu: "yes" } }), { node: n }),
    NODE_AFFINITY,
  );
});

Deno.test("admission: required node affinity operators, terms ORed, expressions ANDed", () => {
  const n = node({ labels: { zone: "a", cores: "8" } });
  const affinity = (...terms: object[]) =>
    pod("aff", {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms },
        },
      },
    } as Partial<V1PodSpec>);
  const expr = (key: string, operator: string, values?: string[]) => ({
    matchExpressions: [{ key, operator, values }],
  });
  const ok = (p: V1Pod) => assert.deepEqual(admit(p, { node: n }), { admit: true });
  const no = (p: V1Pod) => assert.deepEqual(admit(p, { node: n }), NODE_AFFINITY);
  ok(affinity(expr("zone", "In", ["a", "b"])));
  no(affinity(expr("zone", "In", ["b"])));
  ok(affinity(expr("zone", "NotIn", ["b"])));
  ok(affinity(expr("rack", "NotIn", ["r1"])));
  no(affinity(expr("zone", "NotIn", ["a"])));
  ok(affinity(expr("zone", "Exists")));
  no(affinity(expr("rack", "Exists")));
  ok(affinity(expr("rack", "DoesNotExist")));
  ok(affinity(expr("cores", "Gt", ["4"])));
  no(affinity(expr("cores", "Gt", ["8"])));
  ok(affinity(expr("cores", "Lt", ["16"])));
  no(affinity(expr("zone", "Gt", ["1"])) /* not a number */);
  no(affinity(expr("zone", "In", [])) /* malformed */);
  // ORed terms: one matching term is enough; an empty term matches nothing.
  ok(affinity(expr("zone", "In", ["b"]), expr("zone", "In", ["a"])));
  no(affinity({}));
  // ANDed expressions within a term.
  no(affinity({
    matchExpressions: [
      { key: "zone", operator: "In", values: ["a"] },
      { key: "cores", operator: "Lt", values: ["2"] },
    ],
  }));
  // matchFields: metadata.name only.
  ok(affinity({ matchFields: [{ key: "metadata.name", operator: "In", values: [NODE] }] }));
  no(affinity({ matchFields: [{ key: "metadata.name", operator: "NotIn", values: [NODE] }] }));
  no(affinity({ matchFields: [{ key: "metadata.uid", operator: "In", values: [NODE] }] }));
});

Deno.test("admission: a pod bound to another node is refused (NodeName)", () => {
  assert.deepEqual(
    admit(pod("elsewhere", { nodeName: "node2" })),
    refused("NodeName", "Predicate NodeName failed: node(s) didn't match the requested node name"),
  );
});

Deno.test("admission: host ports in use by an active pod are refused (NodePorts)", () => {
  const NODE_PORTS = refused(
    "NodePorts",
    "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
  );
  const withPort = (name: string, port: Record<string, unknown>, init = false) => {
    const c = container("c", undefined, { ports: [{ containerPort: 80, ...port }] });
    return init
      ? pod(name, { initContainers: [{ ...c, restartPolicy: "Always" }] })
      : pod(name, { containers: [c] });
  };
  const web = withPort("web", { hostPort: 8080 });
  assert.deepEqual(admit(withPort("b", { hostPort: 8080 }), { activePods: [web] }), NODE_PORTS);
  // Another protocol, another port, or no host port: free.
  assert.deepEqual(
    admit(withPort("udp", { hostPort: 8080, protocol: "UDP" }), {
      activePods: [web],
    }),
    { admit: true },
  );
  assert.deepEqual(admit(withPort("p", { hostPort: 8081 }), { activePods: [web] }), {
    admit: true,
  });
  assert.deepEqual(admit(withPort("none", {}), { activePods: [withPort("x", {})] }), {
    admit: true,
  });
  // Two specific addresses do not clash; 0.0.0.0 clashes with any.
  const a = withPort("a", { hostPort: 9000, hostIP: "10.0.0.1" });
  assert.deepEqual(
    admit(withPort("b", { hostPort: 9000, hostIP: "10.0.0.2" }), {
      activePods: [a],
    }),
    { admit: true },
  );
  assert.deepEqual(admit(withPort("all", { hostPort: 9000 }), { activePods: [a] }), NODE_PORTS);
  // A sidecar's port is held for the pod's life; a regular init container's is not.
  const sidecar = withPort("sc", { hostPort: 7000 }, true);
  assert.deepEqual(admit(withPort("b", { hostPort: 7000 }), { activePods: [sidecar] }), NODE_PORTS);
  const init = pod("init", {
    initContainers: [container("i", undefined, { ports: [{ containerPort: 1, hostPort: 7001 }] })],
  });
  assert.deepEqual(admit(withPort("b", { hostPort: 7001 }), { activePods: [init] }), {
    admit: true,
  });
});

Deno.test("admission: an untolerated NoExecute taint refuses API pods, not static pods", () => {
  const TAINT = refused(
    "TaintToleration",
    "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate",
  );
  const n = node({ taints: [{ key: "dedicated", value: "db", effect: "NoExecute" }] });
  assert.deepEqual(admit(pod("plain"), { node: n }), TAINT);
  assert.deepEqual(admit(staticPod("static"), { node: n }), { admit: true });
  const tol = (t: object) => pod("tol", { tolerations: [t] } as Partial<V1PodSpec>);
  assert.deepEqual(admit(tol({ key: "dedicated", operator: "Equal", value: "db" }), { node: n }), {
    admit: true,
  });
  assert.deepEqual(
    admit(tol({ key: "dedicated", operator: "Exists", effect: "NoExecute" }), {
      node: n,
    }),
    { admit: true },
  );
  assert.deepEqual(admit(tol({ operator: "Exists" }), { node: n }), { admit: true });
  assert.deepEqual(admit(tol({ key: "dedicated", value: "web" }), { node: n }), TAINT);
  assert.deepEqual(
    admit(tol({ key: "dedicated", operator: "Exists", effect: "NoSchedule" }), {
      node: n,
    }),
    TAINT,
  );
  // NoSchedule and PreferNoSchedule are the scheduler's business.
  const soft = node({ taints: [{ key: "k", effect: "NoSchedule" }] });
  assert.deepEqual(admit(pod("plain"), { node: soft }), { admit: true });
});

Deno.test("admission: the pod's OS is checked first", () => {
  const big = pod("win", { os: { name: "windows" }, containers: [container("a", { cpu: "64" })] });
  assert.deepEqual(
    admit(big),
    refused("PodOSNotSupported", "Failed to admit pod as the OS field doesn't match node OS"),
  );
  const labelled = pod("l", {}, { labels: { "kubernetes.io/os": "windows" } });
  assert.deepEqual(
    admit(labelled, { node: undefined }),
    refused(
      "PodOSSelectorNodeLabelDoesNotMatch",
      "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
    ),
  );
  assert.deepEqual(admit(pod("linux", { os: { name: "linux" } })), { admit: true });
});

Deno.test("admission: resources are checked before node affinity, affinity before ports", () => {
  const n = node({ labels: { disk: "ssd" } });
  const both = pod("both", {
    nodeSelector: { disk: "hdd" },
    containers: [container("app", { cpu: "3" }, { ports: [{ containerPort: 1, hostPort: 80 }] })],
  });
  assert.equal(admit(both, { node: n }).reason, "OutOfcpu");
  const affinityAndPort = pod("ap", {
    nodeSelector: { disk: "hdd" },
    containers: [container("app", undefined, { ports: [{ containerPort: 1, hostPort: 80 }] })],
  });
  const user = pod("user", {
    containers: [container("app", undefined, { ports: [{ containerPort: 1, hostPort: 80 }] })],
  });
  assert.equal(admit(affinityAndPort, { node: n, activePods: [user] }).reason, "NodeAffinity");
});

Deno.test("a pod being resized holds the most of what it asks, was allocated and has (UseStatusResources)", () => {
  const shrinking = pod("shrinking", { containers: [container("app", { cpu: "100m" })] });
  shrinking.status = {
    containerStatuses: [{
      name: "app",
      image: "busybox",
      imageID: "",
      ready: true,
      restartCount: 0,
      allocatedResources: { cpu: "100m" },
      // Not applied yet: it still has the CPU it had.
      resources: { requests: { cpu: "1500m" } },
    }],
  };
  assert.deepEqual(podUsage(shrinking).get("cpu"), 1500);
  assert.deepEqual(podRequests(shrinking).get("cpu"), 100);
  const verdict = admitPod(pod("new", { containers: [container("app", { cpu: "1" })] }), {
    activePods: [shrinking],
    maxPods: 110,
    node: node(),
  });
  assert.equal(verdict.reason, "OutOfcpu");
  assert.equal(
    verdict.message,
    "Node didn't have enough resource: cpu, requested: 1000, used: 1500, capacity: 2000",
  );
  // An infeasible resize's desired resources count for nothing.
  shrinking.status.containerStatuses![0].resources = undefined;
  shrinking.status.containerStatuses![0].allocatedResources = undefined;
  shrinking.status.conditions = [{
    type: "PodResizePending",
    status: "True",
    reason: "Infeasible",
  }];
  assert.deepEqual(podUsage(shrinking).get("cpu"), 100);
});
