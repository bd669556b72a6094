/**
 * Upstream kubelet flags denolet does not implement (names and value types of the v1.37 kubelet,
 * Linux; the Windows-only --windows-service and --windows-priorityclass left out). A unit written
 * for the real kubelet (kubeadm's drop-in, k3s's arguments) must still start, so these parse as
 * upstream's do; what each value then does (accepted at upstream's default, refused otherwise)
 * is decided by the upstream-settings table (`_upstream_check.ts`). Any other unknown name stays
 * an error. A flag denolet implements must not be listed here: a test checks.
 */
import { parseDuration } from "./duration.ts";
import { parseBool, parseInt32 } from "./_values.ts";
import type { FlagDef } from "./_flag_kit.ts";

/** pflag's value kinds, only as far as checking the value goes. */
type Kind = "bool" | "string" | "int32" | "int" | "duration";

const KINDS: Record<string, Kind> = {
  "contention-profiling": "bool",
  "cpu-cfs-quota": "bool",
  "cpu-cfs-quota-period": "duration",
  "cpu-manager-policy": "string",
  "cpu-manager-policy-options": "string",
  "cpu-manager-reconcile-period": "duration",
  "enable-controller-attach-detach": "bool",
  "enable-server": "bool",
  "event-burst": "int32",
  "event-qps": "int32",
  "exit-on-lock-contention": "bool",
  "experimental-allocatable-ignore-eviction": "bool",
  "experimental-mounter-path": "string",
  "fail-cgroupv1": "bool",
  "housekeeping-interval": "duration",
  "hairpin-mode": "string",
  "kernel-memcg-notification": "bool",
  "kube-api-content-type": "string",
  "kubelet-cgroups": "string",
  "lock-file": "string",
  "log-flush-frequency": "duration",
  "log-json-info-buffer-size": "string",
  "log-json-split-stream": "bool",
  "log-text-info-buffer-size": "string",
  "log-text-split-stream": "bool",
  "logging-format": "string",
  "make-iptables-util-chains": "bool",
  "max-open-files": "int",
  "memory-manager-policy": "string",
  "oom-score-adj": "int32",
  "pod-cidr": "string",
  "pods-per-core": "int32",
  "protect-kernel-defaults": "bool",
  "qos-reserved": "string",
  "reserved-cpus": "string",
  "reserved-memory": "string",
  "runonce": "bool",
  "runtime-cgroups": "string",
  "streaming-connection-idle-timeout": "duration",
  "system-cgroups": "string",
  "topology-manager-policy": "string",
  "topology-manager-policy-options": "string",
  "topology-manager-scope": "string",
  "vmodule": "string",
  "volume-plugin-dir": "string",
  "volume-stats-agg-period": "duration",
};

/** Go's int64 flags (--max-open-files): any decimal integer. */
function parseInt64(raw: string): number {
  if (!/^[+-]?\d+$/.test(raw)) throw new Error(`expected an integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

// The value is still type-checked, as pflag would, so a broken unit fails here as it would upstream.
const PARSERS: Record<Kind, (raw: string) => unknown> = {
  bool: parseBool,
  string: (raw) => raw,
  int32: parseInt32,
  int: parseInt64,
  duration: parseDuration,
};

/**
 * The upstream flags as flag definitions: they parse their value and store nothing in the
 * configuration; the parser hands the value to the table.
 */
export const UPSTREAM_FLAGS: ReadonlyMap<string, FlagDef> = new Map(
  Object.entries(KINDS).map(([name, kind]) => [name, {
    name,
    // Only "takes a value or not" matters to the parser; these never appear in --help.
    type: kind === "bool" ? undefined : "string",
    help: "",
    parse: PARSERS[kind],
    apply() {},
  }]),
);
