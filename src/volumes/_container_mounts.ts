/**
 * A container's volumeMounts as CRI mounts (kubelet_pods.go makeMounts).
 */
import type { V1VolumeMount } from "@kubernetes/client-node";
import type { Mount, MountPropagation } from "../cri/types.ts";
import { ConfigError, DenoletError } from "../util/errors.ts";
import { validateSubPath } from "./_subpath.ts";
import type { MountedVolume } from "./_types.ts";

function propagation(mode: string | undefined, field: string): MountPropagation {
  switch (mode ?? "None") {
    case "None":
      return "PROPAGATION_PRIVATE";
    case "HostToContainer":
      return "PROPAGATION_HOST_TO_CONTAINER";
    case "Bidirectional":
      return "PROPAGATION_BIDIRECTIONAL";
  }
  throw new ConfigError(field, `invalid mountPropagation ${JSON.stringify(mode)}`);
}

/**
 * Upstream resolveRecursiveReadOnly: whether the runtime is to make `m` recursively read-only
 * (`rro`), or why that cannot be had (`error`, upstream's words). Disabled or unset: no. It
 * needs a read-only mount without propagation; IfPossible follows the runtime's support (asked
 * only then), Enabled requires it.
 */
export function resolveRecursiveReadOnly(
  m: V1VolumeMount,
  supported: () => boolean,
): { rro: boolean; error?: string } {
  const mode = m.recursiveReadOnly;
  if (mode === undefined || mode === null || mode === "Disabled") return { rro: false };
  const volume = JSON.stringify(m.name);
  const no = (why: string) => ({ rro: false, error: `volume ${volume} requested ${why}` });
  if (m.readOnly !== true) return no("recursive read-only mode, but it is not read-only");
  if (m.mountPropagation && m.mountPropagation !== "None") {
    return no(
      "recursive read-only mode, but it is not compatible with propagation " +
        JSON.stringify(m.mountPropagation),
    );
  }
  if (mode === "IfPossible") return { rro: supported() };
  if (mode === "Enabled") {
    return supported()
      ? { rro: true }
      : no("recursive read-only mode, but it is not supported by the runtime");
  }
  return { rro: false, error: `unknown recursive read-only mode ${JSON.stringify(mode)}` };
}

/** resolveRecursiveReadOnly for a container about to be made: its error fails the container. */
function recursiveReadOnly(m: V1VolumeMount, supported: () => boolean): boolean {
  const { rro, error } = resolveRecursiveReadOnly(m, supported);
  if (error === undefined) return rro;
  // Wrapped as upstream's makeMounts wraps it (the status message reads "...: <why>").
  throw new DenoletError("failed to resolve recursive read-only mode", {
    cause: new DenoletError(error),
  });
}

/**
 * Turns volumeMounts into CRI mounts. `subPathExpr` must already be expanded into `subPath` by
 * the caller (it needs the container env). A subPath is bound through the volume's
 * `bindSubPath` (creating missing directories), and that bind mount is what the runtime gets.
 * A `recursiveReadOnly` mount is recursively read-only where `recursiveReadOnlySupported` says
 * the pod's runtime handler can (asked only then; unset: it cannot). Throws ConfigError for an
 * unknown volume, a bad propagation mode, an escaping subPath or one that cannot be prepared, a
 * DenoletError with upstream's message for a recursiveReadOnly that cannot be had; all but the
 * subPath preparation before anything is created or mounted.
 */
export async function containerMounts(
  mounts: V1VolumeMount[],
  volumes: Map<string, MountedVolume>,
  opts: {
    containerName: string;
    recursiveReadOnlySupported?: () => boolean;
    signal?: AbortSignal;
  },
): Promise<Mount[]> {
  const supported = opts.recursiveReadOnlySupported ?? (() => false);
  const checked = mounts.map((m) => {
    const field = `containers[${opts.containerName}].volumeMounts[${m.name}]`;
    const vol = volumes.get(m.name);
    if (!vol) {
      throw new ConfigError(
        field,
        `cannot find volume ${JSON.stringify(m.name)} to mount into container ${
          JSON.stringify(opts.containerName)
        }`,
      );
    }
    if (m.subPath) validateSubPath(m.subPath, field);
    const translated = propagation(m.mountPropagation, field);
    return { m, vol, field, rro: recursiveReadOnly(m, supported), propagation: translated };
  });
  const out: Mount[] = [];
  for (const [mountIndex, { m, vol, field, rro, propagation }] of checked.entries()) {
    const hostPath = m.subPath
      ? await vol.bindSubPath(m.subPath, {
        containerName: opts.containerName,
        mountIndex,
        field,
        signal: opts.signal,
      })
      : vol.hostPath;
    const containerPath = m.mountPath.startsWith("/") ? m.mountPath : `/${m.mountPath}`;
    const mount: Mount = {
      containerPath,
      hostPath,
      readonly: m.readOnly === true || vol.readOnly,
      propagation,
    };
    if (rro) mount.recursiveReadOnly = true;
    out.push(mount);
  }
  return out;
}
