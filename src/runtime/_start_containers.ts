/**
 * Starting a pod's containers in a sync, once its sandbox and volumes are ready: the ephemeral
 * containers (upstream step 7), then the init containers one by one and the app containers all
 * at once.
 */
import type { V1Container } from "@kubernetes/client-node";
import { podObjectRef } from "../events/mod.ts";
import { findContainerStatus } from "./_pod_actions.ts";
import { startContainer, type StartDeps, type StartTarget } from "./_start.ts";
import type { SyncDeps } from "./_sync_pod.ts";
import type { SyncStepError } from "./types.ts";

/**
 * Upstream step 7: the ephemeral containers, each once; one the node cannot run stays Waiting
 * with the reason. Failures go to `errors`.
 */
export async function startEphemerals(
  target: Omit<StartTarget, "container"> & { ephemerals: string[] },
  o: { deps: SyncDeps; startDeps: StartDeps; errors: SyncStepError[] },
): Promise<void> {
  const { deps, startDeps, errors } = o;
  const { pod, status, logger: log } = target;
  for (const name of target.ephemerals) {
    const ec = pod.spec?.ephemeralContainers?.find((c) => c.name === name);
    if (!ec) continue;
    const problem = deps.ephemeralProblem?.(pod, name);
    if (problem) {
      // Honour or refuse: it stays Waiting with the reason, never runs without what it asked.
      log.warn("Cannot start ephemeral container", { container: name, problem });
      deps.events?.event(
        podObjectRef(pod, { name, ephemeral: true }),
        "Warning",
        "Failed",
        `Error: ${problem}`,
      );
      errors.push({ container: name, reason: "CreateContainerConfigError", message: problem });
      continue;
    }
    let pidTargetId: string | undefined;
    if (ec.targetContainerName) {
      pidTargetId = findContainerStatus(status, ec.targetContainerName)?.id;
      if (!pidTargetId) {
        errors.push({
          container: name,
          reason: "CreateContainerConfigError",
          message: `unable to find target container ${ec.targetContainerName}`,
        });
        continue;
      }
    }
    // Same shape as a container's; validation keeps out what ephemeral containers may not use.
    const container = ec as V1Container;
    const err = await startContainer(startDeps, { ...target, container, pidTargetId });
    if (err) errors.push(err);
  }
}

/**
 * Steps 5 and 6: the init containers to start one by one in spec order (a regular one that
 * fails stops the sync), then the app containers all at once. Failures go to `errors`.
 */
export async function startContainers(
  target: Omit<StartTarget, "container"> & { inits: string[]; apps: string[] },
  o: { startDeps: StartDeps; errors: SyncStepError[] },
): Promise<void> {
  const { startDeps, errors } = o;
  const { pod } = target;
  for (const name of target.inits) {
    const container = pod.spec?.initContainers?.find((c) => c.name === name);
    if (!container) continue;
    const err = await startContainer(startDeps, { ...target, container });
    if (!err) continue;
    errors.push(err);
    // A sidecar that cannot start (or is backing off) holds nothing else up; a regular init
    // container does: initialisation stops here and is retried.
    if (container.restartPolicy !== "Always") return;
  }
  // App containers start together so a pod with many containers comes up fast.
  const specs = target.apps
    .map((name) => pod.spec?.containers.find((c) => c.name === name))
    .filter((c) => c !== undefined);
  const results = await Promise.allSettled(
    specs.map((container) => startContainer(startDeps, { ...target, container })),
  );
  const fatal = results.find((r) => r.status === "rejected");
  if (fatal) throw fatal.reason;
  for (const r of results) if (r.status === "fulfilled" && r.value) errors.push(r.value);
}
