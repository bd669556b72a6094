/**
 * Registry credentials for image pulls: the docker keyring and its matching rules, pull
 * secrets, and (loaded only when configured) credential provider plugins. The image puller
 * imports this folder dynamically, so a node whose pods pull anonymously never loads it.
 */
import type { V1Secret } from "@kubernetes/client-node";
import { repositoryOf } from "../util/image_name.ts";
import { type Keyring, type TrackedAuthConfig, unionKeyring } from "./keyring.ts";
import { keyringFromSecrets } from "./secrets.ts";

export {
  type AuthConfig,
  BasicKeyring,
  type Coordinates,
  type CredentialSource,
  type DockerConfig,
  type Keyring,
  type TrackedAuthConfig,
  unionKeyring,
  urlsMatch,
} from "./keyring.ts";
export { DockerConfigError, parseDockercfg, parseDockerConfigJson } from "./_dockercfg.ts";
export { keyringFromSecrets, PullSecretError } from "./secrets.ts";

/**
 * The credentials to try for `image`, in order (upstream makeLookupPullCredentialsFunc): the
 * pod's pull secrets first, then `others` (node-wide keyrings, plugins). Throws
 * ImageNameError for an image that does not parse and PullSecretError for a Secret that does
 * not decode.
 */
export async function lookupPullCredentials(
  image: string,
  opts: { secrets: V1Secret[]; others?: Keyring[] },
): Promise<TrackedAuthConfig[]> {
  const repository = repositoryOf(image);
  const fromSecrets = await keyringFromSecrets(opts.secrets);
  return unionKeyring([fromSecrets, ...(opts.others ?? [])]).lookup(repository);
}
