/**
 * The API pod status from what the runtime reports (kubelet_pods.go generateAPIPodStatus /
 * convertStatusToAPIStatus, plus the status manager's lastTransitionTime and startTime rules).
 *
 * Times are `Date` objects truncated to whole seconds: upstream serialises RFC 3339 with
 * seconds precision, and JSON.stringify then gives `...T10:00:00.000Z`, which parses to the
 * same instant. Whoever writes the JSON may strip the `.000` if byte-equality matters.
 */
import type {
  V1Container,
  V1ContainerStatus,
  V1Pod,
  V1PodCondition,
  V1PodIP,
  V1PodStatus,
} from "@kubernetes/client-node";
import type { RuntimePodStatus } from "../runtime/types.ts";
import type { ProbeView } from "../prober/mod.ts";
import { apiTime, convertContainerStatuses } from "./_container_statuses.ts";
import { getPhase, hasInitializedInSandbox, isTerminalPhase, type PodPhase } from "./_phase.ts";
import {
  containersReadyCondition,
  initializedCondition,
  KUBELET_CONDITIONS,
  podReadyCondition,
  readyToStartContainersCondition,
} from "./_pod_conditions.ts";
import { qosClass } from "../util/qos.ts";
import type { CgroupValues } from "../runtime/mod.ts";
import {
  podAllocatedResources,
  podStatusResources,
  type PodStatusWithResources,
} from "./_pod_resources_status.ts";
import {
  DEADLINE_EXCEEDED_MESSAGE,
  DEADLINE_EXCEEDED_REASON,
  pastActiveDeadline,
} from "./_active_deadline.ts";

export { qosClass } from "../util/qos.ts";
export type { QOSClass } from "../util/qos.ts";
export { getPhase } from "./_phase.ts";
export type { PodPhase } from "./_phase.ts";

export interface PodStatusOptions {
  /** Why a container is not running, by container name (from the last sync's step errors). */
  reasons: Map<string, { reason: string; message: string }>;
  /** The status last computed for this pod (status manager); defaults to `pod.status`. */
  previous?: V1PodStatus;
  /** The node's primary IP (status.hostIP; pod IP of host-network pods). */
  hostIP?: string;
  /** A dual-stack node's IPs, primary first (status.hostIPs); default `[hostIP]`. */
  hostIPs?: string[];
  /** Current time (ms): startTime and condition transitions. */
  now: number;
  /** The kubelet decided the pod is finished: its containers will not be restarted. */
  terminal?: boolean;
  /** Container ID prefix, `<runtimeName>://<id>` (default "containerd"). */
  runtimeName?: string;
  /** Readiness probe results per container instance; a probed one without a result is unready. */
  readiness?: ProbeView;
  /** Startup probe results per container instance; a probed one without a result has not started. */
  startup?: ProbeView;
  /** Whether the pod's runtime handler makes mounts recursively read-only; default not. */
  recursiveReadOnlyMounts?: () => boolean;
  /** PodResizePending and PodResizeInProgress, as the allocation and the syncs set them. */
  resizeConditions?: V1PodCondition[];
  /**
   * status.resources and status.allocatedResources (InPlacePodLevelResourcesVerticalScaling),
   * with what the pod's cgroup holds when it is running; left out when unset.
   */
  podResources?: { cgroup?: CgroupValues };
}

const isV6 = (ip: string) => ip.includes(":");

/** Primary IP of the node's family first, then the first of the other family (sortPodIPs). */
function sortPodIPs(ips: string[], hostIP: string | undefined): string[] {
  const primaryV6 = hostIP !== undefined && isV6(hostIP);
  const primary = ips.find((ip) => isV6(ip) === primaryV6);
  const secondary = ips.find((ip) => isV6(ip) !== primaryV6);
  return [primary, secondary].filter((ip): ip is string => ip !== undefined);
}

/**
 * Carries lastTransitionTime over from the previous status when the condition's status did not
 * change, else stamps `now` (status manager's updateLastTransitionTime).
 */
function withTransitionTime(
  c: V1PodCondition,
  previous: V1PodCondition[] | undefined,
  now: Date,
): V1PodCondition {
  const old = previous?.find((p) => p.type === c.type);
  const lastTransitionTime = old && old.status === c.status && old.lastTransitionTime
    ? old.lastTransitionTime
    : now;
  return { ...c, lastTransitionTime };
}

/** The phase after upstream's three-way merge: a terminal phase is never left. */
function mergePhase(phase: PodPhase, old: V1PodStatus, api: V1PodStatus): string {
  if (!isTerminalPhase(phase)) {
    if (isTerminalPhase(old.phase)) return old.phase;
    if (isTerminalPhase(api.phase)) return api.phase;
  }
  // The API server shows a terminal phase: no transition out of it, not even to the other one.
  if (isTerminalPhase(api.phase) && phase !== api.phase) return api.phase;
  return phase;
}

function conditions(
  pod: V1Pod,
  rs: RuntimePodStatus,
  opts: {
    statuses: V1ContainerStatus[];
    phase: PodPhase;
    old: V1PodStatus;
    now: Date;
    resize: V1PodCondition[];
  },
): V1PodCondition[] {
  const { statuses, phase } = opts;
  const api = pod.status ?? {};
  // Conditions owned by others (the scheduler, controllers, readiness-gate writers) stay.
  const kept = (api.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type));
  const generated: V1PodCondition[] = [
    readyToStartContainersCondition(pod, rs),
    initializedCondition(pod, statuses, phase),
  ];
  generated.push(podReadyCondition(pod, { conditions: [...kept, ...generated], statuses, phase }));
  generated.push(containersReadyCondition(pod, statuses, phase));
  // Static pods never see a scheduler; API pods already carry PodScheduled among `kept`.
  if (!kept.some((c) => c.type === "PodScheduled")) {
    generated.push({ type: "PodScheduled", status: "True" });
  }
  // PodObservedGenerationTracking: say which spec the kubelet's own conditions speak for.
  const generation = pod.metadata?.generation;
  return [
    ...kept,
    // Right after the conditions others own, as upstream; their times are the allocation's.
    ...opts.resize,
    ...generated.map((c) =>
      withTransitionTime(
        generation ? { ...c, observedGeneration: generation } : c,
        opts.old.conditions,
        opts.now,
      )
    ),
  ];
}

/**
 * The API status of `pod` given the runtime's view `rs`. Pure: the same inputs give the same
 * status. Container statuses: init containers in spec order, app containers sorted by name.
 */
export function computePodStatus(
  pod: V1Pod,
  rs: RuntimePodStatus,
  opts: PodStatusOptions,
): V1PodStatus {
  const api = pod.status ?? {};
  const old = opts.previous ?? api;
  const spec = pod.spec ?? { containers: [] };
  const now = apiTime(opts.now) ?? new Date(0);
  const inputs = {
    reasons: opts.reasons,
    runtimeName: opts.runtimeName ?? "containerd",
    readiness: opts.readiness,
    startup: opts.startup,
    recursiveReadOnlyMounts: opts.recursiveReadOnlyMounts,
  };
  const hasInitContainers = (spec.initContainers?.length ?? 0) > 0;

  const s: V1PodStatus = { qosClass: qosClass(pod) };
  // Static pods have no generation (no API server set one), so they observe none.
  if (pod.metadata?.generation) s.observedGeneration = pod.metadata.generation;
  const podIPs: V1PodIP[] = sortPodIPs(rs.ips, opts.hostIP).map((ip) => ({ ip }));
  if (podIPs.length > 0) {
    s.podIP = podIPs[0].ip;
    s.podIPs = podIPs;
  }
  s.containerStatuses = convertContainerStatuses(pod, rs, {
    ...inputs,
    containers: spec.containers ?? [],
    previous: old.containerStatuses,
    hasInitContainers,
    isInit: false,
  });
  if (hasInitContainers) {
    s.initContainerStatuses = convertContainerStatuses(pod, rs, {
      ...inputs,
      containers: spec.initContainers ?? [],
      previous: old.initContainerStatuses,
      hasInitContainers,
      isInit: true,
    });
  }
  const ephemeral = spec.ephemeralContainers ?? [];
  if (ephemeral.length > 0) {
    s.ephemeralContainerStatuses = convertContainerStatuses(pod, rs, {
      ...inputs,
      // Same shape as a container's (V1EphemeralContainer has every field read here).
      containers: ephemeral as V1Container[],
      previous: old.ephemeralContainerStatuses,
      hasInitContainers,
      isInit: false,
    });
  }
  // Ephemeral containers count for neither the phase nor readiness, as upstream.
  const all = [...(s.initContainerStatuses ?? []), ...s.containerStatuses];
  const phase = getPhase(pod, all, {
    terminal: opts.terminal,
    podHasInitialized: hasInitializedInSandbox(spec, rs),
  });
  s.phase = mergePhase(phase, old, api);
  if (s.phase === old.phase) {
    // Reason and message belong to the phase (e.g. Evicted): keep them while it lasts.
    const reason = old.reason || api.reason;
    const message = old.message || api.message;
    if (reason) s.reason = reason;
    if (message) s.message = message;
  }
  // As upstream's activeDeadlineHandler: past the deadline the pod fails, whatever its
  // containers say. A phase already terminal in either status is final.
  const terminalBefore = isTerminalPhase(old.phase) || isTerminalPhase(api.phase);
  if (!terminalBefore && pastActiveDeadline(pod, { startTime: old.startTime, now: opts.now })) {
    s.phase = "Failed";
    s.reason = DEADLINE_EXCEEDED_REASON;
    s.message = DEADLINE_EXCEEDED_MESSAGE;
  }
  s.conditions = conditions(pod, rs, {
    statuses: all,
    phase: s.phase as PodPhase,
    old,
    now,
    resize: opts.resizeConditions ?? [],
  });

  if (opts.hostIP) {
    // Upstream: the primary, then a dual-stack node's other family.
    const ips = [opts.hostIP, ...(opts.hostIPs ?? []).filter((ip) => ip !== opts.hostIP)]
      .slice(0, 2).map((ip) => ({ ip }));
    s.hostIP = opts.hostIP;
    s.hostIPs = ips;
    // Host-network pods have the node's IPs; once set they do not change.
    if (pod.spec?.hostNetwork && !s.podIP) {
      s.podIP = opts.hostIP;
      s.podIPs = ips.map((ip) => ({ ...ip }));
    }
  }
  s.startTime = old.startTime ?? now;
  if (opts.podResources) {
    const out = s as PodStatusWithResources;
    const running = old.phase === "Running";
    out.resources = podStatusResources(pod, {
      running,
      cgroup: opts.podResources.cgroup,
      old: running ? (old as PodStatusWithResources).resources : undefined,
    });
    out.allocatedResources = podAllocatedResources(pod);
  }
  return s;
}
