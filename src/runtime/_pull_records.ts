/**
 * What the image puller needs of the pulled-image records (src/images PullManager), and the
 * conversions between the keyring's tracked credentials and the records' (upstream
 * getPodCredentials and trackedToImagePullCreds).
 */
import type { TrackedAuthConfig } from "../credentials/mod.ts";
import type { ImagePullCredentials, PodCredentials, PullManager } from "../images/mod.ts";

export type PullRecords = Pick<
  PullManager,
  "mustAttemptImagePull" | "recordPullIntent" | "recordImagePulled" | "recordImagePullFailed"
>;

/**
 * The pod's credentials as the records compare them: its Secrets (with their credential
 * hashes) and its first service account; node-wide credentials are not the pod's.
 */
export function podCredentialsOf(credentials: TrackedAuthConfig[]): PodCredentials {
  const out: PodCredentials = { secrets: [] };
  for (const c of credentials) {
    const secret = c.source?.secret;
    if (secret) out.secrets.push({ ...secret, credentialHash: c.hash });
    else if (c.source?.serviceAccount && !out.serviceAccount) {
      out.serviceAccount = { ...c.source.serviceAccount };
    }
  }
  return out;
}

/** What a pull with `used` (undefined: anonymous) lets other pods do with the image. */
export function pulledWith(used: TrackedAuthConfig | undefined): ImagePullCredentials {
  const secret = used?.source?.secret;
  if (secret) return { kubernetesSecrets: [{ ...secret, credentialHash: used!.hash }] };
  const account = used?.source?.serviceAccount;
  if (account) return { kubernetesServiceAccounts: [{ ...account }] };
  return { nodePodsAccessible: true };
}
