/**
 * The flags of the API-server mode (kept apart from the main table to keep it short): how the
 * agent reaches the cluster, how it registers its Node, and what it keeps back from pods.
 */
import { ConfigError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { parseQuantity } from "../util/quantity.ts";
import { formatDuration, parseDuration } from "./duration.ts";
import { parseSeparatedMap } from "./_eviction_flags.ts";
import { parseBool, parseInt32 } from "./_values.ts";
import { type FlagDef, mapFlag, scalar } from "./_flag_kit.ts";
import type { AgentConfig, Taint } from "./types.ts";

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/**
 * `--register-with-taints` syntax (upstream ParseTaints): comma-separated `key=value:Effect` or
 * `key:Effect`.
 */
export function parseTaints(raw: string): Taint[] {
  const out: Taint[] = [];
  for (const item of raw.split(",")) {
    if (item.trim() === "") continue;
    const colon = item.lastIndexOf(":");
    if (colon < 0) {
      throw new Error(`invalid taint spec ${JSON.stringify(item)}: expect key=value:Effect`);
    }
    const effect = item.slice(colon + 1).trim();
    const kv = item.slice(0, colon).trim();
    const eq = kv.indexOf("=");
    const key = eq < 0 ? kv : kv.slice(0, eq);
    const value = eq < 0 ? undefined : kv.slice(eq + 1);
    out.push(checkTaint({ key, value, effect }));
  }
  return out;
}

/** Throws unless the taint has a key and one of the three effects. */
export function checkTaint(t: Taint): Taint {
  if (!t.key) throw new Error("a taint needs a key");
  if (!TAINT_EFFECTS.includes(t.effect)) {
    throw new Error(
      `invalid taint effect ${JSON.stringify(t.effect)}: must be one of ${
        TAINT_EFFECTS.join(", ")
      }`,
    );
  }
  return t.value === undefined || t.value === "" ? { key: t.key, effect: t.effect } : t;
}

/** A `key=value,...` map flag. */
function pairsFlag(name: string, key: Parameters<typeof mapFlag>[1], help: string): FlagDef {
  return mapFlag(name, key, help, (raw) => parseSeparatedMap(raw, "="));
}

/** In help order (alphabetical, like the main table). */
export const CLUSTER_FLAGS: readonly FlagDef[] = [
  scalar(
    "api-checkpoint",
    "apiCheckpoint",
    undefined,
    "denolet only: with --kubeconfig, keep the pods bound to this node and the ConfigMaps, " +
      "Secrets and tokens they use under <root-dir>/checkpoint, and run them when the agent " +
      "starts while the API server cannot be reached. false: as upstream, only static pods " +
      "run without the API server (and an existing checkpoint is removed).",
    parseBool,
  ),
  scalar(
    "kube-api-burst",
    "kubeAPIBurst",
    "int32",
    "Burst of requests to the API server above --kube-api-qps.",
    parseInt32,
  ),
  scalar(
    "kube-api-qps",
    "kubeAPIQPS",
    "int32",
    "Requests per second to the API server (0: no limit).",
    parseInt32,
  ),
  pairsFlag(
    "kube-reserved",
    "kubeReserved",
    "Resources kept back for Kubernetes system daemons, as name=quantity pairs " +
      "(cpu, memory, ephemeral-storage, pid), taken off the node's allocatable.",
  ),
  scalar(
    "kubeconfig",
    "kubeconfig",
    "string",
    "kubeconfig file to reach the API server with. Given, the agent joins the cluster as a " +
      "node; without it the agent runs static pods only.",
    (raw) => raw,
  ),
  pairsFlag(
    "node-labels",
    "nodeLabels",
    "Labels added when the node registers, as key=value pairs.",
  ),
  scalar(
    "node-status-update-frequency",
    "nodeStatusUpdateFrequencyMs",
    "duration",
    "How often the node status is computed and, when it changed, posted to the API server.",
    parseDuration,
  ),
  scalar(
    "register-node",
    "registerNode",
    undefined,
    "Register the node with the API server (with --kubeconfig).",
    parseBool,
  ),
  scalar(
    "register-with-taints",
    "registerWithTaints",
    "string",
    "Taints the node registers with, as key=value:Effect (comma-separated).",
    parseTaints,
  ),
  pairsFlag(
    "system-reserved",
    "systemReserved",
    "Resources kept back for the operating system's daemons, as name=quantity pairs " +
      "(cpu, memory, ephemeral-storage, pid), taken off the node's allocatable.",
  ),
];

const RESERVABLE = new Set(["cpu", "memory", "ephemeral-storage", "pid"]);
/** Label keys: an optional DNS subdomain prefix and a name of at most 63 characters. */
const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const LABEL_VALUE = /^(([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Checks the API-mode settings; throws ConfigError naming the flag or field. */
export function validateCluster(cfg: AgentConfig, where: (key: keyof AgentConfig) => string): void {
  const bad = (key: keyof AgentConfig, msg: string): never => {
    throw new ConfigError(where(key), msg);
  };
  for (const key of ["nodeStatusUpdateFrequencyMs", "nodeStatusReportFrequencyMs"] as const) {
    if (!(cfg[key] > 0)) bad(key, `${formatDuration(cfg[key])} must be greater than zero`);
  }
  if (cfg.nodeLeaseDurationSeconds <= 0) {
    bad("nodeLeaseDurationSeconds", `${cfg.nodeLeaseDurationSeconds} must be greater than zero`);
  }
  if (cfg.nodeStatusMaxImages < -1) {
    bad("nodeStatusMaxImages", `${cfg.nodeStatusMaxImages} must be -1 (no limit) or more`);
  }
  if (cfg.kubeAPIQPS < 0) bad("kubeAPIQPS", `${cfg.kubeAPIQPS} must not be a negative number`);
  if (cfg.kubeAPIBurst < 0) {
    bad("kubeAPIBurst", `${cfg.kubeAPIBurst} must not be a negative number`);
  }
  for (const key of ["kubeReserved", "systemReserved"] as const) {
    for (const [name, value] of Object.entries(cfg[key])) {
      if (!RESERVABLE.has(name)) {
        bad(
          key,
          `unsupported resource ${JSON.stringify(name)}: use cpu, memory, ephemeral-storage or pid`,
        );
      }
      try {
        if (parseQuantity(value) < 0) throw new Error("must not be negative");
      } catch (e) {
        bad(key, `${name}=${value}: ${errorMessage(e)}`);
      }
    }
  }
  for (const [k, v] of Object.entries(cfg.nodeLabels)) {
    const slash = k.lastIndexOf("/");
    const prefix = slash < 0 ? undefined : k.slice(0, slash);
    const name = slash < 0 ? k : k.slice(slash + 1);
    const prefixOk = prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
    if (!prefixOk || !LABEL_NAME.test(name)) {
      bad("nodeLabels", `invalid label key ${JSON.stringify(k)}`);
    }
    if (prefix !== undefined && isForbiddenNodeLabel(prefix, k)) {
      bad(
        "nodeLabels",
        `unknown 'kubernetes.io' or 'k8s.io' label ${
          JSON.stringify(k)
        }: the API server refuses a ` +
          "node registering with it; allowed are the well-known topology and instance labels and " +
          "the kubelet.kubernetes.io/ and node.kubernetes.io/ namespaces",
      );
    }
    if (!LABEL_VALUE.test(v)) {
      bad("nodeLabels", `invalid label value ${JSON.stringify(v)} for ${k}`);
    }
  }
}

/** Labels of the kubernetes.io and k8s.io namespaces a node may set on itself (upstream kubeletapis). */
const KNOWN_NODE_LABELS = new Set([
  "kubernetes.io/hostname",
  "kubernetes.io/os",
  "kubernetes.io/arch",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/arch",
  "beta.kubernetes.io/instance-type",
  "node.kubernetes.io/instance-type",
  "failure-domain.beta.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "topology.kubernetes.io/zone",
]);
const ALLOWED_NODE_LABEL_NAMESPACES = ["kubelet.kubernetes.io", "node.kubernetes.io"];

/** NodeRestriction would refuse the registration: a kubernetes.io/k8s.io label not on the list. */
function isForbiddenNodeLabel(prefix: string, key: string): boolean {
  const inK8s = (ns: string) => prefix === ns || prefix.endsWith(`.${ns}`);
  if (!inK8s("kubernetes.io") && !inK8s("k8s.io")) return false;
  if (KNOWN_NODE_LABELS.has(key)) return false;
  return !ALLOWED_NODE_LABEL_NAMESPACES.some((ns) => prefix === ns || prefix.endsWith(`.${ns}`));
}
