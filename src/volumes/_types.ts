import type { V1Pod } from "@kubernetes/client-node";

/** A pod volume ready to be bind-mounted into containers. */
export interface MountedVolume {
  /** Node path to bind-mount (the emptyDir dir or the hostPath). */
  hostPath: string;
  /** The volume itself forces read-only mounts (none of the supported kinds do). */
  readOnly: boolean;
  kind: "emptyDir" | "hostPath";
  /** emptyDir medium: "" (node disk) or "Memory" (tmpfs). */
  medium?: "" | "Memory";
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
   * Unmounts the pod's tmpfs volumes and deletes <rootDir>/pods/<uid> (never follows into
   * hostPath contents: a directory that is still a mount point is not deleted; that throws).
   * Idempotent: a missing pod dir is success.
   */
  tearDownPod(uid: string, opts?: { signal?: AbortSignal }): Promise<void>;
}
