/**
 * The three pressure conditions with their upstream reasons and messages (the kubelet's node
 * status setters), remembering when each last changed status.
 */
import type { NodeConditionSnapshot, PressureCondition } from "./types.ts";

const TEXTS: Record<
  PressureCondition,
  { true: [reason: string, message: string]; false: [reason: string, message: string] }
> = {
  MemoryPressure: {
    true: ["KubeletHasInsufficientMemory", "kubelet has insufficient memory available"],
    false: ["KubeletHasSufficientMemory", "kubelet has sufficient memory available"],
  },
  DiskPressure: {
    true: ["KubeletHasDiskPressure", "kubelet has disk pressure"],
    false: ["KubeletHasNoDiskPressure", "kubelet has no disk pressure"],
  },
  PIDPressure: {
    true: ["KubeletHasInsufficientPID", "kubelet has insufficient PID available"],
    false: ["KubeletHasSufficientPID", "kubelet has sufficient PID available"],
  },
};

const ORDER: PressureCondition[] = ["MemoryPressure", "DiskPressure", "PIDPressure"];

export interface ConditionTracker {
  /** Sets each condition's status from `active`; a change stamps `now` as its transition time. */
  update(active: ReadonlySet<PressureCondition>, now: number): void;
  snapshot(): NodeConditionSnapshot[];
}

export function createConditionTracker(start: number): ConditionTracker {
  const state = new Map(ORDER.map((c) => [c, { on: false, since: start }]));
  return {
    update(active, now) {
      for (const [c, s] of state) {
        const on = active.has(c);
        if (on !== s.on) state.set(c, { on, since: now });
      }
    },
    snapshot() {
      return ORDER.map((type) => {
        const s = state.get(type)!;
        const [reason, message] = s.on ? TEXTS[type].true : TEXTS[type].false;
        return {
          type,
          status: s.on ? "True" : "False",
          reason,
          message,
          lastTransitionTime: s.since,
        };
      });
    },
  };
}
