/**
 * Liveness, readiness and startup probes: `createProbeManager` runs one worker per probe of
 * each running container and reports changed results. The HTTP GET of httpGet probes is also
 * the one lifecycle hooks use (`httpGetRequest`, `httpGet`), as upstream's pkg/probe/http is.
 */
export type { ProbeKind, ProbeManager, ProbeResult, ProbeUpdate, ProbeView } from "./types.ts";
export { createProbeManager, DEFAULT_USER_AGENT, type ProbeManagerDeps } from "./_manager.ts";
export type { ProbeOutcome, ProbeOutput, Prober, ProbeTarget } from "./_prober.ts";
export { ProbeError } from "./_errors.ts";
export {
  httpGet,
  type HttpGetRequest,
  httpGetRequest,
  type HttpGetResult,
  httpGetURL,
  kubeUserAgent,
  MAX_BODY_BYTES,
} from "./_http_get.ts";
export { resolveContainerPort } from "./_port.ts";
