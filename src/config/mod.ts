/**
 * Configuration: kubelet-compatible command-line flags and the KubeletConfiguration file,
 * merged as upstream does (defaults < --config file < flags) into an AgentConfig.
 */
export type { AgentConfig, ShutdownGracePeriodByPodPriority } from "./types.ts";
export { featureEnabled } from "./_feature_gates.ts";
export { gracefulShutdownConfigured } from "./_shutdown_fields.ts";
export { loadConfig, type LoadDeps, type LoadResult } from "./load.ts";
export { DurationSyntaxError, formatDuration, parseDuration } from "./duration.ts";
export { helpText, versionText } from "./help.ts";
export { configDocument } from "./_document.ts";
