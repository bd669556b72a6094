/**
 * Stopping pods group by group on a node shutdown (upstream podManager.killPods): every pod of a
 * group is killed at once with its grace period (preStop hooks run within it); the next group
 * starts when all of them are down or the group's seconds are up, whichever comes first.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { podGracePeriodSeconds, type ShutdownGroup } from "./_groups.ts";

/**
 * Kills a pod with a grace period override and marks its status as the shutdown manager does;
 * resolves once it is down. The signal stops the waiting, not the kill.
 */
export type KillPod = (
  pod: V1Pod,
  opts: { gracePeriodSeconds: number; signal: AbortSignal },
) => Promise<void>;

export interface KillPodsDeps {
  kill: KillPod;
  clock: Clock;
  logger: Logger;
  /** The agent stopping: no further group is started. */
  signal?: AbortSignal;
}

/** Runs the groups in order; resolves when the last is done or timed out. Never rejects. */
export async function killPods(
  groups: readonly ShutdownGroup[],
  deps: KillPodsDeps,
): Promise<void> {
  const { clock, logger } = deps;
  for (const group of groups) {
    if (deps.signal?.aborted) return;
    // No pods in this range: no waiting for it either.
    if (group.pods.length === 0) continue;
    const groupDone = new AbortController();
    const signal = deps.signal
      ? AbortSignal.any([deps.signal, groupDone.signal])
      : groupDone.signal;
    const kills = group.pods.map(async (pod) => {
      const grace = podGracePeriodSeconds(pod, group);
      const fields = { pod: podKey(pod), uid: pod.metadata?.uid, gracePeriod: grace };
      logger.info("Shutdown manager killing pod with gracePeriod", fields);
      try {
        await deps.kill(pod, { gracePeriodSeconds: grace, signal });
        logger.info("Shutdown manager finished killing pod", fields);
      } catch (err) {
        // The group's time ran out first: the kill goes on, only the waiting stopped.
        if (groupDone.signal.aborted) return;
        logger.warn("Shutdown manager failed killing pod", { ...fields, err: errorMessage(err) });
      }
    });
    const all = Promise.all(kills).then(() => "done" as const);
    const timer = clock.sleep(group.shutdownGracePeriodSeconds * 1000, { signal })
      .then(() => "timeout" as const, () => "stopped" as const);
    const first = await Promise.race([all, timer]);
    groupDone.abort();
    await all; // the kills see the abort and return
    const where = { gracePeriod: group.shutdownGracePeriodSeconds, priority: group.priority };
    if (first === "done") logger.info("Done waiting for all pods in group to terminate", where);
    else if (first === "timeout") logger.info("Shutdown manager pod killing time out", where);
  }
}

function podKey(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
}
