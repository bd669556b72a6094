/**
 * Feature gates (--feature-gates, featureGates): upstream's switches for alpha and beta
 * behaviour. denolet reads the gates in GATES, with its own defaults. Every other gate the
 * v1.37 kubelet knows is decided by `checkGates` (`_gate_check.ts`): a value that is what denolet
 * does is accepted, the opposite is refused, and a name the kubelet does not know is refused,
 * as upstream refuses it.
 */
import { field, type FlagDef } from "./_flag_kit.ts";
import { parseBool } from "./_values.ts";
import type { AgentConfig } from "./types.ts";

interface Gate {
  default: boolean;
  help: string;
}

/** The gates denolet reads. */
export const GATES = {
  // Upstream's default is false (alpha). denolet follows the events wherever the runtime serves
  // them: on an edge node the per-second relist is the idle agent's largest CPU cost.
  EventedPLEG: {
    default: true,
    help: "follow the runtime's container events (CRI GetContainerEvents) and relist every " +
      "300 s; false relists every second",
  },
  DefaultPodSysctls: {
    default: false,
    help: "apply the configuration's defaultPodSysctls to every pod (alpha upstream)",
  },
  KubeletServiceAccountTokenForCredentialProviders: {
    default: true,
    help: "give credential provider plugins with tokenAttributes a token of the pod's " +
      "service account (beta upstream)",
  },
  KubeletEnsureSecretPulledImages: {
    default: true,
    help: "keep records of the credentials each image was pulled with, so a pod may use an " +
      "image on the node only with the same credentials (imagePullCredentialsVerificationPolicy)",
  },
  GracefulNodeShutdown: {
    default: true,
    help: "hold a node shutdown with a logind delay inhibitor while pods terminate " +
      "(shutdownGracePeriod; beta upstream)",
  },
  GracefulNodeShutdownBasedOnPodPriority: {
    default: true,
    help: "shutdownGracePeriodByPodPriority (beta upstream)",
  },
  InPlacePodLevelResourcesVerticalScaling: {
    default: true,
    help: "resize pods' pod-level resources (spec.resources) in place, and report " +
      "status.resources and status.allocatedResources (beta upstream)",
  },
} as const satisfies Record<string, Gate>;

type GateName = keyof typeof GATES;

/** Whether `name` is on: as set by the file or the flags, else denolet's default. */
export function featureEnabled(cfg: Pick<AgentConfig, "featureGates">, name: GateName): boolean {
  return cfg.featureGates[name] ?? GATES[name].default;
}

/** cliflag's MapStringBool: `Name=bool` pairs, comma-separated, spaces around each part ignored. */
function parseFeatureGates(raw: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const pair of raw.split(",")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    if (eq < 0) {
      throw new Error(`malformed pair ${JSON.stringify(pair)}, expected Name=true or Name=false`);
    }
    const name = pair.slice(0, eq).trim();
    if (name === "") throw new Error(`${JSON.stringify(pair)} names no gate`);
    let value: boolean;
    try {
      value = parseBool(pair.slice(eq + 1).trim());
    } catch (e) {
      throw new Error(`${name}: ${(e as Error).message}`);
    }
    out[name] = value;
  }
  return out;
}

/**
 * The flag. Upstream merges it into the file's gates key by key (a gate the flags do not name
 * keeps the file's value), and repeated flags add up.
 */
export const FEATURE_GATES_FLAG: FlagDef = field({
  name: "feature-gates",
  field: "featureGates",
  type: "mapStringBool",
  help: "Feature gates as Name=true|false pairs (comma-separated, repeatable; they win over " +
    "the config file's featureGates, gate by gate). denolet reads " +
    Object.entries(GATES).map(([n, g]) => `${n} (default ${g.default}: ${g.help})`).join("; ") +
    ". Other v1.37 gates are accepted at the value that is what denolet does (usually " +
    "upstream's default) and refused otherwise; unknown names are refused.",
  parse: parseFeatureGates,
  merge: (prev, next) => ({ ...prev, ...next }),
});
