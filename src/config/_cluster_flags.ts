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
import { isForbiddenNodeLabel, isLabelValue, isQualifiedName } from "./_labels.ts";
import { parseTaints } from "./_taints.ts";
import type { AgentConfig } from "./types.ts";

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
    "api-checkpoint-secrets",
    "apiCheckpointSecrets",
    undefined,
    "denolet only: with --api-checkpoint, keep the Secrets and service-account tokens the pods " +
      "use in the checkpoint too (files 0600 in a 0700 directory, readable by root only), so " +
      "their pods start without the API server. false: none are kept on disk (and those kept " +
      "are removed); such pods wait for the API server.",
    parseBool,
  ),
  scalar(
    "cloud-provider",
    "cloudProvider",
    "string",
    "external: a cloud controller manager initializes the Node. It registers with the " +
      "node.cloudprovider.kubernetes.io/uninitialized:NoSchedule taint, --node-ip goes to the " +
      "alpha.kubernetes.io/provided-node-ip annotation, and addresses the controller has set are " +
      "kept. Empty: no cloud provider.",
    (raw) => raw,
  ),
  scalar(
    "bootstrap-kubeconfig",
    "bootstrapKubeconfig",
    "string",
    "kubeconfig whose credentials (a bootstrap token) ask for the client certificate when the " +
      "--kubeconfig file does not exist or its certificate has expired: the key and the issued " +
      "certificate go to --cert-dir (kubelet-client-current.pem), and --kubeconfig is written " +
      "to use them.",
    (raw) => raw,
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
    "node-status-max-images",
    "nodeStatusMaxImages",
    "int32",
    "Images reported in the node status, largest first; -1 reports them all.",
    parseInt32,
  ),
  scalar(
    "node-status-update-frequency",
    "nodeStatusUpdateFrequencyMs",
    "duration",
    "How often the node status is computed and, when it changed, posted to the API server.",
    parseDuration,
  ),
  scalar(
    "provider-id",
    "providerID",
    "string",
    "The Node's spec.providerID, set when the node registers (the cloud's id of the machine).",
    (raw) => raw,
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
  scalar(
    "rotate-certificates",
    "rotateCertificates",
    undefined,
    "Renew the client certificate by asking the API server for a new one (a " +
      "kubernetes.io/kube-apiserver-client-kubelet CSR) as its expiry approaches.",
    parseBool,
  ),
  pairsFlag(
    "system-reserved",
    "systemReserved",
    "Resources kept back for the operating system's daemons, as name=quantity pairs " +
      "(cpu, memory, ephemeral-storage, pid), taken off the node's allocatable.",
  ),
];

const RESERVABLE = new Set(["cpu", "memory", "ephemeral-storage", "pid"]);

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
  if (cfg.cloudProvider !== "" && cfg.cloudProvider !== "external") {
    bad(
      "cloudProvider",
      `cloud provider ${
        JSON.stringify(cfg.cloudProvider)
      } was specified, but built-in cloud providers ` +
        "are disabled. Please set --cloud-provider=external and migrate to an external cloud " +
        "provider",
    );
  }
  for (const [k, v] of Object.entries(cfg.nodeLabels)) {
    if (!isQualifiedName(k)) bad("nodeLabels", `invalid label key ${JSON.stringify(k)}`);
    if (isForbiddenNodeLabel(k)) {
      bad(
        "nodeLabels",
        `unknown 'kubernetes.io' or 'k8s.io' label ${
          JSON.stringify(k)
        }: the API server refuses a ` +
          "node registering with it; allowed are the well-known topology and instance labels and " +
          "the kubelet.kubernetes.io/ and node.kubernetes.io/ namespaces",
      );
    }
    if (!isLabelValue(v)) {
      bad("nodeLabels", `invalid label value ${JSON.stringify(v)} for ${k}`);
    }
  }
}
