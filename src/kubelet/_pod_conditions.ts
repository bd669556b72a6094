/**
 * The pod conditions the kubelet owns (pkg/kubelet/status/generate.go): PodReadyToStartContainers,
 * Initialized, Ready and ContainersReady. Reasons and messages match upstream word for word,
 * since users and controllers read them.
 */
import type { V1ContainerStatus, V1Pod, V1PodCondition } from "@kubernetes/client-node";
import type { RuntimePodStatus } from "../runtime/types.ts";
import { isRestartableInit } from "../util/sidecar.ts";
import { findStatus, hasAnyRegularContainerStarted, type PodPhase } from "./_phase.ts";

/** Conditions this module generates; any others in the API status are preserved as they are. */
export const KUBELET_CONDITIONS = new Set([
  "PodReadyToStartContainers",
  "Initialized",
  "Ready",
  "ContainersReady",
  // Set by the allocation and the pod's sync (src/allocation ResizeConditions).
  "PodResizePending",
  "PodResizeInProgress",
]);

/** Go's `%s` of a []string, which upstream messages use: `[a b]`. */
function goList(names: string[]): string {
  return `[${names.join(" ")}]`;
}

/**
 * runtimeutil.PodSandboxChanged, reduced to the yes/no: does the next sync have to create a
 * sandbox (none, several ready, newest not ready, wrong network mode, or no IP)?
 */
export function podSandboxNeeded(pod: V1Pod, rs: RuntimePodStatus): boolean {
  const sandboxes = [...rs.sandboxes].sort((a, b) => b.createdAt - a.createdAt);
  if (sandboxes.length === 0) return true;
  if (sandboxes.filter((s) => s.state === "ready").length > 1) return true;
  const newest = sandboxes[0];
  if (newest.state !== "ready") return true;
  const hostNetwork = pod.spec?.hostNetwork === true;
  if (newest.hostNetwork !== hostNetwork) return true;
  return !hostNetwork && newest.ips.length === 0;
}

export function readyToStartContainersCondition(pod: V1Pod, rs: RuntimePodStatus): V1PodCondition {
  const status = podSandboxNeeded(pod, rs) ? "False" : "True";
  return { type: "PodReadyToStartContainers", status };
}

function terminalReason(phase: PodPhase): string | undefined {
  if (phase === "Failed") return "PodFailed";
  if (phase === "Succeeded") return "PodCompleted";
  return undefined;
}

export function containersReadyCondition(
  pod: V1Pod,
  statuses: V1ContainerStatus[],
  phase: PodPhase,
): V1PodCondition {
  const unknown: string[] = [];
  const unready: string[] = [];
  const relevant = [
    ...(pod.spec?.initContainers ?? []).filter(isRestartableInit),
    ...(pod.spec?.containers ?? []),
  ];
  for (const c of relevant) {
    const s = findStatus(statuses, c.name);
    if (!s) unknown.push(c.name);
    else if (!s.ready) unready.push(c.name);
  }
  if ((phase === "Succeeded" && unknown.length === 0) || phase === "Failed") {
    return { type: "ContainersReady", status: "False", reason: terminalReason(phase) };
  }
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${goList(unready)}`);
  if (messages.length > 0) {
    return {
      type: "ContainersReady",
      status: "False",
      reason: "ContainersNotReady",
      message: messages.join(", "),
    };
  }
  return { type: "ContainersReady", status: "True" };
}

/** Ready = ContainersReady and every readiness gate's condition True (`conditions` so far). */
export function podReadyCondition(
  pod: V1Pod,
  opts: { conditions: V1PodCondition[]; statuses: V1ContainerStatus[]; phase: PodPhase },
): V1PodCondition {
  const containersReady = containersReadyCondition(pod, opts.statuses, opts.phase);
  if (containersReady.status !== "True") {
    return { ...containersReady, type: "Ready" };
  }
  const messages: string[] = [];
  for (const gate of pod.spec?.readinessGates ?? []) {
    const c = opts.conditions.find((x) => x.type === gate.conditionType);
    if (!c) {
      messages.push(
        `corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`,
      );
    } else if (c.status !== "True") {
      messages.push(
        `the status of pod readiness gate "${gate.conditionType}" is not "True", but ${c.status}`,
      );
    }
  }
  if (messages.length > 0) {
    return {
      type: "Ready",
      status: "False",
      reason: "ReadinessGatesNotReady",
      message: messages.join(", "),
    };
  }
  return { type: "Ready", status: "True" };
}

export function initializedCondition(
  pod: V1Pod,
  statuses: V1ContainerStatus[],
  phase: PodPhase,
): V1PodCondition {
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of pod.spec?.initContainers ?? []) {
    const s = findStatus(statuses, c.name);
    if (!s) unknown.push(c.name);
    else if (isRestartableInit(c) ? !s.started : !s.ready) incomplete.push(c.name);
  }
  if (phase === "Succeeded" && unknown.length === 0) {
    return { type: "Initialized", status: "True", reason: "PodCompleted" };
  }
  // A regular container has run, so initialisation finished before, even if sidecars restart.
  if (hasAnyRegularContainerStarted(pod.spec, statuses)) {
    return { type: "Initialized", status: "True" };
  }
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length > 0) {
    messages.push(`containers with incomplete status: ${goList(incomplete)}`);
  }
  if (messages.length > 0) {
    return {
      type: "Initialized",
      status: "False",
      reason: "ContainersNotInitialized",
      message: messages.join(", "),
    };
  }
  return { type: "Initialized", status: "True" };
}
