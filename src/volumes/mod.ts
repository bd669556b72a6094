/**
 * Pod volumes (emptyDir, hostPath), the kubelet-managed pod files (/etc/hosts, termination
 * message) and how volumeMounts become CRI mounts, subPaths through bind mounts that a symlink
 * swap cannot redirect.
 */
export type { MountedVolume, SubPathMountOptions, VolumeManager } from "./_types.ts";
export { createVolumeManager, type VolumeManagerDeps } from "./_manager.ts";
export { type Mounter, MountError, parseMountInfo, systemMounter } from "./_mounter.ts";
export { containerMounts } from "./_container_mounts.ts";
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
