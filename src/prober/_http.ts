/**
 * httpGet probes (upstream pkg/probe/http `DoHTTPProbe`): the shared GET of `_http_get.ts`,
 * judged as a probe. 200–399 succeed; a 3xx that was not followed (a redirect to another host)
 * is a success with a warning; anything else, or no answer in time, fails.
 */
import type { V1Container, V1HTTPGetAction } from "@kubernetes/client-node";
import { httpGet, httpGetRequest } from "./_http_get.ts";
import type { ProbeOutput } from "./_prober.ts";

export interface HttpProbeOptions {
  container: Pick<V1Container, "name" | "ports">;
  /** The host when the action names none. */
  podIP: string;
  userAgent: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Throws ProbeError when the port cannot be resolved; the signal's reason when aborted. */
export async function httpProbe(
  action: V1HTTPGetAction,
  opts: HttpProbeOptions,
): Promise<ProbeOutput> {
  const req = httpGetRequest(action, opts);
  const res = await httpGet(req, { signal: opts.signal, timeoutMs: opts.timeoutMs });
  if (res.kind === "failed") return { result: "failure", output: res.message };
  if (res.status >= 200 && res.status < 400) {
    if (res.status >= 300) {
      return {
        result: "warning",
        output: `Probe terminated redirects, Response body: ${res.body}`,
      };
    }
    return { result: "success", output: res.body };
  }
  // Upstream keeps the body out of the failure message (it is user-facing in events).
  return { result: "failure", output: `HTTP probe failed with statuscode: ${res.status}` };
}
