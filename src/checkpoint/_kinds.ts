/**
 * The shape each kind's data must have to be used. A file that parses but does not fit is
 * treated as corrupt: better no checkpoint than pods built from half an object.
 */
import { sha256Hex } from "../util/digest.ts";
import type {
  CheckpointKind,
  ClaimsCheckpoint,
  ConfigMapsCheckpoint,
  PersistentVolumesCheckpoint,
  PodsCheckpoint,
  SecretsCheckpoint,
  ServicesCheckpoint,
  TokensCheckpoint,
} from "./types.ts";

export interface KindData {
  pods: PodsCheckpoint;
  configmaps: ConfigMapsCheckpoint;
  secrets: SecretsCheckpoint;
  tokens: TokensCheckpoint;
  services: ServicesCheckpoint;
  persistentvolumeclaims: ClaimsCheckpoint;
  persistentvolumes: PersistentVolumesCheckpoint;
}

type Check = (data: unknown) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function eachItem(
  data: unknown,
  field: string,
  check: (item: Record<string, unknown>) => string | undefined,
): string | undefined {
  if (!isObject(data) || !Array.isArray(data[field])) return `no "${field}" list`;
  for (const [i, item] of (data[field] as unknown[]).entries()) {
    const why = isObject(item) ? check(item) : "not an object";
    if (why) return `${field}[${i}]: ${why}`;
  }
  return undefined;
}

function named(
  item: Record<string, unknown>,
  opts: { uid: boolean; cluster?: boolean },
): string | undefined {
  const m = item.metadata;
  if (!isObject(m)) return "no metadata";
  const fields = ["name", ...(opts.cluster ? [] : ["namespace"]), ...(opts.uid ? ["uid"] : [])];
  for (const f of fields) {
    if (typeof m[f] !== "string" || m[f] === "") return `no metadata.${f}`;
  }
  return undefined;
}

const CHECKS: Record<CheckpointKind, Check> = {
  pods: (d) =>
    eachItem(
      d,
      "pods",
      (p) => named(p, { uid: true }) ?? (isObject(p.spec) ? undefined : "no spec"),
    ),
  configmaps: (d) => eachItem(d, "objects", (o) => named(o, { uid: false })),
  secrets: (d) => eachItem(d, "objects", (o) => named(o, { uid: false })),
  services: (d) => eachItem(d, "objects", (o) => named(o, { uid: false })),
  persistentvolumeclaims: (d) => eachItem(d, "objects", (o) => named(o, { uid: true })),
  persistentvolumes: (d) => eachItem(d, "objects", (o) => named(o, { uid: false, cluster: true })),
  tokens: (d) =>
    eachItem(d, "tokens", (t) => {
      for (const f of ["key", "podUid", "token"]) if (typeof t[f] !== "string") return `no ${f}`;
      for (const f of ["expiresAt", "refreshAt"]) {
        if (typeof t[f] !== "number" || !Number.isFinite(t[f])) return `no ${f}`;
      }
      return undefined;
    }),
};

/** Why `data` cannot be this kind's, or undefined when it fits. */
export function checkKind(kind: CheckpointKind, data: unknown): string | undefined {
  return CHECKS[kind](data);
}

/** Each kind's list of items: one checkpoint file per item. */
export type Item = Record<string, unknown>;

const LIST_FIELD: Record<CheckpointKind, "pods" | "objects" | "tokens"> = {
  pods: "pods",
  configmaps: "objects",
  secrets: "objects",
  services: "objects",
  persistentvolumeclaims: "objects",
  persistentvolumes: "objects",
  tokens: "tokens",
};

/** The items of one kind's data. */
export function itemsOf(kind: CheckpointKind, data: unknown): Item[] {
  return (data as Record<string, Item[]>)[LIST_FIELD[kind]] ?? [];
}

/** One kind's data made of its items. */
export function dataOf<K extends CheckpointKind>(kind: K, items: Item[]): KindData[K] {
  return { [LIST_FIELD[kind]]: items } as unknown as KindData[K];
}

/** Why `item` cannot be one of this kind's, or undefined when it fits. */
export function checkItem(kind: CheckpointKind, item: unknown): string | undefined {
  return checkKind(kind, { [LIST_FIELD[kind]]: [item] })?.replace(/^\w+\[0\]: /, "");
}

/**
 * The item's file name (without `.json`): pods by UID; ConfigMaps, Secrets and Services by
 * `<namespace>_<name>` (neither may hold `_`), PersistentVolumes (cluster-scoped) by name; tokens by a digest of their cache key, which
 * holds names and an audience of any length.
 */
export async function itemName(kind: CheckpointKind, item: Item): Promise<string> {
  const m = (item.metadata ?? {}) as Record<string, string>;
  if (kind === "pods") return m.uid;
  if (kind === "tokens") return await sha256Hex(String(item.key));
  if (kind === "persistentvolumes") return m.name;
  return `${m.namespace}_${m.name}`;
}

/**
 * What tells two versions of an item apart without serialising it: the UID and
 * resourceVersion the API server stamps, the token and its times for tokens.
 */
export function itemVersion(kind: CheckpointKind, item: Item): string {
  if (kind === "tokens") return `${item.token}/${item.expiresAt}/${item.refreshAt}`;
  const m = (item.metadata ?? {}) as Record<string, unknown>;
  if (typeof m.resourceVersion === "string" && m.resourceVersion !== "") {
    return `${m.uid}/${m.resourceVersion}`;
  }
  return JSON.stringify(item); // no resourceVersion (made by hand): compare the content
}
