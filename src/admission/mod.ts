/**
 * What the node checks before it runs a pod, beyond resources and placement (those are the
 * kubelet's predicates in `kubelet/_admission.ts`): the sysctl allowlist, the runtime's support
 * for `supplementalGroupsPolicy: Strict`, AppArmor on the host, and the field table, which
 * refuses any field this node cannot honour instead of running the pod without it.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { RuntimeCapabilities } from "../kubelet/runtime_state.ts";
import { appArmorRequired } from "../runtime/mod.ts";
import { findUnsupported, type Unsupported } from "./_rules.ts";
import { FIELD_TABLE } from "./_table.ts";
import { createSysctlAllowlist } from "./sysctls.ts";
import type { AdmitResult } from "./types.ts";

export type { AdmitResult } from "./types.ts";
export type { FieldContext, Rule, Table, TypeRules, Unsupported } from "./_rules.ts";
export { findUnsupported, isSet } from "./_rules.ts";
export { FIELD_TABLE } from "./_table.ts";
export { allowlistProblem, sysctlNamespace } from "./sysctls.ts";

export interface PodAdmissionDeps {
  /** Pods come from an API server too (their object references can be resolved). */
  apiMode: boolean;
  /** The runtime's latest capabilities (CRI Status); cheap, never blocks. */
  runtime: () => RuntimeCapabilities;
  /** allowedUnsafeSysctls, already validated (`allowlistProblem`). */
  allowedUnsafeSysctls: readonly string[];
  /** The running kernel's release (uname -r): which safe sysctls it namespaces. */
  kernelRelease: string;
  /** Whether the host enforces AppArmor (read once at start, as upstream). */
  appArmorEnabled: boolean;
}

/** Upstream's reason for a pod that needs what the node lacks (declared features). */
export const FEATURE_UNSUPPORTED = "PodFeatureUnsupported";
/** How many fields one refusal message names; the rest are counted. */
const MAX_LISTED = 5;

/**
 * Why the node cannot start an ephemeral container added to a running pod (`kubectl debug`
 * adds them after admission), or undefined: its fields go through the same table.
 */
export function ephemeralContainerProblem(
  pod: V1Pod,
  name: string,
  deps: Pick<PodAdmissionDeps, "apiMode" | "runtime">,
): string | undefined {
  const list = pod.spec?.ephemeralContainers ?? [];
  const i = list.findIndex((c) => c.name === name);
  if (i < 0) return undefined;
  const unsupported = findUnsupported(
    FIELD_TABLE,
    { type: "EphemeralContainer", value: list[i], path: `spec.ephemeralContainers[${i}]` },
    { pod, ctx: { apiMode: deps.apiMode, runtime: deps.runtime() } },
  );
  return unsupported.length > 0 ? unsupportedMessage(unsupported) : undefined;
}

/** The admit handler: the first check that fails is the verdict. Pure but for `deps.runtime`. */
export function createPodAdmission(deps: PodAdmissionDeps): (pod: V1Pod) => AdmitResult {
  const sysctls = createSysctlAllowlist(deps.allowedUnsafeSysctls, {
    kernelRelease: deps.kernelRelease,
  });
  return (pod) => {
    const sysctlVerdict = sysctls.admit(pod);
    if (!sysctlVerdict.admit) return sysctlVerdict;
    const runtime = deps.runtime();
    if (usesStrictGroups(pod) && !runtime.features.supplementalGroupsPolicy) {
      return {
        admit: false,
        reason: "SupplementalGroupsPolicyNotSupported",
        message: "SupplementalGroupsPolicy=Strict is not supported in this node",
      };
    }
    if (!deps.appArmorEnabled && appArmorRequired(pod)) {
      return {
        admit: false,
        reason: "AppArmor",
        message: "Cannot enforce AppArmor: AppArmor is not enabled on the host",
      };
    }
    const unsupported = findUnsupported(FIELD_TABLE, { type: "Pod", value: pod, path: "" }, {
      pod,
      ctx: { apiMode: deps.apiMode, runtime },
    });
    if (unsupported.length > 0) {
      return {
        admit: false,
        reason: FEATURE_UNSUPPORTED,
        message: unsupportedMessage(unsupported),
      };
    }
    return { admit: true };
  };
}

function usesStrictGroups(pod: V1Pod): boolean {
  return pod.spec?.securityContext?.supplementalGroupsPolicy === "Strict";
}

/** "Pod requires node features that are not available: spec.x (what), ..." as upstream words it. */
export function unsupportedMessage(list: readonly Unsupported[]): string {
  const shown = list.slice(0, MAX_LISTED).map((u) => `${u.field} (${u.what})`);
  const more = list.length > MAX_LISTED ? `, and ${list.length - MAX_LISTED} more` : "";
  return `Pod requires node features that are not available: ${shown.join(", ")}${more}`;
}
