/**
 * The flags and file fields of what pods may use beyond cpu and memory requests (kept apart from
 * the main table to keep it short), with their defaults and checks. Upstream: --pod-max-pids /
 * podPidsLimit, --enforce-node-allocatable, --kube-reserved-cgroup, --system-reserved-cgroup,
 * --local-storage-capacity-isolation, --fail-swap-on / failSwapOn, memorySwap.swapBehavior.
 */
import { ConfigError } from "../util/errors.ts";
import { field, scalar } from "./_flag_kit.ts";
import type { FlagDef } from "./_flag_kit.ts";
import { parseBool, parseList } from "./_values.ts";
import type { AgentConfig } from "./types.ts";

export type ResourceKey =
  | "podPidsLimit"
  | "enforceNodeAllocatable"
  | "kubeReservedCgroup"
  | "systemReservedCgroup"
  | "localStorageCapacityIsolation"
  | "failSwapOn"
  | "memorySwapBehavior";

/** The defaults (upstream's v1beta1 defaults; the flag defaults are the same). */
export function resourceDefaults(): Pick<AgentConfig, ResourceKey> {
  return {
    podPidsLimit: -1,
    enforceNodeAllocatable: ["pods"],
    kubeReservedCgroup: "",
    systemReservedCgroup: "",
    localStorageCapacityIsolation: true,
    failSwapOn: true,
    memorySwapBehavior: "",
  };
}

const PODS = "pods";
const SYSTEM_RESERVED = "system-reserved";
const SYSTEM_RESERVED_COMPRESSIBLE = "system-reserved-compressible";
const KUBE_RESERVED = "kube-reserved";
const KUBE_RESERVED_COMPRESSIBLE = "kube-reserved-compressible";
const NONE = "none";
const ENFORCEMENTS = [
  PODS,
  SYSTEM_RESERVED,
  SYSTEM_RESERVED_COMPRESSIBLE,
  KUBE_RESERVED,
  KUBE_RESERVED_COMPRESSIBLE,
  NONE,
];
const FLAG_NAME = "enforceNodeAllocatable (--enforce-node-allocatable)";

/** Go's int64 flags: any decimal integer JS holds exactly. */
export function parseInt64(raw: string): number {
  if (!/^[+-]?\d+$/.test(raw)) throw new Error(`expected an integer, got ${JSON.stringify(raw)}`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${raw} is out of range`);
  return n;
}

/** In help order. */
export const RESOURCE_FLAGS: readonly FlagDef[] = [
  scalar(
    "pod-max-pids",
    "podPidsLimit",
    "int",
    "Maximum number of processes (pids.max) of each pod's cgroup; -1 leaves pods bounded by " +
      "the node's pid capacity only.",
    parseInt64,
  ),
  field({
    name: "enforce-node-allocatable",
    field: "enforceNodeAllocatable",
    type: "strings",
    help: "What node allocatable is enforced on (comma-separated): 'pods' sizes the kubepods " +
      "cgroup to capacity less --kube-reserved and --system-reserved; 'kube-reserved' and " +
      "'system-reserved' write those reservations as the limits of --kube-reserved-cgroup and " +
      "--system-reserved-cgroup ('-compressible': cpu only); 'none' or empty: nothing.",
    parse: parseList,
    merge: (prev, next, first) => (first ? next : [...prev, ...next]),
  }),
  scalar(
    "kube-reserved-cgroup",
    "kubeReservedCgroup",
    "string",
    "Absolute name of the existing cgroup of the Kubernetes daemons (e.g. /kube-reserved), " +
      "limited to --kube-reserved when --enforce-node-allocatable has kube-reserved.",
    (raw) => raw,
  ),
  scalar(
    "system-reserved-cgroup",
    "systemReservedCgroup",
    "string",
    "Absolute name of the existing cgroup of the system daemons (e.g. /system.slice), limited " +
      "to --system-reserved when --enforce-node-allocatable has system-reserved.",
    (raw) => raw,
  ),
  scalar(
    "local-storage-capacity-isolation",
    "localStorageCapacityIsolation",
    undefined,
    "Evict pods that outgrow an emptyDir sizeLimit or their ephemeral-storage limits, and " +
      "report the node's ephemeral-storage capacity. false: neither.",
    parseBool,
  ),
  scalar(
    "fail-swap-on",
    "failSwapOn",
    undefined,
    "Refuse to start while swap is on. false: start anyway; containers then get swap as " +
      "memorySwap.swapBehavior says (NoSwap by default).",
    parseBool,
  ),
];

/** memorySwap.swapBehavior values upstream accepts ("" means NoSwap). */
export const SWAP_BEHAVIORS = ["", "LimitedSwap", "NoSwap"] as const;

/**
 * Checks the values upstream's ValidateKubeletConfiguration rejects, in its words; `where` names
 * the flag or field. Throws ConfigError.
 */
export function validateResources(
  cfg: AgentConfig,
  where: (key: keyof AgentConfig) => string,
): void {
  const bad = (key: keyof AgentConfig, msg: string): never => {
    throw new ConfigError(where(key), `invalid configuration: ${msg}`);
  };
  const enforce = cfg.enforceNodeAllocatable;
  for (
    const [a, b] of [[SYSTEM_RESERVED, SYSTEM_RESERVED_COMPRESSIBLE], [
      KUBE_RESERVED,
      KUBE_RESERVED_COMPRESSIBLE,
    ]]
  ) {
    if (enforce.includes(a) && enforce.includes(b)) {
      bad(
        "enforceNodeAllocatable",
        `both ${JSON.stringify(a)} and ${JSON.stringify(b)} cannot be specified together in ` +
          FLAG_NAME,
      );
    }
  }
  const seen = new Set<string>();
  for (const key of enforce) {
    if (seen.has(key)) {
      bad(
        "enforceNodeAllocatable",
        `duplicated enforcements ${JSON.stringify(key)} in ${FLAG_NAME}`,
      );
    }
    seen.add(key);
    if (!ENFORCEMENTS.includes(key)) {
      bad(
        "enforceNodeAllocatable",
        `option ${JSON.stringify(key)} specified for ${FLAG_NAME}. Valid options are ` +
          `${ENFORCEMENTS.slice(0, -1).map((k) => JSON.stringify(k)).join(", ")} or "none"`,
      );
    }
    if (key === NONE) {
      if (enforce.length > 1) {
        bad(
          "enforceNodeAllocatable",
          `${FLAG_NAME} may not contain additional enforcements when "none" is specified`,
        );
      }
      continue;
    }
    if (key.startsWith("system-reserved") && cfg.systemReservedCgroup === "") {
      bad(
        "systemReservedCgroup",
        `systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" ` +
          `or "system-reserved-compressible" included in ${FLAG_NAME}`,
      );
    }
    if (key.startsWith("kube-reserved") && cfg.kubeReservedCgroup === "") {
      bad(
        "kubeReservedCgroup",
        `kubeReservedCgroup (--kube-reserved-cgroup) must be specified when "kube-reserved" ` +
          `or "kube-reserved-compressible" included in ${FLAG_NAME}`,
      );
    }
    if (!cfg.cgroupsPerQOS) {
      bad(
        "cgroupsPerQOS",
        `cgroupsPerQOS (--cgroups-per-qos) must be set to true when ${JSON.stringify(key)} ` +
          `contained in ${FLAG_NAME}`,
      );
    }
  }
  if (!(SWAP_BEHAVIORS as readonly string[]).includes(cfg.memorySwapBehavior)) {
    bad(
      "memorySwapBehavior",
      `memorySwap.swapBehavior ${JSON.stringify(cfg.memorySwapBehavior)} must be one of: "", ` +
        `"LimitedSwap" or "NoSwap"`,
    );
  }
  for (const key of ["kubeReservedCgroup", "systemReservedCgroup"] as const) {
    if (cfg[key] !== "" && !cfg[key].startsWith("/")) {
      bad(
        key,
        `${JSON.stringify(cfg[key])} must be an absolute cgroup name, such as /kube-reserved`,
      );
    }
  }
}

export type FieldReader<Ctx> = (value: unknown, ctx: Ctx, path: string) => void;

type KeyOf<T> = { [K in ResourceKey]: AgentConfig[K] extends T ? K : never }[ResourceKey];

/** What the config-file reader lends to the readers below (no import cycle). */
export interface ResourceFileKit<Ctx> {
  int64(key: KeyOf<number>): FieldReader<Ctx>;
  bool(key: KeyOf<boolean>): FieldReader<Ctx>;
  struct(members: Record<string, FieldReader<Ctx>>): FieldReader<Ctx>;
  str(key: KeyOf<string>): FieldReader<Ctx>;
  stringList(key: KeyOf<string[]>): FieldReader<Ctx>;
}

/** The KubeletConfiguration fields, by upstream JSON name. */
export function resourceFileFields<Ctx>(
  k: ResourceFileKit<Ctx>,
): Record<string, FieldReader<Ctx>> {
  return {
    // A pointer upstream: 0 is kept (and, as upstream, means no pod limit, like -1).
    podPidsLimit: k.int64("podPidsLimit"),
    // A list given, even empty, replaces the default (only a missing one is defaulted).
    enforceNodeAllocatable: k.stringList("enforceNodeAllocatable"),
    kubeReservedCgroup: k.str("kubeReservedCgroup"),
    systemReservedCgroup: k.str("systemReservedCgroup"),
    localStorageCapacityIsolation: k.bool("localStorageCapacityIsolation"),
    failSwapOn: k.bool("failSwapOn"),
    memorySwap: k.struct({ swapBehavior: k.str("memorySwapBehavior") }),
  };
}
