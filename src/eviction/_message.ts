/**
 * Eviction and admission texts, worded as upstream (helpers.go) so tools that match on them
 * keep working: "The node was low on resource: memory. Threshold quantity: 100Mi, available:
 * 88120Ki. Container hog was using 300Mi, request is 0, has larger consumption of memory. "
 */
import type { V1Pod } from "@kubernetes/client-node";
import { formatQuantity } from "../util/quantity.ts";
import { podRequest, type PodStats } from "./_rank.ts";
import { type Observations, SIGNAL_TO_RESOURCE, type StarvedResource } from "./_signals.ts";
import { thresholdQuantity } from "./thresholds.ts";
import type { PressureCondition, Threshold } from "./types.ts";

export const REASON = "Evicted";

/** Upstream event annotation keys. */
export const OFFENDING_CONTAINERS_KEY = "offending_containers";
export const OFFENDING_CONTAINERS_USAGE_KEY = "offending_containers_usage";
export const STARVED_RESOURCE_KEY = "starved_resource";

export function evictionMessage(
  resource: StarvedResource,
  pod: V1Pod,
  stats: PodStats | undefined,
  ctx: { thresholds: readonly Threshold[]; observations: Observations },
): { message: string; annotations: Record<string, string> } {
  let message = `The node was low on resource: ${resource}. `;
  const met = ctx.thresholds.find((t) =>
    SIGNAL_TO_RESOURCE[t.signal] === resource && ctx.observations.has(t.signal)
  );
  if (met) {
    const o = ctx.observations.get(met.signal)!;
    const q = "quantity" in met.value
      ? met.value.text
      : formatQuantity(thresholdQuantity(met.value, o.capacity), "BinarySI");
    message += `Threshold quantity: ${q}, available: ${formatQuantity(o.available, o.format)}. `;
  }
  const annotations: Record<string, string> = {};
  if (!stats) return { message, annotations };
  const names: string[] = [];
  const usages: string[] = [];
  for (const cs of stats.containers ?? []) {
    const container = pod.spec?.containers?.find((c) => c.name === cs.name);
    if (!container) continue;
    let usage: number | undefined;
    if (resource === "memory") usage = cs.memory?.workingSetBytes;
    if (resource === "ephemeral-storage") {
      const root = cs.rootfs?.usedBytes;
      const logs = cs.logs?.usedBytes;
      if (root !== undefined && logs !== undefined) usage = root + logs;
    }
    if (usage === undefined) continue;
    const requested = podRequest({ spec: { containers: [container] } }, resource);
    if (usage <= requested) continue;
    const used = formatQuantity(usage, "BinarySI");
    message += `Container ${cs.name} was using ${used}, request is ${
      formatQuantity(requested, "BinarySI")
    }, has larger consumption of ${resource}. `;
    names.push(cs.name);
    usages.push(used);
  }
  annotations[OFFENDING_CONTAINERS_KEY] = names.join(",");
  annotations[OFFENDING_CONTAINERS_USAGE_KEY] = usages.join(",");
  annotations[STARVED_RESOURCE_KEY] = resource;
  return { message, annotations };
}

/** Go's `%v` of a []NodeConditionType: "[MemoryPressure DiskPressure]". */
export function admitMessage(conditions: readonly PressureCondition[]): string {
  return `The node had condition: [${conditions.join(" ")}]. `;
}
