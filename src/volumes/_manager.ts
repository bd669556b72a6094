/**
 * The volume manager: sets up a pod's emptyDir and hostPath volumes before its containers start,
 * binds their subPaths for containers, and removes the pod's directory after it is gone. Volumes
 * that need an API server (configMap, secret, projected, downwardAPI, PVCs, ...) are refused by
 * name.
 */
import type { V1Pod, V1Volume } from "@kubernetes/client-node";
import { ConfigError, DenoletError } from "../util/errors.ts";
import type { Logger } from "../util/log.ts";
import { EMPTY_DIR_PLUGIN_DIR, setUpEmptyDir } from "./_empty_dir.ts";
import { type FdFs, libcFdFs } from "./_fd_fs.ts";
import { setUpHostPath } from "./_host_path.ts";
import { type Mounter, systemMounter } from "./_mounter.ts";
import { podDir } from "./_pod_files.ts";
import { bindSubPath, cleanSubPaths } from "./_subpath_mounts.ts";
import type { MountedVolume, SubPathMountOptions, VolumeManager } from "./_types.ts";

export interface VolumeManagerDeps {
  /** --root-dir, e.g. /var/lib/kubelet. */
  rootDir: string;
  logger: Logger;
  /** Defaults to the system mounter (mount(8)/umount(8)). */
  mounter?: Mounter;
  /** Descriptor-based path walking for subPath mounts; defaults to libc, loaded on first use. */
  fdFs?: FdFs;
}

/** The volume source key of a V1Volume ("emptyDir", "secret", ...), or undefined if none. */
function volumeKind(v: V1Volume): string | undefined {
  const fields = v as unknown as Record<string, unknown>;
  return Object.keys(fields).find((k) =>
    k !== "name" && fields[k] !== undefined && fields[k] !== null
  );
}

export function createVolumeManager(deps: VolumeManagerDeps): VolumeManager {
  const mounter = deps.mounter ?? systemMounter();
  const fs = deps.fdFs ?? libcFdFs();
  const volumesDir = (uid: string) => `${podDir(deps.rootDir, uid)}/volumes`;

  /** MountedVolume.bindSubPath for one volume of one pod. */
  function subPathBinder(
    volume: { uid: string; name: string; hostPath: string },
    log: Logger,
  ): MountedVolume["bindSubPath"] {
    return async (subPath: string, opts: SubPathMountOptions) => {
      try {
        const target = await bindSubPath(volume.hostPath, subPath, {
          podDir: podDir(deps.rootDir, volume.uid),
          volumeName: volume.name,
          containerName: opts.containerName,
          mountIndex: opts.mountIndex,
          fs,
          mounter,
          signal: opts.signal,
        });
        log.debug(4, "SubPath bound", { volume: volume.name, subPath, target });
        return target;
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        log.warn("Cannot prepare subPath", {
          volume: volume.name,
          container: opts.containerName,
          subPath,
          err,
        });
        // As upstream: node paths stay out of the pod's status; the line above has them.
        throw new ConfigError(
          opts.field,
          `failed to prepare subPath for volumeMount ${JSON.stringify(volume.name)} of container ${
            JSON.stringify(opts.containerName)
          }`,
        );
      }
    };
  }

  async function setUpPod(
    pod: V1Pod,
    opts: { signal?: AbortSignal } = {},
  ): Promise<Map<string, MountedVolume>> {
    const uid = pod.metadata?.uid ?? "";
    const log = deps.logger.child({ pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, uid });
    const out = new Map<string, MountedVolume>();
    for (const v of pod.spec?.volumes ?? []) {
      opts.signal?.throwIfAborted();
      const field = `volume ${JSON.stringify(v.name)}`;
      if (v.emptyDir) {
        const dir = `${volumesDir(uid)}/${EMPTY_DIR_PLUGIN_DIR}/${v.name}`;
        const { medium } = await setUpEmptyDir(v.name, dir, v.emptyDir, {
          mounter,
          signal: opts.signal,
        });
        out.set(v.name, {
          hostPath: dir,
          readOnly: false,
          kind: "emptyDir",
          medium,
          bindSubPath: subPathBinder({ uid, name: v.name, hostPath: dir }, log),
        });
      } else if (v.hostPath) {
        const path = await setUpHostPath(v.name, v.hostPath);
        out.set(v.name, {
          hostPath: path,
          readOnly: false,
          kind: "hostPath",
          bindSubPath: subPathBinder({ uid, name: v.name, hostPath: path }, log),
        });
      } else {
        const kind = volumeKind(v) ?? "unknown";
        throw new ConfigError(
          field,
          `${kind} volumes are not supported (no API server is configured)`,
        );
      }
      log.debug(4, "Volume set up", { volume: v.name, path: out.get(v.name)?.hostPath });
    }
    return out;
  }

  async function tearDownPod(uid: string, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const dir = podDir(deps.rootDir, uid);
    const emptyDirs = `${volumesDir(uid)}/${EMPTY_DIR_PLUGIN_DIR}`;
    // SubPath bind mounts go first, as upstream unmounts them before the volume itself; the
    // removal below must never reach through one into volume or host contents.
    await cleanSubPaths(dir, { mounter, signal: opts.signal });
    try {
      for await (const e of Deno.readDir(emptyDirs)) {
        opts.signal?.throwIfAborted();
        const path = `${emptyDirs}/${e.name}`;
        if (await mounter.isMountPoint(path)) await mounter.unmount(path, { signal: opts.signal });
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    opts.signal?.throwIfAborted();
    // Recursive removal would empty anything still mounted below (a leaked bind mount of a
    // hostPath); refuse instead.
    const busy = await mounter.mountPointsUnder(dir);
    if (busy.length) {
      throw new DenoletError(
        `Cannot remove pod directory ${dir}: still mounted: ${busy.join(", ")}`,
      );
    }
    try {
      await Deno.remove(dir, { recursive: true });
      deps.logger.debug(3, "Removed pod directory", { uid, dir });
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) {
        throw new DenoletError(`Cannot remove pod directory ${dir}`, { cause: err });
      }
    }
  }

  return { setUpPod, tearDownPod };
}
