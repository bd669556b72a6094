/**
 * The subset of CRI `runtime.v1` that denolet uses, as plain TypeScript shapes.
 * Field names are the proto names in lowerCamelCase (as the generated codecs in `_codec.ts` yield
 * them); enums are their proto value names; int64 values are JS numbers
 * (nanosecond timestamps lose sub-microsecond precision, which nothing here needs).
 * Optional fields are omitted when unset.
 */

import type { Int64Value } from "./_linux_types.ts";

export type Labels = Record<string, string>;

export type * from "./_stats_types.ts";
export type * from "./_service_types.ts";
export type * from "./_linux_types.ts";
export type * from "./_sandbox_types.ts";
export type * from "./_container_types.ts";

export interface VersionResponse {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

// ---- runtime status ----

export interface RuntimeCondition {
  type: string;
  status: boolean;
  reason: string;
  message: string;
}

export interface RuntimeStatus {
  conditions: RuntimeCondition[];
}

export interface RuntimeHandlerFeatures {
  recursiveReadOnlyMounts: boolean;
  userNamespaces: boolean;
}

/** A runtime handler (a RuntimeClass's `handler`); "" is the default handler. */
export interface RuntimeHandler {
  name: string;
  features?: RuntimeHandlerFeatures;
}

export interface RuntimeFeatures {
  supplementalGroupsPolicy: boolean;
  userNamespacesHostNetwork: boolean;
  mountOptions: boolean;
}

/** CRI StatusResponse: conditions, and (CRI 1.30+) the handlers and features the runtime serves. */
export interface StatusResponse {
  status?: RuntimeStatus;
  runtimeHandlers: RuntimeHandler[];
  features?: RuntimeFeatures;
}

/** CRI RuntimeConfig (1.34+ runtimes): the cgroup driver the runtime uses. */
export interface RuntimeConfigResponse {
  linux?: { cgroupDriver: "SYSTEMD" | "CGROUPFS" };
}

// ---- images ----

export interface Image {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  /** Bytes. */
  size: number;
  /** The image config's user when it is numeric (the part before any ":group"). */
  uid?: Int64Value;
  /** The image config's user when it is a name; "" or absent otherwise. */
  username?: string;
  pinned?: boolean;
}

export interface FilesystemUsage {
  timestamp: number;
  fsId?: { mountpoint: string };
  usedBytes?: { value: number };
  inodesUsed?: { value: number };
}
