/**
 * A container's volumeMounts as CRI mounts (kubelet_pods.go makeMounts).
 */
import type { V1VolumeMount } from "@kubernetes/client-node";
import type { Mount, MountPropagation } from "../cri/types.ts";
import { ConfigError } from "../util/errors.ts";
import { prepareSubPath } from "./_subpath.ts";
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
 * the caller (it needs the container env). Creates missing subPath directories. Throws
 * ConfigError for an unknown volume, an escaping subPath or a bad propagation mode.
 */
export function containerMounts(
  mounts: V1VolumeMount[],
  volumes: Map<string, MountedVolume>,
  opts: { containerName: string },
): Mount[] {
  const out: Mount[] = [];
  for (const m of mounts) {
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
    const hostPath = m.subPath ? prepareSubPath(vol.hostPath, m.subPath, field) : vol.hostPath;
    const containerPath = m.mountPath.startsWith("/") ? m.mountPath : `/${m.mountPath}`;
    out.push({
      containerPath,
      hostPath,
      readonly: m.readOnly === true || vol.readOnly,
      propagation: propagation(m.mountPropagation, field),
    });
  }
  return out;
}
