/**
 * The flags of pod cgroups and garbage collection (kept apart from the main table to keep it
 * short), with their checks. Upstream: --cgroups-per-qos, --cgroup-root, --cgroup-driver,
 * --minimum-container-ttl-duration, --maximum-dead-containers(-per-container),
 * --image-gc-high/low-threshold, --image-minimum-gc-age, --container-log-max-size/-files.
 */
import { ConfigError } from "../util/errors.ts";
import { quantityValue } from "../util/quantity.ts";
import { parseDuration } from "./duration.ts";
import { parseBool, parseInt32 } from "./_values.ts";
import type { FlagDef } from "./_flag_table.ts";
import type { AgentConfig } from "./types.ts";

type Key = keyof AgentConfig;

function flag(
  name: string,
  field: Key,
  type: FlagDef["type"],
  help: string,
  parse: (raw: string) => unknown,
): FlagDef {
  return {
    name,
    field,
    type,
    help,
    parse,
    apply(cfg, value) {
      (cfg as unknown as Record<string, unknown>)[field] = value;
    },
  };
}

/** A byte quantity such as "10Mi" (containerLogMaxSize). */
export function parseByteQuantity(raw: string): number {
  const n = quantityValue(raw, { field: "quantity" });
  if (n < 0) throw new Error(`must not be negative, got ${JSON.stringify(raw)}`);
  return n;
}

export const GC_FLAGS: readonly FlagDef[] = [
  flag(
    "cgroups-per-qos",
    "cgroupsPerQOS",
    undefined,
    "Put each pod in its own cgroup under kubepods[/burstable|/besteffort] with its summed " +
      "requests and limits.",
    parseBool,
  ),
  flag(
    "cgroup-root",
    "cgroupRoot",
    "string",
    "Cgroup under which the kubepods hierarchy is created.",
    (raw) => raw,
  ),
  flag(
    "cgroup-driver",
    "cgroupDriver",
    "string",
    "How cgroups are managed: cgroupfs, or systemd (slices through the system D-Bus). A runtime " +
      "that serves CRI RuntimeConfig (containerd 2) decides instead.",
    (raw) => raw,
  ),
  flag(
    "minimum-container-ttl-duration",
    "minimumContainerTTLDurationMs",
    "duration",
    "How long a dead container is kept at least before it may be garbage collected.",
    parseDuration,
  ),
  flag(
    "maximum-dead-containers-per-container",
    "maxPerPodContainerCount",
    "int32",
    "Dead instances kept per container (the newest ones); negative keeps them all.",
    parseInt32,
  ),
  flag(
    "maximum-dead-containers",
    "maxContainerCount",
    "int32",
    "Dead containers kept on the node in total; negative means no limit.",
    parseInt32,
  ),
  flag(
    "image-gc-high-threshold",
    "imageGCHighThresholdPercent",
    "int32",
    "Image disk usage percentage that starts image garbage collection; 100 turns it off.",
    parseInt32,
  ),
  flag(
    "image-gc-low-threshold",
    "imageGCLowThresholdPercent",
    "int32",
    "Image disk usage percentage image garbage collection frees down to.",
    parseInt32,
  ),
  flag(
    "image-minimum-gc-age",
    "imageMinimumGCAgeMs",
    "duration",
    "How long an unused image is kept at least after it was first seen.",
    parseDuration,
  ),
  flag(
    "minimum-image-ttl-duration",
    "imageMinimumGCAgeMs",
    "duration",
    "Upstream's name for --image-minimum-gc-age.",
    parseDuration,
  ),
  flag(
    "container-log-max-size",
    "containerLogMaxSizeBytes",
    "string",
    "Size (a quantity such as 10Mi) at which a container's log is rotated.",
    parseByteQuantity,
  ),
  flag(
    "container-log-max-files",
    "containerLogMaxFiles",
    "int32",
    "Log files kept per container, the current one included (at least 2).",
    parseInt32,
  ),
];

/** Checks the values upstream rejects at startup; `where` names the flag or field. */
export function validateGC(cfg: AgentConfig, where: (key: Key) => string): void {
  const bad = (key: Key, msg: string) => {
    throw new ConfigError(where(key), msg);
  };
  if (cfg.cgroupDriver !== "cgroupfs" && cfg.cgroupDriver !== "systemd") {
    bad(
      "cgroupDriver",
      `unknown cgroup driver ${JSON.stringify(cfg.cgroupDriver)}; use cgroupfs or systemd`,
    );
  }
  // Upstream's default is "" (the root); given explicitly it means the same.
  if (cfg.cgroupRoot === "") cfg.cgroupRoot = "/";
  if (!cfg.cgroupRoot.startsWith("/")) bad("cgroupRoot", "must be an absolute cgroup path");
  for (const key of ["imageGCHighThresholdPercent", "imageGCLowThresholdPercent"] as const) {
    if (cfg[key] < 0 || cfg[key] > 100) bad(key, `${cfg[key]} must be between 0 and 100`);
  }
  if (cfg.imageGCLowThresholdPercent > cfg.imageGCHighThresholdPercent) {
    bad(
      "imageGCLowThresholdPercent",
      `${cfg.imageGCLowThresholdPercent} must not be greater than imageGCHighThresholdPercent ` +
        `(${cfg.imageGCHighThresholdPercent})`,
    );
  }
  if (cfg.containerLogMaxFiles < 2) bad("containerLogMaxFiles", "must be at least 2");
  if (cfg.minimumContainerTTLDurationMs < 0) {
    bad("minimumContainerTTLDurationMs", "must not be negative");
  }
  if (cfg.imageMinimumGCAgeMs < 0) bad("imageMinimumGCAgeMs", "must not be negative");
  if (cfg.containerLogMonitorIntervalMs < 3000) {
    bad("containerLogMonitorIntervalMs", "must be at least 3s");
  }
}
