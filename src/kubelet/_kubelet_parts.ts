/**
 * The parts the sync loop hands work to, wired to each other: the status manager, what each
 * admitted pod was allocated (resizes wait there until they fit), the pod syncer and the pod
 * workers that run it.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { ResizeConditions } from "../allocation/mod.ts";
import type { PodManager } from "./pod_manager.ts";
import { PodWorkers } from "./pod_workers.ts";
import { StatusManager } from "./status_manager.ts";
import { createPodSyncer } from "./pod_syncer.ts";
import { otherInstances } from "./_runtime_view.ts";
import { createAllocation } from "./_allocation.ts";
import type { KubeletDeps } from "./types.ts";

/** What the parts ask of the sync loop that owns them. */
export interface KubeletPartsHooks {
  podManager: PodManager;
  /** Desired pods whose workers run them and that have not finished, with their status. */
  admittedPods: () => V1Pod[];
  /** Every source has delivered its first snapshot. */
  sourcesReady: () => boolean;
  /** The pod the workers run: its spec with the resources it was allocated. */
  allocated: (pod: V1Pod) => V1Pod;
  /** Schedules the pod's next sync (see the sync loop's requeue). */
  requeue: (uid: string, afterMs: number | undefined, err?: unknown) => void;
}

export function createKubeletParts(deps: KubeletDeps, hooks: KubeletPartsHooks) {
  const { podManager } = hooks;
  // Without a sink (standalone) there is no one to tell, and no status comparison to pay for.
  const sink = deps.statusSink;
  const statuses = new StatusManager({
    onChange: sink &&
      ((uid, status) => {
        const pod = podManager.get(uid);
        if (pod) sink.statusChanged(pod, status);
      }),
  });
  const resizeConditions = new ResizeConditions(deps.clock);
  const allocation = createAllocation({
    state: deps.allocated,
    conditions: resizeConditions,
    settings: deps.resize,
    before: deps.admit,
    maxPods: deps.maxPods ?? Infinity,
    node: () => deps.admissionNode?.(),
    nodeAllocatable: deps.nodeAllocatable,
    activePods: () => hooks.admittedPods(),
    podByUid: (uid) => podManager.get(uid),
    sourcesReady: () => hooks.sourcesReady(),
    syncPod: (pod) => workers.updatePod({ type: "sync", pod: hooks.allocated(pod) }),
    events: deps.events,
    clock: deps.clock,
    logger: deps.logger,
  });
  const syncer = createPodSyncer({
    runtime: deps.runtime,
    statuses,
    podLevelStatus: deps.resize?.podLevel ?? true,
    resize: {
      conditions: resizeConditions,
      events: deps.events,
      reinspect: (uid) => deps.pleg.requestReinspect?.(uid),
      // What it has may have shrunk: room for a pending resize (HandlePodReconcile).
      completed: () => {
        if (allocation.hasPendingResizes()) {
          allocation.retryPendingResizes("pod_resized");
        }
      },
    },
    clock: deps.clock,
    logger: deps.logger,
    hostIP: () => deps.nodeIP,
    hostIPs: () => deps.nodeIPs,
    prober: deps.prober,
    onRuntimeChanged: () => deps.pleg.requestRelist(),
  });
  const workers: PodWorkers = new PodWorkers({
    syncer,
    cache: deps.cache,
    clock: deps.clock,
    logger: deps.logger,
    requeue: (uid, afterMs, err) => hooks.requeue(uid, afterMs, err),
    onWorkDone: (op, ms) => deps.observe?.podWorker?.(op, ms),
    otherInstances: (pod) =>
      otherInstances(deps.pleg.runningPods(), pod, (uid) => !!podManager.get(uid)),
    onTerminated: (uid, pod) => {
      const current = podManager.get(uid) ?? pod;
      if (current) deps.statusSink?.podTerminated(current);
      // What it was given is free again: a deferred resize may fit now.
      allocation.podTerminated();
    },
  });
  return { statuses, allocation, workers };
}
