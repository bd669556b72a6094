/** Pods, statuses and a running status writer on fakes, for the status writer's tests. */
import type { V1Pod, V1PodStatus } from "@kubernetes/client-node";
import { createStatusWriter, type StatusWriterDeps } from "../../src/cluster/status_writer.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { drivenStore, FakeKubelet, ScriptedApi } from "./_fakes.ts";

export const T0 = "2026-01-01T00:00:00Z";
export const T1 = new Date(Date.UTC(2026, 0, 1, 0, 0, 5));

export function apiPod(name: string, status: V1PodStatus = { phase: "Pending" }): V1Pod {
  return {
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      resourceVersion: "5",
      annotations: { "kubernetes.io/config.source": "api" },
    },
    spec: { nodeName: "node1", containers: [{ name: "app", image: "busybox" }] },
    status,
  };
}

export function staticPod(name: string, hash: string): V1Pod {
  return {
    metadata: {
      name,
      namespace: "kube-system",
      uid: hash,
      annotations: { "kubernetes.io/config.source": "file", "kubernetes.io/config.hash": hash },
    },
    spec: { nodeName: "node1", containers: [{ name: "app", image: "busybox" }] },
  };
}

export function mirrorOf(pod: V1Pod, hash: string, uid = "mirror-uid"): V1Pod {
  return {
    metadata: {
      name: pod.metadata!.name,
      namespace: pod.metadata!.namespace,
      uid,
      resourceVersion: "5",
      annotations: { "kubernetes.io/config.mirror": hash },
    },
    spec: pod.spec,
    status: { phase: "Pending", qosClass: "BestEffort" },
  };
}

/** A running status as the kubelet computes it (Dates at whole seconds). */
export function running(extra: Partial<V1PodStatus> = {}): V1PodStatus {
  return {
    phase: "Running",
    qosClass: "BestEffort",
    podIP: "10.0.0.5",
    podIPs: [{ ip: "10.0.0.5" }],
    hostIP: "192.168.1.2",
    hostIPs: [{ ip: "192.168.1.2" }],
    startTime: new Date(T0),
    conditions: [
      { type: "PodScheduled", status: "True", lastTransitionTime: new Date(T0) },
      { type: "Ready", status: "True", lastTransitionTime: T1 },
    ],
    containerStatuses: [{
      name: "app",
      ready: true,
      restartCount: 0,
      image: "busybox",
      imageID: "sha256:1",
      containerID: "containerd://c1",
      started: true,
      state: { running: { startedAt: T1 } },
    }],
    ...extra,
  };
}

/** The same status as the API server sends it back: JSON, times without fractions. */
export function asApi(s: V1PodStatus): V1PodStatus {
  return JSON.parse(JSON.stringify(s).replaceAll(".000Z", "Z"));
}

export function setup(opts: Partial<StatusWriterDeps> = {}) {
  const clock = new FakeClock();
  const api = new ScriptedApi();
  const driven = drivenStore(clock);
  const kubelet = new FakeKubelet();
  const writer = createStatusWriter({
    client: api,
    store: driven.store,
    clock,
    logger: nullLogger,
    ...opts,
  });
  // The API's answer to a status patch: the stored pod with the patch merged (enough here),
  // which the watch brings; the answer is its metadata alone when asked for it.
  api.answer = (req) => {
    if (req.method !== "PATCH") return req.body;
    const [, ns, name] = /namespaces\/([^/]+)\/pods\/([^/]+)\/status/.exec(req.path)!;
    const held = structuredClone(driven.store.get(ns, name)!);
    const body = req.body as { status: Record<string, unknown> };
    held.status = { ...held.status, ...body.status } as V1PodStatus;
    held.metadata!.resourceVersion = String(Number(held.metadata!.resourceVersion) + 1);
    queueMicrotask(() => driven.event("MODIFIED", held));
    return req.metadataOnly ? { metadata: held.metadata } : held;
  };
  const ac = new AbortController();
  const done = writer.run(kubelet, { signal: ac.signal });
  return {
    clock,
    api,
    driven,
    kubelet,
    writer,
    stop: async () => {
      ac.abort();
      await done;
      await driven.stop();
    },
  };
}
