/**
 * The downward API's values (kubelet fieldpath and resource helpers): what env `fieldRef`s and
 * `resourceFieldRef`s, and downwardAPI and projected volumes, read from the pod.
 */
import type { V1Container, V1Pod, V1ResourceFieldSelector } from "@kubernetes/client-node";
import { podLevelLimitsSet, podLevelList } from "../util/pod_level.ts";
import { availableParallelism, totalmem } from "node:os";
import type { DownwardAPIValues } from "../volumes/mod.ts";
import { ConfigError } from "../util/errors.ts";
import { quantityMilliValue, quantityValue } from "../util/quantity.ts";
import {
  cpuLimitMilli,
  cpuRequestMilli,
  memoryLimitBytes,
  memoryRequestBytes,
  resourceBytes,
} from "./_resources.ts";

const EPHEMERAL = "ephemeral-storage";

/** Pod facts that `fieldRef`s read and that the spec does not hold. */
export interface DownwardContext {
  podIP?: string;
  podIPs?: string[];
  hostIP?: string;
  /** All node IPs for status.hostIPs; defaults to [hostIP]. */
  hostIPs?: string[];
  nodeName: string;
  /** Defaults to pod.spec.serviceAccountName. */
  serviceAccountName?: string;
  /**
   * For resourceFieldRef limits when the container sets none; defaults to this machine's CPUs
   * and memory. Without `ephemeralStorageBytes` an unset ephemeral-storage limit reads 0, as
   * upstream when allocatable lacks it.
   */
  nodeAllocatable?: { cpuMilli: number; memoryBytes: number; ephemeralStorageBytes?: number };
}

const LABEL_REF = /^metadata\.(labels|annotations)\['(.+)'\]$/;

/** Go's %q for the downward API's map files: a double-quoted string with Go's escapes. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += ch;
  }
  return out + '"';
}

/** fieldpath.FormatMap: `key="value"` lines sorted by key, no trailing newline. */
function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {}).sort().map((k) => `${k}=${goQuote(m![k])}`).join("\n");
}

export function fieldRefValue(
  pod: V1Pod,
  fieldPath: string,
  ctx: DownwardContext,
  field: string,
): string {
  const m = LABEL_REF.exec(fieldPath);
  if (m) {
    const map = m[1] === "labels" ? pod.metadata?.labels : pod.metadata?.annotations;
    return map?.[m[2]] ?? "";
  }
  const podIPs = ctx.podIPs ?? (ctx.podIP ? [ctx.podIP] : []);
  const hostIPs = ctx.hostIPs ?? (ctx.hostIP ? [ctx.hostIP] : []);
  // A host-network pod has no sandbox IP; upstream reports the node's IPs as the pod's.
  const effPodIPs = podIPs.length === 0 && pod.spec?.hostNetwork ? hostIPs : podIPs;
  switch (fieldPath) {
    case "metadata.name":
      return pod.metadata?.name ?? "";
    case "metadata.namespace":
      return pod.metadata?.namespace ?? "";
    case "metadata.uid":
      return pod.metadata?.uid ?? "";
    case "metadata.labels":
      return formatMap(pod.metadata?.labels);
    case "metadata.annotations":
      return formatMap(pod.metadata?.annotations);
    case "spec.nodeName":
      return ctx.nodeName;
    case "spec.serviceAccountName":
      return ctx.serviceAccountName ?? pod.spec?.serviceAccountName ?? "";
    case "status.podIP":
      return ctx.podIP ?? effPodIPs[0] ?? "";
    case "status.podIPs":
      return effPodIPs.join(",");
    case "status.hostIP":
      return ctx.hostIP ?? hostIPs[0] ?? "";
    case "status.hostIPs":
      return hostIPs.join(",");
  }
  throw new ConfigError(field, `unsupported fieldRef fieldPath ${JSON.stringify(fieldPath)}`);
}

export function resourceFieldValue(
  pod: V1Pod,
  container: V1Container | undefined,
  src: V1ResourceFieldSelector,
  ctx: DownwardContext & { field: string },
): string {
  const field = ctx.field;
  let target = container;
  if (src.containerName) {
    const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
    target = all.find((c) => c.name === src.containerName);
    if (!target) {
      throw new ConfigError(
        field,
        `resourceFieldRef names unknown container ${JSON.stringify(src.containerName)}`,
      );
    }
  }
  if (!target) throw new ConfigError(field, "resourceFieldRef needs a containerName");
  const alloc = podLevelDefaults(
    pod,
    ctx.nodeAllocatable ?? { cpuMilli: availableParallelism() * 1000, memoryBytes: totalmem() },
  );
  const divisor = src.divisor ?? "1";
  // The Go field is a Quantity, not a pointer: unset, it reaches the node as "0", which the
  // kubelet (ExtractContainerResourceValue) reads as 1.
  const cpu = (milli: number) => {
    const d = quantityMilliValue(divisor, { field: `${field}.divisor` }) || 1000;
    if (d < 0) throw new ConfigError(`${field}.divisor`, "must be positive");
    return String(Math.ceil(milli / d));
  };
  const mem = (bytes: number) => {
    const d = quantityValue(divisor, { field: `${field}.divisor` }) || 1;
    if (d < 0) throw new ConfigError(`${field}.divisor`, "must be positive");
    return String(Math.ceil(bytes / d));
  };
  switch (src.resource) {
    case "limits.cpu":
      return cpu(cpuLimitMilli(target) || alloc.cpuMilli);
    case "requests.cpu":
      return cpu(cpuRequestMilli(target));
    case "limits.memory":
      return mem(memoryLimitBytes(target) || alloc.memoryBytes);
    case "requests.memory":
      return mem(memoryRequestBytes(target));
    case "limits.ephemeral-storage":
      return mem(resourceBytes(target, "limits", EPHEMERAL) || alloc.ephemeralStorageBytes || 0);
    case "requests.ephemeral-storage":
      return mem(resourceBytes(target, "requests", EPHEMERAL));
  }
  // Hugepages are never overcommitted, so an unset one has no node default: it is 0.
  const [kind, name] = src.resource.split(/\.(.*)/s);
  if ((kind === "limits" || kind === "requests") && name?.startsWith("hugepages-")) {
    return mem(resourceBytes(target, kind, name));
  }
  throw new ConfigError(
    field,
    `unsupported resourceFieldRef resource ${JSON.stringify(src.resource)}`,
  );
}

/**
 * What an unset container limit reads as (defaultPodLimitsForDownwardAPI): the pod-level limit
 * when the pod sets one, else the node's allocatable.
 */
function podLevelDefaults(
  pod: V1Pod,
  alloc: NonNullable<DownwardContext["nodeAllocatable"]>,
): NonNullable<DownwardContext["nodeAllocatable"]> {
  if (!podLevelLimitsSet(pod)) return alloc;
  const limits = podLevelList(pod, "limits");
  const cpu = limits.cpu === undefined ? 0 : quantityMilliValue(limits.cpu);
  const memory = limits.memory === undefined ? 0 : quantityValue(limits.memory);
  return {
    ...alloc,
    cpuMilli: cpu > 0 ? cpu : alloc.cpuMilli,
    memoryBytes: memory > 0 ? memory : alloc.memoryBytes,
  };
}

/**
 * The downward API for volumes: the same values as env, with the pod's own node name and no
 * IPs (upstream allows only metadata fields and resources in volumes).
 */
export function downwardAPIValues(
  opts: { nodeAllocatable?: DownwardContext["nodeAllocatable"] } = {},
): DownwardAPIValues {
  const ctx = (pod: V1Pod): DownwardContext => ({
    nodeName: pod.spec?.nodeName ?? "",
    nodeAllocatable: opts.nodeAllocatable,
  });
  return {
    fieldValue: (pod, ref) => fieldRefValue(pod, ref.fieldPath, ctx(pod), ref.field),
    resourceValue: (pod, ref) =>
      resourceFieldValue(pod, ref.container, ref.selector, { ...ctx(pod), field: ref.field }),
  };
}
