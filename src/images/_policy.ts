/**
 * imagePullCredentialsVerificationPolicy (upstream pullmanager/image_pull_policies.go): when a
 * pod must prove it may use an image that is already on the node.
 * - NeverVerify: never; anyone on the node may use any present image.
 * - NeverVerifyPreloadedImages (the default): only for images this kubelet pulled; images put
 *   on the node otherwise (preloaded) are free to use.
 * - NeverVerifyAllowlistedImages: for every image but those of the allowlist.
 * - AlwaysVerify: for every image.
 */
import { DenoletError } from "../util/errors.ts";
import { ImageNameError, trimTagDigest } from "../util/image_name.ts";

export const VERIFICATION_POLICIES = [
  "NeverVerify",
  "NeverVerifyPreloadedImages",
  "NeverVerifyAllowlistedImages",
  "AlwaysVerify",
] as const;

export type VerificationPolicy = typeof VERIFICATION_POLICIES[number];

/** Whether a pod must show credentials for `image`; `pulledByKubelet`: a record exists. */
export type RequireVerification = (image: string, pulledByKubelet: boolean) => boolean;

/** An allowlist pattern upstream rejects; the message is upstream's. */
export class AllowlistPatternError extends DenoletError {}

export function verificationPolicy(
  policy: VerificationPolicy,
  allowlist: readonly string[] = [],
): RequireVerification {
  switch (policy) {
    case "NeverVerify":
      return () => false;
    case "NeverVerifyPreloadedImages":
      return (_image, pulledByKubelet) => pulledByKubelet;
    case "AlwaysVerify":
      return () => true;
    case "NeverVerifyAllowlistedImages": {
      const exact = new Set<string>();
      const prefixes: string[] = [];
      for (const p of allowlist) {
        const { pattern, wildcard } = allowlistPattern(p);
        if (wildcard) prefixes.push(pattern);
        else exact.add(pattern);
      }
      return (image) => {
        let name = image;
        try {
          name = trimTagDigest(image);
        } catch (err) {
          // Best effort, as upstream: match what the pod wrote.
          if (!(err instanceof ImageNameError)) throw err;
        }
        return !(exact.has(name) || prefixes.some((p) => name.startsWith(p)));
      };
    }
  }
}

/**
 * One allowlist entry: an image name without tag or digest, or a prefix ending in `/*`
 * (registry host at least). Throws AllowlistPatternError with upstream's message.
 */
export function allowlistPattern(pattern: string): { pattern: string; wildcard: boolean } {
  if (pattern !== pattern.trim()) {
    throw new AllowlistPatternError(`leading/trailing spaces are not allowed: ${pattern}`);
  }
  const wildcard = pattern.endsWith("/*");
  const trimmed = wildcard ? pattern.slice(0, -1) : pattern;
  if (trimmed.length === 0) {
    throw new AllowlistPatternError(`the supplied pattern is too short: ${pattern}`);
  }
  if (trimmed.includes("*")) {
    throw new AllowlistPatternError(
      `not a valid wildcard pattern, only patterns ending with '/*' are allowed: ${pattern}`,
    );
  }
  if (wildcard) {
    if (trimmed.length === 1) {
      throw new AllowlistPatternError("at least registry hostname is required");
    }
    return { pattern: trimmed, wildcard };
  }
  let name: string;
  try {
    name = trimTagDigest(trimmed);
  } catch (err) {
    throw new AllowlistPatternError(`failed to parse as an image name: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (name !== trimmed) {
    throw new AllowlistPatternError(
      `neither tag nor digest is accepted in an image reference: ${pattern}`,
    );
  }
  return { pattern: trimmed, wildcard };
}
