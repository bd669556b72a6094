import type {
  V1Container,
  V1Pod,
  V1ResourceFieldSelector,
  V1Volume,
} from "@kubernetes/client-node";
import type { FsCapacity } from "../util/statfs.ts";
import type { FileProjection } from "./_atomic_writer.ts";

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
  /** The volume itself forces read-only mounts (the kinds whose files the kubelet writes). */
  readOnly: boolean;
  /** The source; a claim's volume is its PersistentVolume's ("hostPath", "local", "csi"). */
  kind: "emptyDir" | "hostPath" | "local" | "csi" | PluginVolumeKind;
  /** emptyDir and plugin volumes: "" (node disk), "Memory" (tmpfs) or "HugePages" (hugetlbfs). */
  medium?: "" | "Memory" | "HugePages";
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

/** Volume kinds whose files the kubelet writes, each served by a VolumePlugin. */
export type PluginVolumeKind = "configMap" | "secret" | "downwardAPI" | "projected";

/**
 * A volume kind whose content the kubelet writes (upstream's AtomicWriter volumes): the plugin
 * says which files the volume holds now; the volume manager makes the directory (a tmpfs for
 * `medium: "Memory"`) and writes them atomically, only when they changed.
 */
export interface VolumePlugin {
  /** The V1Volume field it serves. */
  readonly kind: PluginVolumeKind;
  /** Its directory under <podDir>/volumes, e.g. "kubernetes.io~configmap". */
  readonly dirName: string;
  /** "Memory": the volume lives on a tmpfs (secrets, tokens never touch the disk). */
  readonly medium: "" | "Memory";
  /**
   * The volume's files by relative path, read fresh (from caches) on every call. Throws with
   * upstream's message naming what is missing, e.g. `configmap "app" not found`; a NotFoundError
   * for a missing object. Aborting stops a wait for the API server.
   */
  payload(
    pod: V1Pod,
    volume: V1Volume,
    opts?: { signal?: AbortSignal },
  ): Promise<Map<string, FileProjection>>;
}

/**
 * The downward API's values (shared with container env, which resolves the same fieldRefs and
 * resourceFieldRefs). Both throw ConfigError naming `field` for what they do not support.
 */
export interface DownwardAPIValues {
  /** A fieldRef's value: metadata.name, metadata.labels, metadata.annotations['x'], ... */
  fieldValue(pod: V1Pod, ref: { fieldPath: string; field: string }): string;
  /**
   * A resourceFieldRef's value with its divisor. `container` is the one it is about (volumes
   * name it in `containerName`); unset limits fall back to the node's allocatable.
   */
  resourceValue(
    pod: V1Pod,
    ref: { selector: V1ResourceFieldSelector; container?: V1Container; field: string },
  ): string;
}

/** A claim's volume as set up for a pod: what volume stats report with a pvcRef. */
export interface ClaimVolume {
  /** The pod's volume name. */
  name: string;
  claimName: string;
  namespace: string;
  /** Where the pod's containers see it from (the node path). */
  path: string;
  source: "hostPath" | "local" | "csi";
  /** A CSI volume's usage from its driver (NodeGetVolumeStats), when it serves it. */
  stats?: (opts?: { signal?: AbortSignal }) => Promise<FsCapacity | undefined>;
}

export interface VolumeManager {
  /**
   * Creates/mounts every volume of the pod and returns them by volume name. Idempotent (safe
   * to call on each sync; existing content is kept, plugin volumes are rewritten only when
   * their content changed). Throws ConfigError naming the volume for unsupported kinds or failed
   * hostPath type checks, MountError when a tmpfs cannot be mounted, VolumeSetUpError when a
   * plugin volume's content cannot be had (`MountVolume.SetUp failed for volume "x" : ...`).
   * Aborting stops before the next volume and kills a running mount command.
   */
  setUpPod(pod: V1Pod, opts?: { signal?: AbortSignal }): Promise<Map<string, MountedVolume>>;
  /**
   * Unmounts the pod's subPath bind mounts and tmpfs volumes and deletes <rootDir>/pods/<uid>
   * (never follows into hostPath contents: a directory that is still a mount point is not
   * deleted; that throws). Idempotent: a missing pod dir is success.
   */
  tearDownPod(uid: string, opts?: { signal?: AbortSignal }): Promise<void>;
  /** The pod's claim volumes set up so far (none before its first sync). Cheap. */
  claimVolumes?(uid: string): ClaimVolume[];
}
