/**
 * Feature gates (--feature-gates, featureGates): upstream's switches for alpha and beta
 * behaviour. denolet reads the gates in GATES, with its own defaults; other names are accepted
 * with a warning, since a configuration written for the kubelet names gates denolet has no
 * behaviour behind.
 */
import { field, type FlagDef } from "./_flag_kit.ts";
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
} as const satisfies Record<string, Gate>;

export type GateName = keyof typeof GATES;

/** Whether `name` is on: as set by the file or the flags, else denolet's default. */
export function featureEnabled(cfg: Pick<AgentConfig, "featureGates">, name: GateName): boolean {
  return cfg.featureGates[name] ?? GATES[name].default;
}

const BOOLS: Record<string, boolean> = {
  "1": true,
  t: true,
  T: true,
  true: true,
  TRUE: true,
  True: true,
  "0": false,
  f: false,
  F: false,
  false: false,
  FALSE: false,
  False: false,
};

/** cliflag's MapStringBool: `Name=bool` pairs, comma-separated, spaces around each part ignored. */
export function parseFeatureGates(raw: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const pair of raw.split(",")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    if (eq < 0) {
      throw new Error(`malformed pair ${JSON.stringify(pair)}, expected Name=true or Name=false`);
    }
    const name = pair.slice(0, eq).trim();
    const value = BOOLS[pair.slice(eq + 1).trim()];
    if (value === undefined) {
      throw new Error(
        `${name}: expected true or false, got ${JSON.stringify(pair.slice(eq + 1).trim())}`,
      );
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
    ". Other gates are accepted with a warning.",
  parse: parseFeatureGates,
  merge: (prev, next) => ({ ...prev, ...next }),
});

/** One warning per gate denolet does not read. `where` names the setting. */
export function unknownGateWarnings(gates: Record<string, boolean>, where: string): string[] {
  return Object.keys(gates)
    .filter((name) => !Object.hasOwn(GATES, name))
    .map((name) => `${where}: feature gate ${name} is not implemented by denolet; ignored`);
}
