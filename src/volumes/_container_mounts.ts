/**
 * A container's volumeMounts as CRI mounts (kubelet_pods.go makeMounts).
 */
import type { V1VolumeMount } from "@kubernetes/client-node";
import type { Mount, MountPropagation } from "../cri/types.ts";
import { ConfigError } from "../util/errors.ts";
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
 * Turns volumeMounts into CRI mounts. `subPathExpr` must already be expanded into `subPath` by
 * the caller (it needs the container env). A subPath is bound through the volume's
 * `bindSubPath` (creating missing directories), and that bind mount is what the runtime gets.
 * Throws ConfigError for an unknown volume, a bad propagation mode, an escaping subPath or one
 * that cannot be prepared; the first three before anything is created or mounted.
 */
export async function containerMounts(
  mounts: V1VolumeMount[],
  volumes: Map<string, MountedVolume>,
  opts: { containerName: string; signal?: AbortSignal },
): Promise<Mount[]> {
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
    return { m, vol, field, propagation: propagation(m.mountPropagation, field) };
  });
  const out: Mount[] = [];
  for (const [mountIndex, { m, vol, field, propagation }] of checked.entries()) {
    const hostPath = m.subPath
      ? await vol.bindSubPath(m.subPath, {
        containerName: opts.containerName,
        mountIndex,
        field,
        signal: opts.signal,
      })
      : vol.hostPath;
    const containerPath = m.mountPath.startsWith("/") ? m.mountPath : `/${m.mountPath}`;
    out.push({
      containerPath,
      hostPath,
      readonly: m.readOnly === true || vol.readOnly,
      propagation,
    });
  }
  return out;
}
