/**
 * Garbage collection: dead containers and sandboxes, unused images, container log rotation.
 *
 * `new GarbageCollector(deps)`; `run({ signal })` runs the periodic loops; the eviction manager
 * calls `collectContainers()` and `collectImages({ bytesToFree })` to reclaim node resources.
 */
export {
  CONTAINER_GC_PERIOD_MS,
  GarbageCollector,
  type GarbageCollectorDeps,
  IMAGE_GC_PERIOD_MS,
  LOG_ROTATION_PERIOD_MS,
  statfsStats,
} from "./_collector.ts";
export {
  ContainerGC,
  type ContainerGCPolicy,
  DEFAULT_CONTAINER_GC_POLICY,
  type PodStateProvider,
  removeContainerLogs,
  selectContainersToRemove,
  selectSandboxesToRemove,
} from "./_containers.ts";
export {
  checkImageGCPolicy,
  DEFAULT_IMAGE_GC_POLICY,
  type FsStats,
  ImageGC,
  ImageGCError,
  type ImageGCPolicy,
  normalizeImageRef,
} from "./_images.ts";
export {
  DEFAULT_LOG_ROTATION_POLICY,
  type LogRotationPolicy,
  LogRotator,
  rotationTimestamp,
} from "./_logs.ts";
