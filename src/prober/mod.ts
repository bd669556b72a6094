/**
 * Liveness, readiness and startup probes: `createProbeManager` runs one worker per probe of
 * each running container and reports changed results.
 */
export type { ProbeKind, ProbeManager, ProbeResult, ProbeUpdate } from "./types.ts";
export { createProbeManager, DEFAULT_USER_AGENT, type ProbeManagerDeps } from "./_manager.ts";
export type { ProbeOutcome, ProbeOutput, Prober, ProbeTarget } from "./_prober.ts";
export { ProbeError } from "./_errors.ts";
