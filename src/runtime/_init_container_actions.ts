/**
 * Which init containers a sync starts (regular ones in spec order, sidecars kept running) and
 * whether the pod is initialised, so its app containers may run. Pure: part of
 * computePodActions.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { RuntimeContainerStatus, RuntimePodStatus } from "./types.ts";
import { containerHash } from "./_labels.ts";
import { isRestartableInit } from "../util/sidecar.ts";
import { computeResizeAction, resizeKeeps } from "./_resize_actions.ts";
import type { ComputePodActionsOptions, KillReason, PodActions } from "./_pod_actions.ts";
import {
  findContainerStatus,
  isInitContainerFailed,
  shouldContainerBeRestarted,
  shouldRestartOnFailure,
} from "./_pod_state_checks.ts";
/**
 * Upstream `computeInitContainerActions`: fills in which init containers to start (and which
 * sidecars to kill first) and tells whether the pod is initialised, so app containers may run.
 *
 * The walk goes from the last init container back to the first, because the runtime may have
 * removed the records of early, finished ones: the furthest one that has a record tells how
 * far initialisation got. A sidecar counts as done once it has started; every sidecar before
 * that point is kept running (restarted when it exited, replaced when its spec changed or a
 * probe failed).
 */
export function computeInitContainerActions(
  pod: V1Pod,
  o: { status: RuntimePodStatus; actions: PodActions; opts: ComputePodActionsOptions },
): boolean {
  const { status, actions, opts } = o;
  const inits = pod.spec?.initContainers ?? [];
  if (inits.length === 0) return true;
  // A created or running app container proves initialisation finished, even if the init
  // containers' records were garbage-collected since: only sidecars must be brought back. An
  // exited one proves nothing: after a reboot every container is exited and the new sandbox
  // must be initialised again.
  let initialized = (pod.spec?.containers ?? []).some((c) => {
    const state = findContainerStatus(status, c.name)?.state;
    return state === "created" || state === "running";
  });
  /** Some init container at or after the current one has run, so the current one did too. */
  let reached = initialized;
  const toStart: string[] = [];
  const kill = (s: RuntimeContainerStatus, reason: KillReason, message: string) =>
    actions.containersToKill.set(s.id, { name: s.name, reason, message });

  for (let i = inits.length - 1; i >= 0; i--) {
    const c = inits[i];
    const sidecar = isRestartableInit(c);
    const last = i === inits.length - 1;
    const s = findContainerStatus(status, c.name);
    if (!s) {
      // A sidecar whose record is gone after initialisation got past it: start it again.
      if (reached && sidecar) toStart.push(c.name);
      continue;
    }
    // Past initialisation only sidecars need looking after.
    if (reached && !sidecar) continue;

    if (s.state === "created") {
      // Creating and starting are one step; a container left created failed to start.
      toStart.push(c.name);
    } else if (s.state === "running") {
      if (sidecar) {
        runningSidecar(c, s, { last, reached, next: inits[i + 1]?.name });
      } else {
        // A regular init container still running: wait for it to finish. It resizes in place
        // (InPlacePodVerticalScalingInitContainers); validation keeps RestartContainer off it.
        resizeKeeps(pod, { container: c, current: s, actions, opts, init: true });
      }
    } else if (s.state === "exited") {
      if (sidecar) toStart.push(c.name);
      else if (isInitContainerFailed(s)) {
        if (!shouldContainerBeRestarted(c, pod, status)) return failPod();
        toStart.push(c.name);
      } else if (last) initialized = true;
      else toStart.push(inits[i + 1].name);
    } else {
      // Unknown: it may still run, so it is stopped before its replacement starts.
      if (!sidecar && !shouldRestartOnFailure(pod)) return failPod();
      kill(s, "Unknown", `Init container is in "unknown" state, try killing it before restart`);
      toStart.push(c.name);
    }
    reached = true;
  }
  // No init container has run yet.
  if (!reached) toStart.push(inits[0].name);
  actions.initContainersToStart = toStart.reverse();
  return initialized;

  function failPod(): false {
    actions.killPod = true;
    actions.initContainersToStart = [];
    return false;
  }

  function runningSidecar(
    c: V1Container,
    s: RuntimeContainerStatus,
    at: { last: boolean; reached: boolean; next?: string },
  ): void {
    const probe = opts.probeFailure?.(s.id);
    if (c.startupProbe !== undefined && !(opts.startupSucceeded?.(s.id) ?? true)) {
      // Not started yet: what follows waits. A failed startup probe restarts it.
      if (probe === "StartupProbe") {
        kill(s, "StartupProbe", `Init container ${c.name} failed startup probe`);
        toStart.push(c.name);
      }
      return;
    }
    if (at.last) initialized = true;
    else if (!at.reached && at.next !== undefined) toStart.push(at.next);
    if (s.hash !== containerHash(c)) {
      kill(s, "", `Init container ${c.name} definition changed`);
      toStart.push(c.name);
    } else if (probe === "LivenessProbe") {
      kill(s, "LivenessProbe", `Init container ${c.name} failed liveness probe`);
      toStart.push(c.name);
    } else if (opts.resize) {
      computeResizeAction(pod, c, s, {
        view: opts.resize,
        actions: actions.resize,
        kill: (message) => kill(s, "", message),
        restart: () => toStart.push(c.name),
      });
    }
  }
}
