/**
 * The probe manager (upstream pkg/kubelet/prober/prober_manager.go plus results.Manager): one
 * worker per probe of each container, results per container id, readiness/startup views for the
 * status, and liveness/startup verdicts for the runtime manager.
 */
import type { EventRecorder } from "../events/mod.ts";
import type { V1Container, V1Pod, V1PodStatus, V1Probe } from "@kubernetes/client-node";
import type { RuntimeService } from "../cri/types.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { MetricsRegistry } from "../util/metrics.ts";
import denoJson from "../../deno.json" with { type: "json" };
import type { ProbeKind, ProbeManager, ProbeUpdate, ProbeView } from "./types.ts";
import { createProber, type Prober } from "./_prober.ts";
import { findContainerStatus, parseContainerId } from "./_container_status.ts";
import { ProbeWorker, type WorkerContext } from "./_worker.ts";

export interface ProbeManagerDeps {
  /** Runs exec probes (ExecSync only). */
  runtime: Pick<RuntimeService, "execSync">;
  clock: Clock;
  logger: Logger;
  /** The pod's latest API status: container ids, states, start times and the pod IP. */
  getStatus: (uid: string) => V1PodStatus | undefined;
  /**
   * Called when a published result changes, and for the initial readiness/startup value of a
   * container that replaced another (upstream counts a new id as a change).
   */
  onUpdate: (u: ProbeUpdate) => void;
  /** Registers `prober_probe_total` when given. */
  metrics?: MetricsRegistry;
  /** Unhealthy / ProbeWarning events (API mode); none by default. */
  events?: EventRecorder;
  /** [0, 1); the start-up jitter. Defaults to Math.random. */
  random?: () => number;
  /** Sent by httpGet and grpc probes; defaults to `kube-probe/<major>.<minor>` of denolet. */
  userAgent?: string;
  /** Replaces the real prober (tests). */
  prober?: Prober;
}

/** Upstream's user agent is `kube-probe/<major>.<minor>` of the kubelet. */
export const DEFAULT_USER_AGENT = `kube-probe/${denoJson.version.split(".").slice(0, 2).join(".")}`;

/** Creation order as upstream AddPod: startup first so the others can link to it. */
const KINDS = [
  ["startup", "startupProbe"],
  ["readiness", "readinessProbe"],
  ["liveness", "livenessProbe"],
] as const;

export function createProbeManager(deps: ProbeManagerDeps): ProbeManager {
  const ctx: WorkerContext = {
    clock: deps.clock,
    prober: deps.prober ??
      createProber({ runtime: deps.runtime, userAgent: deps.userAgent ?? DEFAULT_USER_AGENT }),
    getStatus: deps.getStatus,
    onUpdate: deps.onUpdate,
    random: deps.random ?? Math.random,
    events: deps.events,
    results: { liveness: new Map(), readiness: new Map(), startup: new Map() },
    probeTotal: deps.metrics?.counterVec({
      name: "prober_probe_total",
      help:
        "Cumulative number of a liveness, readiness or startup probe for a container by result.",
      labelNames: ["probe_type", "result", "container", "pod", "namespace", "pod_uid"],
      stability: "ALPHA",
    }),
    startedAt: deps.clock.monotonic(),
  };
  /** Workers by pod UID; pods without probes have no entry. */
  const pods = new Map<string, ProbeWorker[]>();

  const forget = (w: ProbeWorker) => {
    w.stop();
    if (w.containerId !== "") ctx.results[w.kind].delete(w.containerId);
  };

  const removePod = (uid: string) => {
    const workers = pods.get(uid);
    if (workers === undefined) return;
    pods.delete(uid);
    for (const w of workers) forget(w);
    // The pod's series go with it, so a node that churns pods does not grow its /metrics forever.
    ctx.probeTotal?.deleteWhere({ pod_uid: uid });
  };

  // Upstream UpdatePodStatus: the result is looked up under the id of the status being
  // computed, not the worker's last-seen one, which may still be the container before a restart.
  const view = (uid: string, kind: ProbeKind): ProbeView => ({
    get(name, containerId) {
      const workers = pods.get(uid);
      if (workers === undefined) return undefined;
      for (const w of workers) {
        if (w.kind !== kind || w.container.name !== name) continue;
        const r = ctx.results[kind].get(parseContainerId(containerId));
        if (r !== undefined) return r === "success";
        // A container the worker has not probed yet: probe it now rather than at the next tick.
        w.trigger();
        return false;
      }
      return undefined;
    },
  });

  return {
    addPod(pod) {
      const uid = pod.metadata?.uid;
      if (!uid) return;
      const existing = pods.get(uid);
      if (existing !== undefined) {
        refresh(ctx, existing, { pod, status: ctx.getStatus(uid) });
        return;
      }
      const workers = createWorkers(ctx, pod, deps.logger);
      if (workers.length > 0) pods.set(uid, workers);
    },
    removePod,
    cleanupPods(desired) {
      for (const uid of [...pods.keys()]) if (!desired.has(uid)) removePod(uid);
    },
    readiness: (uid) => view(uid, "readiness"),
    startup: (uid) => view(uid, "startup"),
    probeFailure(containerId) {
      const id = parseContainerId(containerId);
      if (ctx.results.liveness.get(id) === "failure") return "LivenessProbe";
      if (ctx.results.startup.get(id) === "failure") return "StartupProbe";
      return undefined;
    },
    startupSucceeded: (containerId) =>
      ctx.results.startup.get(parseContainerId(containerId)) === "success",
    stop() {
      for (const uid of [...pods.keys()]) removePod(uid);
    },
  };
}

/** Probed containers: app containers and sidecars (init containers with restartPolicy Always). */
function probedContainers(pod: V1Pod): V1Container[] {
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always");
  return [...sidecars, ...(pod.spec?.containers ?? [])];
}

function createWorkers(ctx: WorkerContext, pod: V1Pod, logger: Logger): ProbeWorker[] {
  const workers: ProbeWorker[] = [];
  for (const container of probedContainers(pod)) {
    let startupWorker: ProbeWorker | undefined;
    for (const [kind, field] of KINDS) {
      const spec: V1Probe | undefined = container[field];
      if (spec === undefined) continue;
      const w = new ProbeWorker(ctx, spec, { kind, pod, container, logger, startupWorker });
      if (kind === "startup") startupWorker = w;
      workers.push(w);
    }
  }
  return workers;
}

/**
 * Every sync: hand workers the newest pod object (deletion timestamp), and probe at once where
 * waiting for the next tick would delay the status — a new container for a startup or readiness
 * probe, or a running container that is not ready yet (upstream triggers readiness from
 * UpdatePodStatus).
 */
function refresh(
  ctx: WorkerContext,
  workers: ProbeWorker[],
  opts: { pod: V1Pod; status: V1PodStatus | undefined },
): void {
  const { pod, status } = opts;
  for (const w of workers) {
    w.pod = pod;
    if (!w.active || w.kind === "liveness" || status === undefined) continue;
    const cs = findContainerStatus(status, w.container.name);
    if (!cs?.containerID || cs.state?.running === undefined) continue;
    const id = parseContainerId(cs.containerID);
    if (id !== w.containerId) w.trigger();
    else if (w.kind === "readiness" && ctx.results.readiness.get(id) !== "success") w.trigger();
  }
}
