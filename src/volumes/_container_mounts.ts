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
 * Upstream resolveRecursiveReadOnly: whether the runtime is to make `m` recursively read-only.
 * Disabled or unset: no. It needs a read-only mount without propagation; IfPossible follows
 * the runtime's support, Enabled requires it. Throws with upstream's message (wrapped, as
 * makeMounts does) otherwise.
 */
function recursiveReadOnly(m: V1VolumeMount, supported: () => boolean): boolean {
  const mode = m.recursiveReadOnly;
  if (mode === undefined || mode === null || mode === "Disabled") return false;
  const volume = JSON.stringify(m.name);
  const fail = (why: string) =>
    new DenoletError("failed to resolve recursive read-only mode", {
      cause: new DenoletError(why),
    });
  if (m.readOnly !== true) {
    throw fail(`volume ${volume} requested recursive read-only mode, but it is not read-only`);
  }
  if (m.mountPropagation && m.mountPropagation !== "None") {
    throw fail(
      `volume ${volume} requested recursive read-only mode, but it is not compatible with ` +
        `propagation ${JSON.stringify(m.mountPropagation)}`,
    );
  }
  if (mode === "IfPossible") return supported();
  if (mode === "Enabled") {
    if (supported()) return true;
    throw fail(
      `volume ${volume} requested recursive read-only mode, but it is not supported by the runtime`,
    );
  }
  throw fail(`unknown recursive read-only mode ${JSON.stringify(mode)}`);
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
