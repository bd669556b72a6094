/**
 * Which seccomp profile the runtime is asked to apply (upstream helpers.go getSeccompProfile and
 * fieldSeccompProfile; the sandbox's in kuberuntime_sandbox.go generatePodSandboxLinuxConfig).
 */
import { posix } from "node:path";
import type { V1Container, V1Pod, V1SeccompProfile } from "@kubernetes/client-node";
import type { SecurityProfile } from "../cri/types.ts";
import { ConfigError } from "../util/errors.ts";

/** Upstream's seccompProfileRoot under the default --root-dir. */
export const DEFAULT_SECCOMP_PROFILE_ROOT = "/var/lib/kubelet/seccomp";

export interface SeccompOptions {
  /** --seccomp-default: RuntimeDefault, not Unconfined, when neither pod nor container names one. */
  seccompDefault?: boolean;
  /** <root-dir>/seccomp, where Localhost profiles are looked up; default under /var/lib/kubelet. */
  seccompProfileRoot?: string;
}

/** <root-dir>/seccomp, as upstream derives its seccompProfileRoot. */
export function seccompProfileRoot(rootDir: string): string {
  return posix.join(rootDir, "seccomp");
}

/**
 * The container's profile: its own seccompProfile, else the pod's, else the node default.
 * Privileged containers get it too, as upstream: the runtime skips seccomp for them. Throws
 * ConfigError for Localhost without localhostProfile (validation normally refuses it first).
 */
export function containerSeccomp(
  pod: V1Pod,
  container: V1Container,
  opts: SeccompOptions = {},
): SecurityProfile {
  const own = container.securityContext?.seccompProfile;
  if (own) return fieldProfile(own, `containers[${container.name}].securityContext`, opts);
  return fieldProfile(pod.spec?.securityContext?.seccompProfile, "spec.securityContext", opts);
}

/**
 * The sandbox's profile is always RuntimeDefault, whatever the pod asks: the pause process needs
 * few syscalls, and a strict pod-level Localhost profile written for the app must not stop it
 * from starting (upstream issue 84623).
 */
export function sandboxSeccomp(): SecurityProfile {
  return { profileType: "RuntimeDefault" };
}

function fieldProfile(
  p: V1SeccompProfile | undefined | null,
  where: string,
  opts: SeccompOptions,
): SecurityProfile {
  if (!p) return { profileType: opts.seccompDefault ? "RuntimeDefault" : "Unconfined" };
  if (p.type === "RuntimeDefault") return { profileType: "RuntimeDefault" };
  if (p.type === "Localhost") {
    if (!p.localhostProfile) {
      throw new ConfigError(
        `${where}.seccompProfile.localhostProfile`,
        "must be set when the seccomp profile type is Localhost",
      );
    }
    const root = opts.seccompProfileRoot ?? DEFAULT_SECCOMP_PROFILE_ROOT;
    return { profileType: "Localhost", localhostRef: posix.join(root, p.localhostProfile) };
  }
  // Unconfined, and any type this version does not know, as upstream.
  return { profileType: "Unconfined" };
}
