/**
 * The secrets a CSI volume names (nodeStageSecretRef, nodePublishSecretRef), read from the API
 * server when the volume is staged or published and handed to the driver in the request's
 * `secrets`, as upstream's getCredentialsFromSecret does: every data key, its bytes as a
 * string. Nothing is cached or written to disk; the Node authorizer lets the node read only
 * secrets its pods' volumes name.
 */
import { type ApiClient, ApiError } from "../apiclient/types.ts";
import { errorMessage } from "../util/log.ts";
import { PluginCsiError } from "./_errors.ts";

export interface SecretRef {
  name?: string;
  namespace?: string;
}

/**
 * The secret's data for the driver. Throws a PluginCsiError with upstream's text
 * (`fetching NodeStageSecretRef ns/name failed: ...`) under `operation` when it cannot be read.
 */
export async function csiSecrets(
  client: ApiClient,
  ref: SecretRef,
  opts: {
    field: "NodeStageSecretRef" | "NodePublishSecretRef";
    operation: string;
    signal?: AbortSignal;
  },
): Promise<Record<string, string>> {
  const name = ref.name ?? "";
  const ns = ref.namespace ?? "";
  let secret: { data?: Record<string, string> };
  try {
    secret = await client.request({
      method: "GET",
      path: `/api/v1/namespaces/${encodeURIComponent(ns)}/secrets/${encodeURIComponent(name)}`,
    }, { signal: opts.signal });
  } catch (err) {
    opts.signal?.throwIfAborted();
    const why = err instanceof ApiError && err.status === 404
      ? `secrets ${JSON.stringify(name)} not found`
      : errorMessage(err);
    throw new PluginCsiError(
      `fetching ${opts.field} ${ns}/${name} failed: kubernetes.io/csi: failed to find the secret ${name} in the namespace ${ns} with error: ${why}`,
      opts.operation,
      { cause: err },
    );
  }
  const out: Record<string, string> = {};
  const utf8 = new TextDecoder();
  for (const [k, v] of Object.entries(secret.data ?? {})) {
    out[k] = utf8.decode(Uint8Array.from(atob(v), (c) => c.charCodeAt(0)));
  }
  return out;
}
