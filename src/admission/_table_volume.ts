/** Field rules of volumes and their sources (the v1.37 API); see `_table_pod.ts`. */
import type {
  V1ConfigMapProjection,
  V1ConfigMapVolumeSource,
  V1CSIVolumeSource,
  V1DownwardAPIProjection,
  V1DownwardAPIVolumeFile,
  V1DownwardAPIVolumeSource,
  V1EmptyDirVolumeSource,
  V1EphemeralVolumeSource,
  V1KeyToPath,
  V1PersistentVolumeClaimVolumeSource,
  V1ProjectedVolumeSource,
  V1SecretProjection,
  V1SecretVolumeSource,
  V1ServiceAccountTokenProjection,
  V1Volume,
  V1VolumeProjection,
} from "@kubernetes/client-node";
import { isPresent, type Rule } from "./_rules.ts";

type Rules<T, Newer extends string = never> = Record<keyof T | Newer, Rule>;

/** A volume source this node does not mount: asking for it at all is asking too much. */
const source = (what: string): Rule => ({ refuse: what, when: isPresent });

export const VOLUME = {
  awsElasticBlockStore: source("awsElasticBlockStore volumes"),
  azureDisk: source("azureDisk volumes"),
  azureFile: source("azureFile volumes"),
  cephfs: source("cephfs volumes"),
  cinder: source("cinder volumes"),
  configMap: { type: "ConfigMapVolumeSource" },
  csi: { type: "CSIVolumeSource" },
  downwardAPI: { type: "DownwardAPIVolumeSource" },
  emptyDir: { type: "EmptyDirVolumeSource" },
  ephemeral: { type: "EphemeralVolumeSource" },
  fc: source("fc volumes"),
  flexVolume: source("flexVolume volumes"),
  flocker: source("flocker volumes"),
  gcePersistentDisk: source("gcePersistentDisk volumes"),
  gitRepo: source("gitRepo volumes"),
  glusterfs: source("glusterfs volumes"),
  hostPath: "ok",
  image: source("image volumes"),
  iscsi: source("iscsi volumes"),
  name: "ok",
  nfs: source("nfs volumes"),
  persistentVolumeClaim: { type: "PersistentVolumeClaimVolumeSource" },
  photonPersistentDisk: source("photonPersistentDisk volumes"),
  portworxVolume: source("portworxVolume volumes"),
  projected: { type: "ProjectedVolumeSource" },
  quobyte: source("quobyte volumes"),
  rbd: source("rbd volumes"),
  scaleIO: source("scaleIO volumes"),
  secret: { type: "SecretVolumeSource" },
  storageos: source("storageos volumes"),
  vsphereVolume: source("vsphereVolume volumes"),
} satisfies Rules<V1Volume>;

/** A claim resolved to its bound PersistentVolume (hostPath, local, CSI), mounted as upstream. */
export const PVC_VOLUME = {
  claimName: "ok",
  // Every mount of the claim's volume is read-only, as upstream's mustMountRO.
  readOnly: "ok",
} satisfies Rules<V1PersistentVolumeClaimVolumeSource>;

/** An inline ephemeral CSI volume, published by its registered driver (src/csi). */
export const CSI_VOLUME = {
  driver: "ok",
  fsType: "ok",
  // The Secret (in the pod's namespace) is read and its data given in NodePublishVolume.
  nodePublishSecretRef: "ok",
  readOnly: "ok",
  volumeAttributes: "ok",
} satisfies Rules<V1CSIVolumeSource>;

export const EPHEMERAL_VOLUME = {
  // The controller manager makes the claim `<pod>-<volume>` from it; the node waits for that
  // claim, owned by the pod, and mounts it as any other.
  volumeClaimTemplate: "inert",
} satisfies Rules<V1EphemeralVolumeSource>;

/** The AtomicWriteVolumeUserFields fields (alpha in v1.37): file owners in atomic-writer volumes. */
const FILE_OWNER: Rule = { refuse: "file owners in configMap, secret and projected volumes" };

export const EMPTY_DIR = {
  // "Memory" is a tmpfs, "HugePages[-<size>]" a hugetlbfs of the pod's huge pages.
  medium: "ok",
  mode: { refuse: "an emptyDir mode" },
  // A Memory emptyDir is a tmpfs of that size; on disk, eviction enforces the limit.
  sizeLimit: "ok",
} satisfies Rules<V1EmptyDirVolumeSource, "mode">;

export const CONFIG_MAP_VOLUME = {
  defaultMode: "ok",
  defaultUser: FILE_OWNER,
  items: { type: "KeyToPath" },
  name: "ok",
  optional: "ok",
} satisfies Rules<V1ConfigMapVolumeSource, "defaultUser">;

export const SECRET_VOLUME = {
  defaultMode: "ok",
  defaultUser: FILE_OWNER,
  items: { type: "KeyToPath" },
  optional: "ok",
  secretName: "ok",
} satisfies Rules<V1SecretVolumeSource, "defaultUser">;

export const KEY_TO_PATH = {
  key: "ok",
  mode: "ok",
  path: "ok",
  user: FILE_OWNER,
} satisfies Rules<V1KeyToPath, "user">;

export const DOWNWARD_API_VOLUME = {
  defaultMode: "ok",
  defaultUser: FILE_OWNER,
  items: { type: "DownwardAPIVolumeFile" },
} satisfies Rules<V1DownwardAPIVolumeSource, "defaultUser">;

export const DOWNWARD_API_FILE = {
  fieldRef: "ok",
  mode: "ok",
  path: "ok",
  resourceFieldRef: "ok",
  user: FILE_OWNER,
} satisfies Rules<V1DownwardAPIVolumeFile, "user">;

export const PROJECTED_VOLUME = {
  defaultMode: "ok",
  defaultUser: FILE_OWNER,
  sources: { type: "VolumeProjection" },
} satisfies Rules<V1ProjectedVolumeSource, "defaultUser">;

export const VOLUME_PROJECTION = {
  clusterTrustBundle: source("clusterTrustBundle projections"),
  configMap: { type: "ConfigMapProjection" },
  downwardAPI: { type: "DownwardAPIProjection" },
  podCertificate: source("podCertificate projections"),
  secret: { type: "SecretProjection" },
  serviceAccountToken: { type: "ServiceAccountTokenProjection" },
} satisfies Rules<V1VolumeProjection>;

export const CONFIG_MAP_PROJECTION = {
  items: { type: "KeyToPath" },
  name: "ok",
  optional: "ok",
} satisfies Rules<V1ConfigMapProjection>;

export const SECRET_PROJECTION = {
  items: { type: "KeyToPath" },
  name: "ok",
  optional: "ok",
} satisfies Rules<V1SecretProjection>;

export const DOWNWARD_API_PROJECTION = {
  items: { type: "DownwardAPIVolumeFile" },
} satisfies Rules<V1DownwardAPIProjection>;

export const SERVICE_ACCOUNT_TOKEN = {
  audience: "ok",
  expirationSeconds: "ok",
  path: "ok",
  user: FILE_OWNER,
} satisfies Rules<V1ServiceAccountTokenProjection, "user">;
