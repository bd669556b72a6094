/**
 * Pod phase from container statuses (kubelet_pods.go getPhase), plus the small spec helpers
 * the status code shares.
 */
import type { V1ContainerStatus, V1Pod, V1PodSpec } from "@kubernetes/client-node";
import type { RuntimePodStatus } from "../runtime/types.ts";
import { isRestartableInit } from "../util/sidecar.ts";
import { containerShouldRestart } from "../util/restart_policy.ts";
import { isStaticPod } from "../util/static_pod.ts";

export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed";

export function isTerminalPhase(phase: string | undefined): phase is "Succeeded" | "Failed" {
  return phase === "Succeeded" || phase === "Failed";
}

export function findStatus(
  statuses: V1ContainerStatus[],
  name: string,
): V1ContainerStatus | undefined {
  return statuses.find((s) => s.name === name);
}

/** Whether any regular (non-init) container has ever run: the pod got past initialisation. */
export function hasAnyRegularContainerStarted(
  spec: V1PodSpec | undefined,
  statuses: V1ContainerStatus[],
): boolean {
  const names = new Set((spec?.containers ?? []).map((c) => c.name));
  return statuses.some((s) =>
    names.has(s.name) && (s.state?.running !== undefined || s.state?.terminated !== undefined)
  );
}

/**
 * Whether an app container was created in the newest sandbox while it is ready (upstream's
 * HasAnyActiveRegularContainerStarted over the active sandbox): only then did this sandbox get
 * past its init containers. API statuses cannot tell, as they carry older sandboxes' states.
 */
export function hasInitializedInSandbox(
  spec: V1PodSpec | undefined,
  rs: RuntimePodStatus,
): boolean {
  const sandbox = rs.sandboxes[0];
  if (sandbox?.state !== "ready") return false;
  const names = new Set((spec?.containers ?? []).map((c) => c.name));
  return rs.containers.some((c) => c.sandboxId === sandbox.id && names.has(c.name));
}

interface Counts {
  /** Regular init containers not yet done. */
  pendingInit: number;
  /** Sidecars not yet started. */
  pendingSidecars: number;
  failedInit: number;
  /** Failed regular init containers that will not run again (their own policy or the pod's). */
  failedInitFinal: number;
  unknown: number;
  running: number;
  waiting: number;
  stopped: number;
  /** Stopped app containers that will not run again. */
  stoppedFinal: number;
  succeeded: number;
}

function countInit(spec: V1PodSpec, info: V1ContainerStatus[], n: Counts): void {
  for (const c of spec.initContainers ?? []) {
    const s = findStatus(info, c.name);
    if (isRestartableInit(c)) {
      // Sidecars count like app containers, except that a stopped one does not matter.
      if (!s) n.unknown++;
      else if (s.state?.running) {
        if (!s.started) n.pendingSidecars++;
        n.running++;
      } else if (s.state?.terminated) continue;
      else if (s.state?.waiting) {
        if (s.lastState?.terminated) continue;
        n.pendingSidecars++;
        n.waiting++;
      } else {
        n.pendingSidecars++;
        n.unknown++;
      }
      continue;
    }
    const ended = s?.state?.terminated ?? (s?.state?.waiting ? s.lastState?.terminated : undefined);
    if (!s || s.state?.running || !ended) n.pendingInit++;
    else if (ended.exitCode !== 0) {
      n.failedInit++;
      if (!containerShouldRestart(c, spec, ended.exitCode)) n.failedInitFinal++;
    }
  }
}

function countApp(spec: V1PodSpec, info: V1ContainerStatus[], n: Counts): void {
  for (const c of spec.containers ?? []) {
    const s = findStatus(info, c.name);
    if (!s) n.unknown++;
    else if (s.state?.running) n.running++;
    else if (s.state?.terminated) {
      n.stopped++;
      if (s.state.terminated.exitCode === 0) n.succeeded++;
      if (!containerShouldRestart(c, spec, s.state.terminated.exitCode)) n.stoppedFinal++;
    } else if (s.state?.waiting) {
      // Waiting after a previous run (restarting or crash-looping) counts as stopped.
      const last = s.lastState?.terminated;
      if (last) {
        n.stopped++;
        if (!containerShouldRestart(c, spec, last.exitCode)) n.stoppedFinal++;
      } else n.waiting++;
    } else n.unknown++;
  }
}

export interface PhaseOptions {
  /** The kubelet decided the pod is finished: its containers will not be restarted. */
  terminal?: boolean;
  /**
   * An app container exists in the pod's newest sandbox (see `hasInitializedInSandbox`): a
   * sidecar that restarts then does not send the pod back to Pending, but a new sandbox whose
   * init containers run again does.
   */
  podHasInitialized?: boolean;
}

/** The phase of `pod` given the statuses of all its containers (init and app). */
export function getPhase(
  pod: V1Pod,
  info: V1ContainerStatus[],
  opts: PhaseOptions = {},
): PodPhase {
  const spec = pod.spec ?? { containers: [] };
  const n: Counts = {
    pendingInit: 0,
    pendingSidecars: 0,
    failedInit: 0,
    failedInitFinal: 0,
    unknown: 0,
    running: 0,
    waiting: 0,
    stopped: 0,
    stoppedFinal: 0,
    succeeded: 0,
  };
  countInit(spec, info, n);
  countApp(spec, info, n);

  // With container restart rules (upstream ContainerRestartRules): only a failure nothing will
  // retry is final; under the pod's policy alone this is `Never` and a failed init container.
  if (n.failedInitFinal > 0) return "Failed";
  if (n.pendingInit > 0) return "Pending";
  if (n.pendingSidecars > 0 && !opts.podHasInitialized) return "Pending";
  if (n.waiting > 0) return "Pending";
  if (n.running > 0 && n.unknown === 0) return "Running";
  if (n.running === 0 && n.stopped > 0 && n.unknown === 0) {
    // A terminal pod's containers will not restart whatever the policy says. Upstream does
    // not apply this to static pods yet (kubernetes#116484), so neither do we.
    if (opts.terminal && !isStaticPod(pod)) {
      return n.stopped === n.succeeded ? "Succeeded" : "Failed";
    }
    // Some container will run again: the pod is still running.
    if (n.stopped !== n.stoppedFinal) return "Running";
    return n.stopped === n.succeeded ? "Succeeded" : "Failed";
  }
  return "Pending";
}
