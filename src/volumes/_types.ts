import type { V1Pod } from "@kubernetes/client-node";

/** Where one volumeMount with a subPath goes. */
export interface SubPathMountOptions {
  containerName: string;
  /** Index of the volumeMount in the container's list; each has its own bind mount. */
  mountIndex: number;
  /** Names the mount in errors, e.g. `containers[web].volumeMounts[data]`. */
  field: string;
  signal?: AbortSignal;
}

/** A pod volume ready to be bind-mounted into containers. */
export interface MountedVolume {
  /** Node path to bind-mount (the emptyDir dir or the hostPath). */
  hostPath: string;
  /** The volume itself forces read-only mounts (none of the supported kinds do). */
  readOnly: boolean;
  kind: "emptyDir" | "hostPath";
  /** emptyDir medium: "" (node disk) or "Memory" (tmpfs). */
  medium?: "" | "Memory";
  /**
   * Exposes `subPath` (relative, without "..") of this volume to one volumeMount and resolves
   * with the node path to give the runtime: a bind mount of the file found there, pinned while
   * it is checked, so a container swapping a path component for a symlink cannot redirect it.
   * Creates missing directories with the volume's mode. Idempotent per container and mount
   * index while the subPath is unchanged; tearDownPod removes the mounts. Throws ConfigError
   * with upstream's message, which names no node path (the log has the details).
   */
  bindSubPath(subPath: string, opts: SubPathMountOptions): Promise<string>;
}

export interface VolumeManager {
  /**
   * Creates/mounts every volume of the pod and returns them by volume name. Idempotent (safe
   * to call on each sync; existing content is kept). Throws ConfigError naming the volume for
   * unsupported kinds or failed hostPath type checks, MountError when a tmpfs cannot be mounted.
   * Aborting stops before the next volume and kills a running mount command.
   */
  setUpPod(pod: V1Pod, opts?: { signal?: AbortSignal }): Promise<Map<string, MountedVolume>>;
  /**
   * Unmounts the pod's subPath bind mounts and tmpfs volumes and deletes <rootDir>/pods/<uid>
   * (never follows into hostPath contents: a directory that is still a mount point is not
   * deleted; that throws). Idempotent: a missing pod dir is success.
   */
  tearDownPod(uid: string, opts?: { signal?: AbortSignal }): Promise<void>;
}
