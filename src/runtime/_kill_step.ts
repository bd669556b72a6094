/**
 * Step 1 of a sync: stop what must go (the whole pod, or the containers to kill), then remove
 * the dead instances nobody will look at again.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { podObjectRef } from "../events/mod.ts";
import { gracePeriodFor, type KillDeps, killPod, removeAll, stopContainer } from "./_kill.ts";
import type { PodActions } from "./_pod_actions.ts";
import { planPrune } from "./_prune.ts";
import { toRunningPod } from "./_status.ts";
import type { StepContext } from "./_sync_pod.ts";
import type { RuntimePodStatus } from "./types.ts";

/** Step 1: kill the pod or the unwanted containers. False when the sync must stop here. */
export async function killStep(
  killDeps: KillDeps,
  what: { pod: V1Pod; status: RuntimePodStatus; actions: PodActions },
  ctx: StepContext,
): Promise<boolean> {
  const { pod, status, actions } = what;
  const { log, signal } = ctx;
  if (actions.killPod) {
    if (actions.createSandbox && actions.sandboxId) {
      log.info("Pod sandbox changed, it will be killed and re-created", {
        sandboxId: actions.sandboxId,
      });
      killDeps.events?.event(
        podObjectRef(pod),
        "Normal",
        "SandboxChanged",
        "Pod sandbox changed, it will be killed and re-created.",
      );
    } else if (!actions.createSandbox) {
      log.info("Stopping pod sandbox, because all other containers are dead");
    }
    try {
      await killPod(killDeps, pod, toRunningPod(status), { signal });
    } catch (err) {
      ctx.stepFailed(err, { reason: "KillPodSandboxError" });
      return false;
    }
    return true;
  }
  const kills = [...actions.containersToKill].map(async ([id, info]) => {
    const spec = pod.spec?.containers.find((c) => c.name === info.name) ??
      pod.spec?.initContainers?.find((c) => c.name === info.name);
    const grace = gracePeriodFor(pod, spec, { reason: info.reason });
    await stopContainer(killDeps, id, {
      gracePeriodSeconds: grace,
      name: info.name,
      message: info.message,
      pod: pod.metadata,
      signal,
    });
  });
  const results = await Promise.allSettled(kills);
  const names = [...actions.containersToKill.values()].map((i) => i.name);
  results.forEach((r, i) => {
    if (r.status === "rejected") {
      ctx.stepFailed(r.reason, { container: names[i], reason: "KillContainerError" });
    }
  });
  return results.every((r) => r.status === "fulfilled");
}

/** Removes dead instances nobody will look at again; failures only cost disk space. */
export async function prune(
  killDeps: KillDeps,
  what: { pod: V1Pod; status: RuntimePodStatus; newSandbox: boolean },
  signal?: AbortSignal,
): Promise<void> {
  const log = killDeps.logger;
  const plan = planPrune(what.pod, what.status, { newSandbox: what.newSandbox });
  if (plan.containers.length === 0 && plan.sandboxes.length === 0) return;
  log.debug(4, "Removing dead containers and sandboxes", { ...plan });
  try {
    await removeAll(killDeps, plan, {
      what: "dead instances",
      signal: signal,
    });
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    log.warn("Cannot remove dead containers", { err });
  }
}
