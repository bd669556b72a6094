/**
 * The `apiserver` check of `/healthz` (denolet's own, on with the checkpoint): it fails while the
 * agent does not know which pods the cluster wants on this node, that is, no list of them has
 * succeeded since the start and there is no checkpoint to run instead, and says why. An API
 * server that goes away once the pods are known is an outage the node rides out (pods run,
 * statuses wait), not a failure, and leaves the check passing: a supervisor that restarts
 * unhealthy agents would otherwise restart a working node in a loop for as long as the uplink
 * is down.
 */
import type { HealthCheck } from "../kubelet/mod.ts";
import type { ApiSourceState } from "../sources/api_source.ts";

export const API_SERVER_CHECK = "apiserver";

export function apiServerCheck(
  state: ApiSourceState,
  ctx: { server: string; nodeName: string },
): HealthCheck {
  if (state.listed || state.fromCheckpoint) return { name: API_SERVER_CHECK, ok: true };
  const what = `the pods bound to node ${JSON.stringify(ctx.nodeName)}`;
  return {
    name: API_SERVER_CHECK,
    ok: false,
    message: state.lastListError === undefined
      ? `waiting for the first list of ${what} from the API server at ${ctx.server}`
      : `cannot list ${what} from the API server at ${ctx.server}: ${state.lastListError}; ` +
        "no checkpoint of them to run meanwhile (static pods run); retrying",
  };
}
