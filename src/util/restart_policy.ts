/**
 * Whether a container that exited runs again (upstream podutil ContainerShouldRestart, with
 * ContainerRestartRules, beta and on since 1.35): its restartPolicyRules first, then its own
 * restartPolicy, then the pod's. Sidecars (init containers with `restartPolicy: Always`) always
 * restart; callers treat them apart.
 */
import type { V1Container, V1ContainerRestartRule, V1PodSpec } from "@kubernetes/client-node";

/** The first rule whose exit codes match, or undefined. */
export function matchingRestartRule(
  container: Pick<V1Container, "restartPolicyRules">,
  exitCode: number,
): V1ContainerRestartRule | undefined {
  for (const rule of container.restartPolicyRules ?? []) {
    const codes = rule.exitCodes;
    if (!codes) continue;
    const listed = (codes.values ?? []).includes(exitCode);
    if (codes.operator === "In" && listed) return rule;
    if (codes.operator === "NotIn" && !listed) return rule;
  }
  return undefined;
}

/** Whether the container, exited with `exitCode`, is to be started again. */
export function containerShouldRestart(
  container: Pick<V1Container, "restartPolicy" | "restartPolicyRules">,
  spec: Pick<V1PodSpec, "restartPolicy"> | undefined,
  exitCode: number,
): boolean {
  const own = container.restartPolicy;
  if (own) {
    // Only rules of a container that sets its own policy count, as upstream.
    if (matchingRestartRule(container, exitCode)?.action === "Restart") return true;
    if (own === "Always") return true;
    if (own === "OnFailure") return exitCode !== 0;
    if (own === "Never") return false;
  }
  const policy = spec?.restartPolicy ?? "Always";
  if (policy === "OnFailure") return exitCode !== 0;
  return policy !== "Never";
}

/** Whether the container may ever run again (upstream IsContainerRestartable). */
export function isContainerRestartable(
  spec: Pick<V1PodSpec, "restartPolicy"> | undefined,
  container: Pick<V1Container, "restartPolicy" | "restartPolicyRules">,
): boolean {
  if (container.restartPolicy) {
    if ((container.restartPolicyRules ?? []).some((r) => r.action === "Restart")) return true;
    return container.restartPolicy !== "Never";
  }
  return spec?.restartPolicy !== "Never";
}
