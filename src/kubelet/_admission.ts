/**
 * Whether a new pod may run on the node (upstream `canAdmitPod`): the eviction manager's verdict
 * first, then the predicate admit handler (pkg/kubelet/lifecycle/predicate.go): the pod's OS, then
 * the scheduler's admission checks in its order (resources, NodeAffinity, NodeName, NodePorts)
 * and untolerated NoExecute taints. The first failure is the verdict, with upstream's reason and
 * message. Without a Node (standalone, or the API has not shown it yet) only the pod count is
 * checked. Static pods are critical upstream, but with nothing to preempt, one that does not fit
 * is refused like any other; as upstream they skip the taint check.
 */
import type { V1Node, V1Pod, V1Taint, V1Toleration } from "@kubernetes/client-node";
import { resourceShortages } from "./_admission_fit.ts";
import { isStaticPod } from "../util/static_pod.ts";
import { nodeSelectorTermsMatch } from "../util/node_selector.ts";

export interface AdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

export interface AdmissionInput {
  /** Pods already admitted and not finished (upstream `filterOutInactivePods`), not this one. */
  activePods: readonly V1Pod[];
  /** --max-pods: the node's pod capacity. */
  maxPods: number;
  /** The Node as the API server has it (allocatable, labels, taints); undefined when unknown. */
  node?: V1Node;
  /** Handlers asked before the predicates (the eviction manager). */
  before?: (pod: V1Pod) => AdmitResult;
}

const OS_LABEL = "kubernetes.io/os";
/** The node's OS as Go's runtime.GOOS names it. */
const NODE_OS = "linux";

/** Upstream's reasons for a resource the node lacks; others are `OutOf<name>`. */
const OUT_OF: Record<string, string> = {
  cpu: "OutOfcpu",
  memory: "OutOfmemory",
  "ephemeral-storage": "OutOfephemeral-storage",
  pods: "OutOfpods",
};

/** Scheduler plugin names and their filter reasons, which the kubelet reports verbatim. */
const NODE_AFFINITY = ["NodeAffinity", "node(s) didn't match Pod's node affinity/selector"];
const NODE_NAME = ["NodeName", "node(s) didn't match the requested node name"];
const NODE_PORTS = ["NodePorts", "node(s) didn't have free ports for the requested pod ports"];
const TAINTS = ["TaintToleration", "node(s) had taints that the pod didn't tolerate"];

function predicateFailure([name, desc]: string[]): AdmitResult {
  return { admit: false, reason: name, message: `Predicate ${name} failed: ${desc}` };
}

export function admitPod(pod: V1Pod, input: AdmissionInput): AdmitResult {
  const first = input.before?.(pod);
  if (first && !first.admit) return first;
  const os = osVerdict(pod);
  if (os) return os;
  const shortages = input.node
    ? resourceShortages(pod, { others: input.activePods, node: input.node, maxPods: input.maxPods })
    : input.activePods.length + 1 > input.maxPods
    ? [{ resource: "pods", requested: 1, used: input.activePods.length, capacity: input.maxPods }]
    : [];
  if (shortages.length > 0) {
    const s = shortages[0];
    return {
      admit: false,
      reason: OUT_OF[s.resource] ?? `OutOf${s.resource}`,
      // upstream InsufficientResourceError text, so tooling that parses it keeps working.
      message: `Node didn't have enough resource: ${s.resource}, requested: ${s.requested}, ` +
        `used: ${s.used}, capacity: ${s.capacity}`,
    };
  }
  const node = input.node;
  if (!node) return { admit: true };
  if (!matchesNodeSelectorAndAffinity(pod, node)) return predicateFailure(NODE_AFFINITY);
  const nodeName = pod.spec?.nodeName ?? "";
  if (nodeName !== "" && nodeName !== node.metadata?.name) return predicateFailure(NODE_NAME);
  if (hostPortConflict(pod, input.activePods)) return predicateFailure(NODE_PORTS);
  if (!isStaticPod(pod) && untoleratedNoExecuteTaint(pod, node.spec?.taints ?? [])) {
    return predicateFailure(TAINTS);
  }
  return { admit: true };
}

/** PodOSSelectorNodeLabelDoesNotMatch / PodOSNotSupported, checked before anything else. */
function osVerdict(pod: V1Pod): AdmitResult | undefined {
  const wanted = pod.metadata?.labels?.[OS_LABEL];
  // Upstream corrects a missing or wrong node label to the OS it runs on before comparing, so
  // the comparison is with that OS, whatever the Node says.
  if (wanted !== undefined && wanted !== NODE_OS) {
    return {
      admit: false,
      reason: "PodOSSelectorNodeLabelDoesNotMatch",
      message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
    };
  }
  const osName = pod.spec?.os?.name;
  if (osName !== undefined && osName !== NODE_OS) {
    return {
      admit: false,
      reason: "PodOSNotSupported",
      message: "Failed to admit pod as the OS field doesn't match node OS",
    };
  }
  return undefined;
}

/** spec.nodeSelector and requiredDuringSchedulingIgnoredDuringExecution must both match. */
export function matchesNodeSelectorAndAffinity(pod: V1Pod, node: V1Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) {
    if (labels[k] !== v) return false;
  }
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  // Terms are ORed; a term that is empty or does not parse matches nothing.
  return nodeSelectorTermsMatch(required.nodeSelectorTerms ?? [], node);
}

interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/** Host ports of app containers and sidecars (init containers that run throughout). */
function hostPorts(pod: V1Pod): HostPort[] {
  const containers = [
    ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always"),
    ...(pod.spec?.containers ?? []),
  ];
  const out: HostPort[] = [];
  for (const c of containers) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort || p.hostPort <= 0) continue;
      out.push({ ip: p.hostIP || "0.0.0.0", protocol: p.protocol || "TCP", port: p.hostPort });
    }
  }
  return out;
}

/** HostPortInfo.CheckConflict: 0.0.0.0 clashes with every address of the same port/protocol. */
function hostPortConflict(pod: V1Pod, others: readonly V1Pod[]): boolean {
  const wanted = hostPorts(pod);
  if (wanted.length === 0) return false;
  const used = others.flatMap(hostPorts);
  return wanted.some((w) =>
    used.some((u) =>
      u.port === w.port && u.protocol === w.protocol &&
      (w.ip === "0.0.0.0" || u.ip === "0.0.0.0" || u.ip === w.ip)
    )
  );
}

/** v1 Toleration.ToleratesTaint. */
export function tolerates(t: V1Toleration, taint: V1Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? "") {
    case "":
    case "Equal":
      return (t.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

/** The kubelet only cares about NoExecute taints: the others concern the scheduler. */
function untoleratedNoExecuteTaint(pod: V1Pod, taints: readonly V1Taint[]): boolean {
  const tolerations = pod.spec?.tolerations ?? [];
  return taints.some((taint) =>
    taint.effect === "NoExecute" && !tolerations.some((t) => tolerates(t, taint))
  );
}
