/**
 * Pod volumes (emptyDir, hostPath), the kubelet-managed pod files (/etc/hosts, termination
 * message) and how volumeMounts become CRI mounts.
 */
export type { MountedVolume, VolumeManager } from "./_types.ts";
export { createVolumeManager, type VolumeManagerDeps } from "./_manager.ts";
export { type Mounter, MountError, parseMountInfo, systemMounter } from "./_mounter.ts";
export { containerMounts } from "./_container_mounts.ts";
export { prepareSubPath, validateSubPath } from "./_subpath.ts";
export {
  createTerminationLogFile,
  type EtcHostsInput,
  managedHostsContent,
  podDir,
  writeEtcHosts,
} from "./_pod_files.ts";
