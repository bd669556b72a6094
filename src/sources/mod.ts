/**
 * Pod sources: where desired pods come from. Static pods from `--pod-manifest-path` (a directory
 * or a file) and `--manifest-url`, and in API-server mode the pods bound to the node (`api`),
 * each producing full snapshots (`PodSourceUpdate`) for the pod manager to diff.
 */
export type { ManifestProblem, PodSource, PodSourceUpdate, SourceName } from "./types.ts";
export { createFileSource, type FileSourceOptions } from "./file_source.ts";
export { createUrlSource, type UrlSourceOptions } from "./url_source.ts";
export { MAX_MANIFEST_BYTES, staticPodFromManifest, staticPodsFromBody } from "./manifest.ts";
export type { FileSystemDeps, FsChange, FsStat, FsWatch } from "./_fs.ts";
export {
  CONFIG_HASH_ANNOTATION,
  CONFIG_SEEN_ANNOTATION,
  CONFIG_SOURCE_ANNOTATION,
} from "./_static_pod.ts";
export {
  type ApiPodSource,
  type ApiPodStore,
  type ApiSourceOptions,
  CONFIG_MIRROR_ANNOTATION,
  createApiSource,
  isMirrorPod,
  KUBELET_CONDITIONS,
  type PodName,
  type Reflector,
} from "./api_source.ts";
