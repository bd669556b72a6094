/**
 * The decision for every feature gate set, against the gates the v1.37 kubelet knows
 * (`_feature_gate_table.ts`, generated). Loaded only when a gate is set.
 *
 * - A name the kubelet does not know is refused, as upstream's SetFromMap refuses it.
 * - A gate locked to its default cannot be set to the other value, as upstream.
 * - The gates denolet reads (GATES in `_feature_gates.ts`) take either value.
 * - A gate no code in the kubelet mentions takes either value: it does nothing on a node.
 * - Otherwise the value that is what denolet does is accepted and the opposite refused. That is
 *   upstream's default, except for the gates below.
 */
import { ConfigError } from "../util/errors.ts";
import { closest } from "./_values.ts";
import { GATES } from "./_feature_gates.ts";
import { UPSTREAM_GATES } from "./_feature_gate_table.ts";

/**
 * Gates on by default upstream whose feature denolet does not have: denolet behaves as with
 * the gate off (the pod fields they enable are refused at admission, the endpoint is absent),
 * so false is accepted and true refused.
 */
export const DENOLET_OFF: Readonly<Record<string, string>> = {
  ContainerCheckpoint: "the container checkpoint API (/checkpoint)",
  RestartAllContainersOnContainerExits: "restarting all containers on a container's exit",
  ClusterTrustBundleProjection: "clusterTrustBundle projected volumes",
  PodCertificateRequest: "podCertificate projected volumes",
};

/**
 * Gates whose two values behave alike on denolet: what they switch is reached only through
 * settings denolet accepts at one value only (the 300 s back-off cap, no memory throttling
 * factor, the 100ms CFS period, the none CPU and topology policies, no qosReserved) or through
 * devices denolet does not have.
 */
export const EITHER: Readonly<Record<string, string>> = {
  KubeletCrashLoopBackOffMax: "the back-off cap is upstream's 300 s either way",
  MemoryQoS: "with no throttling factor and reservation policy None it writes only zeros",
  CustomCPUCFSQuotaPeriod: "cpuCFSQuotaPeriod is accepted at 100ms only",
  CPUManagerPolicyAlphaOptions: "the CPU manager is accepted at policy none only",
  CPUManagerPolicyBetaOptions: "the CPU manager is accepted at policy none only",
  TopologyManagerPolicyAlphaOptions: "the topology manager is accepted at policy none only",
  TopologyManagerPolicyBetaOptions: "the topology manager is accepted at policy none only",
  QOSReserved: "qosReserved is accepted empty only",
  ResourceHealthStatus: "it reports device health; denolet has no devices",
  ResourceHealthStatusMessage: "it reports device health; denolet has no devices",
};

/**
 * Throws ConfigError for the first gate refused. `where` names the flag or field a gate was
 * set by (`--feature-gates`, or `file: featureGates.Name`).
 */
export function checkGates(gates: Record<string, boolean>, where: (name: string) => string): void {
  for (const [name, value] of Object.entries(gates)) {
    const problem = gateProblem(name, value);
    if (problem) throw new ConfigError(where(name), problem);
  }
}

function gateProblem(name: string, value: boolean): string | undefined {
  const known = UPSTREAM_GATES[name];
  if (known === undefined) {
    const near = closest(name, Object.keys(UPSTREAM_GATES));
    return `unrecognized feature gate: ${name}${near ? ` (did you mean ${near}?)` : ""}`;
  }
  const [def, locked, kubeletReads] = known;
  if (locked && value !== def) {
    return `cannot set feature gate ${name} to ${value}, feature is locked to ${def}`;
  }
  if (Object.hasOwn(GATES, name) || Object.hasOwn(EITHER, name) || !kubeletReads) return;
  const off = DENOLET_OFF[name];
  if (off !== undefined) {
    return value
      ? `${name}=true: denolet does not implement ${off}; only false is accepted`
      : undefined;
  }
  if (value === def) return;
  return `${name}=${value}: denolet does not implement ${name}=${value}; only the default ` +
    `${def} is accepted`;
}
