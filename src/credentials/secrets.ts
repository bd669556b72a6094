/**
 * A keyring from a pod's image pull secrets (pkg/credentialprovider/secrets): Secrets of type
 * kubernetes.io/dockerconfigjson (key `.dockerconfigjson`) and kubernetes.io/dockercfg (key
 * `.dockercfg`); other Secrets are skipped. A Secret of those types that does not decode fails
 * the whole lookup, as upstream.
 */
import type { V1Secret } from "@kubernetes/client-node";
import { DockerConfigError, parseDockercfg, parseDockerConfigJson } from "./_dockercfg.ts";
import { BasicKeyring, type DockerConfig } from "./keyring.ts";

export const SECRET_TYPE_DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson";
export const SECRET_TYPE_DOCKERCFG = "kubernetes.io/dockercfg";

/**
 * The keyring of the usable Secrets among `secrets`, each entry attributed to its Secret;
 * undefined when none is usable. Throws DockerConfigError for a Secret that does not decode
 * (the message is upstream's, with the Secret named in the error's `secret`).
 */
export async function keyringFromSecrets(secrets: V1Secret[]): Promise<BasicKeyring | undefined> {
  const keyring = new BasicKeyring();
  let found = 0;
  for (const secret of secrets) {
    const cfg = dockerConfigOf(secret);
    if (cfg === undefined) continue;
    await keyring.add({
      secret: {
        uid: secret.metadata?.uid ?? "",
        namespace: secret.metadata?.namespace ?? "",
        name: secret.metadata?.name ?? "",
      },
    }, cfg);
    found++;
  }
  return found > 0 ? keyring : undefined;
}

function dockerConfigOf(secret: V1Secret): DockerConfig | undefined {
  const parse = secret.type === SECRET_TYPE_DOCKER_CONFIG_JSON
    ? { key: ".dockerconfigjson", read: parseDockerConfigJson }
    : secret.type === SECRET_TYPE_DOCKERCFG
    ? { key: ".dockercfg", read: parseDockercfg }
    : undefined;
  const data = parse && secret.data?.[parse.key];
  if (!parse || !data) return undefined;
  try {
    return parse.read(new TextDecoder().decode(base64Bytes(data)));
  } catch (err) {
    if (!(err instanceof DockerConfigError)) throw err;
    throw new PullSecretError(err.message, secret.metadata?.name ?? "", { cause: err });
  }
}

/** A pull secret that does not decode: upstream's message; `secret` names it for logs. */
export class PullSecretError extends DockerConfigError {
  constructor(message: string, readonly secret: string, options?: ErrorOptions) {
    super(message, options);
  }
}

function base64Bytes(value: string): Uint8Array {
  const bin = atob(value);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}
