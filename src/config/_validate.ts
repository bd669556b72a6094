/**
 * Validation of the merged configuration (upstream validates after flags are applied, so a bad
 * file value overridden by a flag is not an error). Messages name where the bad value came from:
 * the flag as written, `file: field`, or the field and flag when it is a default.
 */
import { posix } from "node:path";
import { ConfigError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { checkHeaderName, checkHeaderValue, isIPAddress } from "./_values.ts";
import { formatDuration } from "./duration.ts";
import type { AgentConfig } from "./types.ts";
import { parseThresholdConfig } from "../eviction/thresholds.ts";
import { validateGC } from "./_gc_flags.ts";
import { validateImages } from "./_image_flags.ts";
import { validateResources } from "./_resource_flags.ts";
import { validateShutdown } from "./_shutdown_fields.ts";
import { validateCluster } from "./_cluster_flags.ts";
import { validateServer } from "./_server_flags.ts";
import { isIPv4 } from "node:net";
import { allowlistProblem } from "../admission/sysctls.ts";
import { normalizeSysctlName } from "../runtime/_sysctls.ts";
import { featureEnabled } from "./_feature_gates.ts";

/** How to name a field whose value is a default (or derived, like the node name). */
const DEFAULT_NAMES: Partial<Record<keyof AgentConfig, string>> = {
  evictionHard: "evictionHard (default; --eviction-hard)",
  evictionPressureTransitionPeriodMs:
    "evictionPressureTransitionPeriod (--eviction-pressure-transition-period)",
  nodeName: "node name (from the hostname; set --hostname-override)",
  syncFrequencyMs: "syncFrequency (--sync-frequency)",
  maxPods: "maxPods (--max-pods)",
  nodeStatusReportFrequencyMs: "nodeStatusReportFrequency",
  nodeLeaseDurationSeconds: "nodeLeaseDurationSeconds",
  fileCheckFrequencyMs: "fileCheckFrequency (--file-check-frequency)",
  httpCheckFrequencyMs: "httpCheckFrequency (--http-check-frequency)",
  runtimeRequestTimeoutMs: "runtimeRequestTimeout (--runtime-request-timeout)",
};

/** RFC 1123 subdomain, what the API server requires of a node name. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Checks `cfg` and normalizes it in place (bare socket paths become `unix://` endpoints).
 * Returns warnings; throws ConfigError for the first invalid field.
 */
export function validateConfig(
  cfg: AgentConfig,
  origin: ReadonlyMap<keyof AgentConfig, string>,
): string[] {
  const warnings: string[] = [];
  const where = (key: keyof AgentConfig) => origin.get(key) ?? DEFAULT_NAMES[key] ?? key;
  const bad = (key: keyof AgentConfig, message: string): never => {
    throw new ConfigError(where(key), message);
  };

  for (const key of ["port", "readOnlyPort", "healthzPort"] as const) {
    if (cfg[key] < 0 || cfg[key] > 65535) {
      bad(key, `${cfg[key]} must be between 0 and 65535 (0 disables it)`);
    }
  }
  if (cfg.maxPods < 0) bad("maxPods", `${cfg.maxPods} must not be a negative number`);
  if (cfg.port !== 0 && cfg.port === cfg.readOnlyPort) {
    bad("readOnlyPort", `${cfg.readOnlyPort} is also the port of the authenticated server`);
  }

  const frequencies = [
    "syncFrequencyMs",
    "fileCheckFrequencyMs",
    "httpCheckFrequencyMs",
    "runtimeRequestTimeoutMs",
  ] as const;
  for (const key of frequencies) {
    if (!(cfg[key] > 0)) bad(key, `${formatDuration(cfg[key])} must be greater than zero`);
  }

  const endpoint = (key: "containerRuntimeEndpoint" | "imageServiceEndpoint") => {
    try {
      const { value, warning } = normalizeEndpoint(cfg[key]);
      cfg[key] = value;
      if (warning) warnings.push(`${where(key)}: ${warning}`);
    } catch (e) {
      throw new ConfigError(where(key), errorMessage(e), { cause: e });
    }
  };
  if (cfg.containerRuntimeEndpoint === "") bad("containerRuntimeEndpoint", "must not be empty");
  endpoint("containerRuntimeEndpoint");
  if (cfg.imageServiceEndpoint !== "") endpoint("imageServiceEndpoint");

  for (const key of ["rootDir", "podLogsDir"] as const) {
    if (!posix.isAbsolute(cfg[key])) {
      bad(key, `${JSON.stringify(cfg[key])} must be an absolute path`);
    }
  }

  if (cfg.staticPodURL !== "") {
    const url = URL.parse(cfg.staticPodURL);
    if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
      bad("staticPodURL", `${JSON.stringify(cfg.staticPodURL)} must be an http:// or https:// URL`);
    }
  }
  for (const [name, values] of Object.entries(cfg.staticPodURLHeader)) {
    try {
      checkHeaderName(name);
      values.forEach(checkHeaderValue);
    } catch (e) {
      throw new ConfigError(where("staticPodURLHeader"), errorMessage(e), { cause: e });
    }
  }

  for (const key of ["address", "healthzBindAddress"] as const) {
    if (!isIPAddress(cfg[key])) bad(key, `${JSON.stringify(cfg[key])} is not an IP address`);
  }
  if (cfg.nodeIP !== "") {
    const ips = cfg.nodeIP.split(",").map((s) => s.trim());
    const invalid = ips.find((ip) => !isIPAddress(ip));
    if (invalid !== undefined) bad("nodeIP", `${JSON.stringify(invalid)} is not an IP address`);
    if (ips.length > 2 || (ips.length === 2 && isIPv4(ips[0]) === isIPv4(ips[1]))) {
      bad("nodeIP", "expected one IP address or a dual-stack pair (one IPv4, one IPv6)");
    }
  }
  validateSysctls(cfg, bad);
  validateUserNamespaces(cfg, bad);
  cfg.clusterDNS.forEach((ip) => {
    if (!isIPAddress(ip)) bad("clusterDNS", `${JSON.stringify(ip)} is not an IP address`);
  });
  if (/\s/.test(cfg.clusterDomain)) {
    bad("clusterDomain", `${JSON.stringify(cfg.clusterDomain)} must not contain whitespace`);
  }

  validateEviction(cfg, where);
  validateGC(cfg, where);
  validateImages(cfg, { where, isSet: (key) => origin.has(key) });
  validateResources(cfg, where);
  validateShutdown(cfg, where);
  validateCluster(cfg, where);
  // Upstream ignores it too: without --kubeconfig the kubelet is standalone.
  if (cfg.bootstrapKubeconfig !== "" && cfg.kubeconfig === "") {
    warnings.push(`${where("bootstrapKubeconfig")}: has no effect without --kubeconfig`);
  }
  warnings.push(...validateServer(cfg, where));

  if (cfg.nodeName === "") bad("nodeName", "must not be empty");
  if (cfg.nodeName.length > 253 || !DNS_SUBDOMAIN.test(cfg.nodeName)) {
    bad(
      "nodeName",
      `${JSON.stringify(cfg.nodeName)} is not a valid node name (lowercase RFC 1123 subdomain: ` +
        "letters, digits, '-' and '.')",
    );
  }
  return warnings;
}

/** Parses the eviction thresholds now so a bad one fails at startup, naming its flag or field. */
function validateEviction(cfg: AgentConfig, where: (key: keyof AgentConfig) => string): void {
  parseThresholdConfig({
    hard: cfg.evictionHard,
    soft: cfg.evictionSoft,
    softGracePeriod: cfg.evictionSoftGracePeriod,
    minimumReclaim: cfg.evictionMinimumReclaim,
  }, {
    names: {
      hard: where("evictionHard"),
      soft: where("evictionSoft"),
      softGracePeriod: where("evictionSoftGracePeriod"),
      minimumReclaim: where("evictionMinimumReclaim"),
    },
  });
  if (cfg.evictionPressureTransitionPeriodMs < 0) {
    throw new ConfigError(
      where("evictionPressureTransitionPeriodMs"),
      `${formatDuration(cfg.evictionPressureTransitionPeriodMs)} must not be negative`,
    );
  }
  if (cfg.evictionMaxPodGracePeriod < 0) {
    throw new ConfigError(
      where("evictionMaxPodGracePeriod"),
      `${cfg.evictionMaxPodGracePeriod} must not be negative`,
    );
  }
}

/**
 * CRI endpoints on Linux are unix sockets. A bare absolute path is accepted with a warning, as
 * upstream does (falling back to the unix protocol); tcp:// and npipe:// are Windows-only upstream.
 */
export function normalizeEndpoint(raw: string): { value: string; warning?: string } {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(raw)?.[1];
  if (scheme === undefined) {
    if (posix.isAbsolute(raw)) {
      return {
        value: `unix://${raw}`,
        warning: `a bare socket path is deprecated; use "unix://${raw}"`,
      };
    }
    throw new Error(`${JSON.stringify(raw)} must be a unix:// endpoint, e.g. "unix:///run/x.sock"`);
  }
  if (scheme !== "unix") {
    throw new Error(
      `${JSON.stringify(raw)}: only unix:// endpoints are supported on Linux (${scheme}:// is not)`,
    );
  }
  const path = raw.slice("unix://".length);
  if (!posix.isAbsolute(path)) {
    throw new Error(`${JSON.stringify(raw)} must name an absolute socket path ("unix:///...")`);
  }
  return { value: raw };
}

/** userNamespaces.idsPerPod, as upstream's config validation (its messages). */
function validateUserNamespaces(
  cfg: AgentConfig,
  bad: (key: keyof AgentConfig, message: string) => never,
): void {
  const ids = cfg.userNamespacesIdsPerPod;
  const unit = 65536;
  if (ids < unit) bad("userNamespacesIdsPerPod", `must not be less than ${unit}`);
  if (ids % unit !== 0) bad("userNamespacesIdsPerPod", `must be a multiple of ${unit}`);
  if (ids > 2 ** 32 - 1) bad("userNamespacesIdsPerPod", `must not be more than ${2 ** 32 - 1}`);
}

/** allowedUnsafeSysctls patterns and defaultPodSysctls names, as upstream's config validation. */
function validateSysctls(
  cfg: AgentConfig,
  bad: (key: keyof AgentConfig, message: string) => never,
): void {
  const problem = allowlistProblem(cfg.allowedUnsafeSysctls);
  if (problem) bad("allowedUnsafeSysctls", problem);
  const names = Object.keys(cfg.defaultPodSysctls);
  if (names.length === 0) return;
  if (!featureEnabled(cfg, "DefaultPodSysctls")) {
    bad(
      "defaultPodSysctls",
      "the DefaultPodSysctls feature gate is required for defaultPodSysctls",
    );
  }
  const seen = new Set<string>();
  for (const raw of names) {
    const name = normalizeSysctlName(raw);
    const why = raw.includes("*") ? "patterns are not allowed here" : allowlistProblem([raw]);
    if (why) bad("defaultPodSysctls", `${JSON.stringify(raw)}: ${why}`);
    if (seen.has(name)) bad("defaultPodSysctls", `duplicate sysctl ${JSON.stringify(name)}`);
    seen.add(name);
  }
}
