/**
 * Which pulls a container asks for: its imagePullPolicy (or the API server's default for it)
 * and its image reference with the default tag (upstream applyDefaultImageTag).
 */
import type { V1Container } from "@kubernetes/client-node";

export type PullPolicy = "Always" | "IfNotPresent" | "Never";

/** The pod's policy, or the API server's default: Always for `:latest`/untagged, else IfNotPresent. */
export function pullPolicyOf(container: V1Container, taggedImage: string): PullPolicy {
  const p = container.imagePullPolicy;
  if (p === "Always" || p === "IfNotPresent" || p === "Never") return p;
  if (!taggedImage.includes("@") && taggedImage.endsWith(":latest")) return "Always";
  return "IfNotPresent";
}

// name components, optional registry host[:port]; tag and/or digest.
const REFERENCE =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,})?$/;

/**
 * Adds `:latest` to a reference without tag or digest (upstream `applyDefaultImageTag`);
 * undefined when the reference does not parse.
 */
export function applyDefaultTag(image: string): string | undefined {
  if (!REFERENCE.test(image)) return undefined;
  if (image.includes("@")) return image;
  const lastPart = image.slice(image.lastIndexOf("/") + 1);
  return lastPart.includes(":") ? image : `${image}:latest`;
}
