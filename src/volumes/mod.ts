/**
 * Pod volumes (emptyDir, hostPath, claims bound to hostPath, local or CSI volumes, and through plugins the kinds whose files the kubelet writes
 * atomically: downwardAPI, configMap, secret, projected), the kubelet-managed pod files
 * (/etc/hosts, termination message) and how volumeMounts become CRI mounts, subPaths through
 * bind mounts that a symlink swap cannot redirect.
 */
export type {
  ClaimVolume,
  DownwardAPIValues,
  MountedVolume,
  PluginVolumeKind,
  SubPathMountOptions,
  VolumeManager,
  VolumePlugin,
} from "./_types.ts";
export { createVolumeManager, type VolumeManagerDeps, VolumeSetUpError } from "./_manager.ts";
export {
  ClaimError,
  claimNameOf,
  mountedVolumeNames,
  resolveClaim,
  type ResolvedClaim,
  VolumeProcessingError,
} from "./_claims.ts";
export {
  checkNodeAffinity,
  LOCAL_VOLUME_PLUGIN_DIR,
  type PersistentMount,
  VolumeOperationError,
} from "./_persistent.ts";
export {
  type AtomicWriteOptions,
  type FileProjection,
  validatePayloadPath,
  writeAtomically,
} from "./_atomic_writer.ts";
export { configMapPayload, configMapPlugin } from "./_configmap.ts";
export { secretPayload, secretPlugin } from "./_secret.ts";
export { downwardAPIPayload, downwardAPIPlugin } from "./_downward_api.ts";
export { projectedPlugin, type ProjectedPluginDeps } from "./_projected.ts";
export { DEFAULT_FILE_MODE } from "./_payload.ts";
export { type Mounter, MountError, parseMountInfo, systemMounter } from "./_mounter.ts";
export { containerMounts, resolveRecursiveReadOnly } from "./_container_mounts.ts";
export { type FdFs, type FdInfo, type FileKind, FsCallError, libcFdFs } from "./_fd_fs.ts";
export { type OpenedSubPath, openSubPath, SubPathError, validateSubPath } from "./_subpath.ts";
export {
  bindSubPath,
  type BindSubPathOptions,
  cleanSubPaths,
  SUBPATH_DIR,
  subPathTarget,
} from "./_subpath_mounts.ts";
export {
  createTerminationLogFile,
  type EtcHostsInput,
  managedHostsContent,
  podDir,
  writeEtcHosts,
} from "./_pod_files.ts";
