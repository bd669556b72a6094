/**
 * The shape each kind's data must have to be used. A file that parses but does not fit is
 * treated as corrupt: better no checkpoint than pods built from half an object.
 */
import type {
  CheckpointKind,
  ConfigMapsCheckpoint,
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

function named(item: Record<string, unknown>, opts: { uid: boolean }): string | undefined {
  const m = item.metadata;
  if (!isObject(m)) return "no metadata";
  for (const f of ["name", "namespace", ...(opts.uid ? ["uid"] : [])]) {
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
