/**
 * The request that deletes a pod for good, as the kubelet's status manager sends it: grace 0
 * and a UID precondition, so a pod recreated under the same name is never the one deleted.
 */
import type { ApiRequest } from "../apiclient/mod.ts";

export function finalDeleteRequest(
  pod: { namespace?: string; name?: string; uid?: string },
): ApiRequest {
  return {
    method: "DELETE",
    path: `/api/v1/namespaces/${pod.namespace}/pods/${pod.name}`,
    body: {
      apiVersion: "v1",
      kind: "DeleteOptions",
      gracePeriodSeconds: 0,
      preconditions: { uid: pod.uid },
    },
  };
}
