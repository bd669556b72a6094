/**
 * Which dead containers and sandboxes a sync may remove. Upstream keeps one dead instance per
 * container (its `lastState`, `MaxPerPodContainer: 1`), purges init containers when the pod
 * gets a new sandbox (they all run again) and removes sandboxes nothing refers to any more.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { RuntimePodStatus } from "./types.ts";

export interface PrunePlan {
  containers: string[];
  sandboxes: string[];
}

export function planPrune(
  pod: V1Pod,
  status: RuntimePodStatus,
  opts: { newSandbox: boolean },
): PrunePlan {
  const initNames = new Set((pod.spec?.initContainers ?? []).map((c) => c.name));
  const remove = new Set<string>();
  const keptExited = new Set<string>();
  // Newest first, so the first exited instance of a name is the one to keep.
  for (const c of status.containers) {
    if (opts.newSandbox && initNames.has(c.name)) {
      remove.add(c.id);
      continue;
    }
    if (c.state !== "exited") continue;
    if (keptExited.has(c.name)) remove.add(c.id);
    else keptExited.add(c.name);
  }
  const sandboxes: string[] = [];
  if (opts.newSandbox) {
    const inUse = new Set(
      status.containers.filter((c) => !remove.has(c.id)).map((c) => c.sandboxId),
    );
    // The newest old sandbox stays until the new one exists; the rest go once unreferenced.
    for (const s of status.sandboxes.slice(1)) {
      if (s.state !== "ready" && !inUse.has(s.id)) sandboxes.push(s.id);
    }
  }
  return { containers: [...remove], sandboxes };
}
