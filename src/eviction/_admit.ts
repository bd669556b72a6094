/**
 * Admission under pressure (upstream managerImpl.Admit): no condition, or a critical pod,
 * admits; memory pressure alone refuses only BestEffort pods that do not tolerate the
 * memory-pressure taint; any other condition refuses every pod.
 */
import type { V1Pod, V1Toleration } from "@kubernetes/client-node";
import type { Logger } from "../util/log.ts";
import { admitMessage, REASON } from "./_message.ts";
import { isCriticalPod } from "./_rank.ts";
import type { AdmitResult, EvictionConfig, PressureCondition } from "./types.ts";

const MEMORY_PRESSURE_TAINT = "node.kubernetes.io/memory-pressure";

export function admitPod(
  pod: V1Pod,
  ctx: {
    active: readonly PressureCondition[];
    config: Pick<EvictionConfig, "evictStaticPods">;
    logger: Logger;
  },
): AdmitResult {
  const { active } = ctx;
  if (active.length === 0) return { admit: true };
  if (isCriticalPod(pod, ctx.config)) return { admit: true };
  if (active.length === 1 && active[0] === "MemoryPressure") {
    if (!isBestEffort(pod)) return { admit: true };
    if (toleratesMemoryPressure(pod.spec?.tolerations ?? [])) return { admit: true };
  }
  ctx.logger.info("Failed to admit pod to node", {
    pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`,
    nodeCondition: active.join(","),
  });
  return { admit: false, reason: REASON, message: admitMessage(active) };
}

/** No cpu or memory request or limit in any container (v1qos.GetPodQOS == BestEffort). */
export function isBestEffort(pod: V1Pod): boolean {
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return all.every((c) =>
    ["cpu", "memory"].every((r) =>
      !nonZero(c.resources?.requests?.[r]) && !nonZero(c.resources?.limits?.[r])
    )
  );
}

function nonZero(q: unknown): boolean {
  if (q === undefined || q === null) return false;
  const n = Number.parseFloat(String(q));
  return !(n === 0);
}

/** Toleration.ToleratesTaint for the NoSchedule memory-pressure taint (no value). */
function toleratesMemoryPressure(tolerations: V1Toleration[]): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== "NoSchedule") return false;
    if (t.key && t.key !== MEMORY_PRESSURE_TAINT) return false;
    const op = t.operator ?? "Equal";
    if (op === "Exists") return true;
    // Equal: an empty key only matches with Exists; the taint's value is empty.
    return op === "Equal" && Boolean(t.key) && (t.value ?? "") === "";
  });
}
