/**
 * What the checkpoint keeps of the node's desired state, and the seam its users (the `api`
 * source, the object managers) see. Those import these types only.
 */
import type {
  V1ConfigMap,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
  V1Service,
} from "@kubernetes/client-node";
import { DenoletError } from "../util/errors.ts";

/**
 * The format this agent writes (one file per object); it reads this one, migrates version 1
 * (one file per kind) and refuses others cleanly.
 */
export const CHECKPOINT_VERSION = 2;

/** A directory per kind: `<root-dir>/checkpoint/<kind>/`. */
export type CheckpointKind =
  | "pods"
  | "configmaps"
  | "secrets"
  | "tokens"
  | "services"
  | "persistentvolumeclaims"
  | "persistentvolumes";

/** The pods bound to this node as the `api` source last had them (mirror pods left out). */
export interface PodsCheckpoint {
  pods: V1Pod[];
}

/** ConfigMaps or Secrets the pods use, as their watches last showed them. */
export interface ObjectsCheckpoint<T> {
  objects: T[];
}

export type ConfigMapsCheckpoint = ObjectsCheckpoint<V1ConfigMap>;
export type SecretsCheckpoint = ObjectsCheckpoint<V1Secret>;
/** The cluster's Services as the service-link env needs them (name, ClusterIP, ports). */
export type ServicesCheckpoint = ObjectsCheckpoint<V1Service>;

/** The claims the pods' volumes name, as last read (edge autonomy for PVC pods). */
export type ClaimsCheckpoint = ObjectsCheckpoint<V1PersistentVolumeClaim>;
/** The PersistentVolumes bound to those claims (cluster-scoped: no namespace). */
export type PersistentVolumesCheckpoint = ObjectsCheckpoint<V1PersistentVolume>;

/** A service-account token as the token manager caches it. */
export interface SavedToken {
  /** The cache key (service account, audience, lifetime and pod). */
  key: string;
  podUid: string;
  token: string;
  /** ms since the epoch. */
  expiresAt: number;
  refreshAt: number;
}

export interface TokensCheckpoint {
  tokens: SavedToken[];
}

/**
 * One kind's checkpoint as its owner sees it: what the previous run saved, and a way to save the
 * current state. Writes are debounced and happen in the background.
 */
export interface CheckpointSlot<T> {
  /** When what `take` hands over was written (ms since the epoch); undefined without it. */
  readonly savedAt: number | undefined;
  /**
   * What was saved before this start, handed over once: the slot keeps no reference, so the
   * owner frees the memory when done with it. Undefined when nothing usable was there, and on
   * every later call.
   */
  take(): T | undefined;
  /**
   * Asks for the state `produce` returns to be written soon. Calls within the debounce window
   * coalesce into one write of the latest state (`produce` runs at write time). Never blocks,
   * never throws; a failed write is logged and tried again later, the previous file staying.
   */
  schedule(produce: () => T): void;
}

/** The checkpoint's slots, one per kind. */
export interface CheckpointSlots {
  pods: CheckpointSlot<PodsCheckpoint>;
  configMaps: CheckpointSlot<ConfigMapsCheckpoint>;
  /** Absent with --api-checkpoint-secrets=false: Secrets and tokens are not kept on disk. */
  secrets?: CheckpointSlot<SecretsCheckpoint>;
  tokens?: CheckpointSlot<TokensCheckpoint>;
  services: CheckpointSlot<ServicesCheckpoint>;
  claims?: CheckpointSlot<ClaimsCheckpoint>;
  persistentVolumes?: CheckpointSlot<PersistentVolumesCheckpoint>;
}

/** A checkpoint file could not be written (the previous one stays). */
export class CheckpointError extends DenoletError {}
