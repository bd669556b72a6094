/**
 * Labels and annotations the kubelet puts on sandboxes and containers so it can recognise them
 * again after a restart (pkg/kubelet/kuberuntime/labels.go, pkg/kubelet/types/labels.go).
 */
import type { V1Container, V1LifecycleHandler, V1Pod } from "@kubernetes/client-node";
import type { Labels } from "../cri/types.ts";

export const LABEL_POD_NAME = "io.kubernetes.pod.name";
export const LABEL_POD_NAMESPACE = "io.kubernetes.pod.namespace";
export const LABEL_POD_UID = "io.kubernetes.pod.uid";
export const LABEL_CONTAINER_NAME = "io.kubernetes.container.name";
/**
 * denolet's own label: the node whose agent created the sandbox or container. The agent only
 * lists, adopts and cleans up what carries its node name, so a second agent (or a test) sharing
 * the runtime is never taken for an orphan. Upstream kubelets own the whole runtime instead.
 */
export const LABEL_NODE_NAME = "io.denolet.node-name";

export const ANNOTATION_POD_DELETION_GRACE_PERIOD = "io.kubernetes.pod.deletionGracePeriod";
export const ANNOTATION_POD_TERMINATION_GRACE_PERIOD = "io.kubernetes.pod.terminationGracePeriod";
export const ANNOTATION_CONTAINER_HASH = "io.kubernetes.container.hash";
export const ANNOTATION_CONTAINER_RESTART_COUNT = "io.kubernetes.container.restartCount";
export const ANNOTATION_TERMINATION_MESSAGE_PATH = "io.kubernetes.container.terminationMessagePath";
export const ANNOTATION_TERMINATION_MESSAGE_POLICY =
  "io.kubernetes.container.terminationMessagePolicy";
export const ANNOTATION_PRESTOP_HANDLER = "io.kubernetes.container.preStopHandler";
export const ANNOTATION_CONTAINER_PORTS = "io.kubernetes.container.ports";
export const ANNOTATION_CONTAINER_TYPE = "io.kubernetes.container.type";

/** Defaults the API server would fill in; static pods may not have been defaulted. */
export const DEFAULT_TERMINATION_MESSAGE_PATH = "/dev/termination-log";
export const DEFAULT_TERMINATION_MESSAGE_POLICY = "File";

/** Pod labels plus the pod's name, namespace and uid. */
export function sandboxLabels(pod: V1Pod): Labels {
  return {
    ...(pod.metadata?.labels ?? {}),
    [LABEL_POD_NAME]: pod.metadata?.name ?? "",
    [LABEL_POD_NAMESPACE]: pod.metadata?.namespace ?? "",
    [LABEL_POD_UID]: pod.metadata?.uid ?? "",
    [LABEL_NODE_NAME]: pod.spec?.nodeName ?? "",
  };
}

/** The pod's annotations, copied. */
export function sandboxAnnotations(pod: V1Pod): Labels {
  return { ...(pod.metadata?.annotations ?? {}) };
}

/** Identity labels only: pod labels stay on the sandbox. */
export function containerLabels(pod: V1Pod, container: V1Container): Labels {
  return {
    [LABEL_POD_NAME]: pod.metadata?.name ?? "",
    [LABEL_POD_NAMESPACE]: pod.metadata?.namespace ?? "",
    [LABEL_POD_UID]: pod.metadata?.uid ?? "",
    [LABEL_CONTAINER_NAME]: container.name,
    [LABEL_NODE_NAME]: pod.spec?.nodeName ?? "",
  };
}

/** What the kubelet needs later without the pod spec: hash, restart count, grace period, preStop. */
export function containerAnnotations(
  pod: V1Pod,
  container: V1Container,
  restartCount: number,
): Labels {
  const a: Labels = {
    [ANNOTATION_CONTAINER_HASH]: containerHash(container),
    [ANNOTATION_CONTAINER_RESTART_COUNT]: String(restartCount),
    [ANNOTATION_TERMINATION_MESSAGE_PATH]: container.terminationMessagePath ??
      DEFAULT_TERMINATION_MESSAGE_PATH,
    [ANNOTATION_TERMINATION_MESSAGE_POLICY]: container.terminationMessagePolicy ??
      DEFAULT_TERMINATION_MESSAGE_POLICY,
  };
  const deletion = pod.metadata?.deletionGracePeriodSeconds;
  if (deletion !== undefined && deletion !== null) {
    a[ANNOTATION_POD_DELETION_GRACE_PERIOD] = String(deletion);
  }
  const grace = pod.spec?.terminationGracePeriodSeconds;
  if (grace !== undefined && grace !== null) {
    a[ANNOTATION_POD_TERMINATION_GRACE_PERIOD] = String(grace);
  }
  const preStop = container.lifecycle?.preStop;
  if (preStop) a[ANNOTATION_PRESTOP_HANDLER] = JSON.stringify(preStop);
  if (container.ports?.length) a[ANNOTATION_CONTAINER_PORTS] = JSON.stringify(container.ports);
  const type = containerType(pod, container.name);
  if (type) a[ANNOTATION_CONTAINER_TYPE] = type;
  return a;
}

function containerType(pod: V1Pod, name: string): string | undefined {
  if (pod.spec?.initContainers?.some((c) => c.name === name)) return "init";
  if (pod.spec?.containers?.some((c) => c.name === name)) return "container";
  if (pod.spec?.ephemeralContainers?.some((c) => c.name === name)) return "ephemeral";
  return undefined;
}

/**
 * Hash of the container spec, lowercase hex of FNV-1a 32 over sorted-key JSON, so it is the same
 * in every process. A changed hash restarts the container. Upstream now hashes only name and
 * image because the API server allows no other change; denolet hashes every field because a
 * static pod's manifest may change any of them under the same UID (when the manifest sets it).
 * Left out is what changes in place: cpu and memory requests and limits, and the resize policy
 * (an in-place resize is no spec change). Unset, null and empty values are dropped so
 * defaulting noise does not count; a container without cpu or memory resources and without a
 * resize policy hashes as `legacyContainerHash` does.
 */
export function containerHash(container: V1Container): string {
  return fnv1a32(canonicalJSON(withoutResizable(container))).toString(16);
}

/**
 * The hash denolet gave containers before in-place resize: every field, resources included.
 * Containers started then still carry it (`_legacy_hashes.ts` recognises them).
 */
export function legacyContainerHash(container: V1Container): string {
  return fnv1a32(canonicalJSON(container)).toString(16);
}

/** What a resize changes in place. */
const RESIZABLE_RESOURCES = new Set(["cpu", "memory"]);

function withoutResizable(c: V1Container): V1Container {
  const { resizePolicy: _policy, resources, ...rest } = c;
  if (!resources) return rest;
  const keep = (list: Record<string, unknown> | undefined) =>
    list &&
    Object.fromEntries(Object.entries(list).filter(([name]) => !RESIZABLE_RESOURCES.has(name)));
  return {
    ...rest,
    resources: { ...resources, requests: keep(resources.requests), limits: keep(resources.limits) },
  } as V1Container;
}

/** JSON with object keys sorted and null/undefined/empty arrays/empty objects dropped. */
export function canonicalJSON(value: unknown): string {
  return JSON.stringify(normalize(value)) ?? "null";
}

function normalize(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const items = v.map((x) => normalize(x) ?? null);
    return items.length ? items : undefined;
  }
  if (typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) {
      const n = normalize((v as Record<string, unknown>)[k]);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v;
}

const encoder = new TextEncoder();

function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (const b of encoder.encode(text)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export interface ParsedContainerInfo {
  podName: string;
  podNamespace: string;
  podUid: string;
  containerName: string;
  hash: string;
  /** 0 when missing or unparsable, as upstream. */
  restartCount: number;
  terminationGracePeriodSeconds?: number;
  deletionGracePeriodSeconds?: number;
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  preStop?: V1LifecycleHandler;
  /** Set when the preStop annotation exists but is not JSON (the caller logs it; no hook runs). */
  preStopError?: string;
  /** "init", "container" or "ephemeral" when recorded. */
  containerType?: string;
}

/** Reads back what containerLabels/containerAnnotations wrote; tolerant of missing keys. */
export function parseContainerLabels(labels: Labels, annotations: Labels): ParsedContainerInfo {
  const info: ParsedContainerInfo = {
    podName: labels[LABEL_POD_NAME] ?? "",
    podNamespace: labels[LABEL_POD_NAMESPACE] ?? "",
    podUid: labels[LABEL_POD_UID] ?? "",
    containerName: labels[LABEL_CONTAINER_NAME] ?? "",
    hash: annotations[ANNOTATION_CONTAINER_HASH] ?? "",
    restartCount: parseIntOr(annotations[ANNOTATION_CONTAINER_RESTART_COUNT]) ?? 0,
  };
  const grace = parseIntOr(annotations[ANNOTATION_POD_TERMINATION_GRACE_PERIOD]);
  if (grace !== undefined) info.terminationGracePeriodSeconds = grace;
  const deletion = parseIntOr(annotations[ANNOTATION_POD_DELETION_GRACE_PERIOD]);
  if (deletion !== undefined) info.deletionGracePeriodSeconds = deletion;
  const path = annotations[ANNOTATION_TERMINATION_MESSAGE_PATH];
  if (path !== undefined) info.terminationMessagePath = path;
  const policy = annotations[ANNOTATION_TERMINATION_MESSAGE_POLICY];
  if (policy !== undefined) info.terminationMessagePolicy = policy;
  const type = annotations[ANNOTATION_CONTAINER_TYPE];
  if (type !== undefined) info.containerType = type;
  const preStop = annotations[ANNOTATION_PRESTOP_HANDLER];
  if (preStop !== undefined) {
    try {
      info.preStop = JSON.parse(preStop) as V1LifecycleHandler;
    } catch (err) {
      // Upstream runs no hook then; a corrupt annotation must not block killing the container.
      info.preStopError = `cannot parse ${ANNOTATION_PRESTOP_HANDLER}: ${String(err)}`;
    }
  }
  return info;
}

/** The pod identity of a sandbox, or undefined when it was not created by a kubelet. */
export function parseSandboxLabels(
  labels: Labels,
): { podName: string; podNamespace: string; podUid: string } | undefined {
  const podUid = labels[LABEL_POD_UID];
  if (!podUid) return undefined;
  return {
    podName: labels[LABEL_POD_NAME] ?? "",
    podNamespace: labels[LABEL_POD_NAMESPACE] ?? "",
    podUid,
  };
}

function parseIntOr(s: string | undefined): number | undefined {
  if (s === undefined || !/^-?\d+$/.test(s.trim())) return undefined;
  return Number.parseInt(s, 10);
}
