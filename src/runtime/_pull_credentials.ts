/**
 * Credentials for a pull and the pull itself with them (upstream imageManager's credential
 * lookup and kuberuntime PullImage): every credential the keyrings hold for the image is tried
 * in order until one pulls; with none, one anonymous pull. The credentials code is loaded only
 * for a pod that names pull secrets or when node-wide keyrings exist.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { ImageService, PodSandboxConfig } from "../cri/types.ts";
import type { Keyring, TrackedAuthConfig } from "../credentials/mod.ts";
import { runtimeErrorText } from "../cri/mod.ts";
import { ImageNameError } from "../util/image_name.ts";
import { DenoletError, isKind, RuntimeUnavailableError } from "../util/errors.ts";
import type { PodPullSecrets } from "./_pull_secrets.ts";

/** The lookup failed: a pull secret that does not decode, an image name that does not parse. */
export class CredentialLookupError extends DenoletError {}

/**
 * The credentials to try for `image` (tag applied): the pod's pull secrets, then `keyrings`.
 * Throws CredentialLookupError with upstream's message when the lookup fails.
 */
export async function lookupCredentials(
  image: string,
  opts: {
    pod: V1Pod;
    secrets?: PodPullSecrets;
    keyrings?: (pod: V1Pod) => Keyring[];
    signal?: AbortSignal;
  },
): Promise<TrackedAuthConfig[]> {
  const others = opts.keyrings?.(opts.pod) ?? [];
  if (!opts.secrets?.named && others.length === 0) return [];
  const secrets = opts.secrets?.named ? await opts.secrets.get({ signal: opts.signal }) : [];
  if (secrets.length === 0 && others.length === 0) return [];
  const credentials = await import("../credentials/mod.ts");
  try {
    return await credentials.lookupPullCredentials(image, { secrets, others });
  } catch (err) {
    if (err instanceof credentials.DockerConfigError) {
      throw new CredentialLookupError(err.message, { cause: err });
    }
    if (err instanceof ImageNameError) {
      throw new CredentialLookupError(`couldn't parse image name "${image}": ${err.message}`, {
        cause: err,
      });
    }
    throw err;
  }
}

/** A pull that failed with every credential; the message is upstream's aggregate. */
export class PullFailedError extends DenoletError {}

/**
 * Pulls `image` with each credential in turn until one succeeds; returns the image reference
 * and the credential that worked (undefined: anonymous). Throws PullFailedError whose message
 * lists the failures as upstream's error aggregate does, with the first failure as `cause`.
 */
export async function pullWithCredentials(
  service: ImageService,
  image: string,
  opts: {
    credentials: TrackedAuthConfig[];
    sandboxConfig?: PodSandboxConfig;
    signal?: AbortSignal;
    timeoutMs?: number;
  },
): Promise<{ ref: string; used?: TrackedAuthConfig }> {
  const { credentials, sandboxConfig, signal, timeoutMs } = opts;
  const spec = { image };
  if (credentials.length === 0) {
    return { ref: await service.pullImage(spec, sandboxConfig, { signal, timeoutMs }) };
  }
  const failures: unknown[] = [];
  for (const c of credentials) {
    const auth = {
      username: c.username,
      password: c.password,
      auth: c.auth,
      serverAddress: c.serverAddress,
      identityToken: c.identityToken,
      registryToken: c.registryToken,
    };
    try {
      const ref = await service.pullImage(spec, sandboxConfig, { signal, timeoutMs, auth });
      return { ref, used: c };
    } catch (err) {
      // An unreachable runtime or an abort is not the registry's answer: stop trying.
      if (signal?.aborted || isKind(err, RuntimeUnavailableError)) throw err;
      failures.push(err);
    }
  }
  throw new PullFailedError(aggregate(failures.map(runtimeErrorText)), { cause: failures[0] });
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several deduplicated in brackets. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
}
