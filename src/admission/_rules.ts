/**
 * The field table's vocabulary and its walker. Every field of the Pod types has a rule saying
 * what this node does with it; the walker applies the rules to a pod and collects the fields it
 * asks for that the node cannot give, so that no setting is ever dropped without a word.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { RuntimeCapabilities } from "../kubelet/runtime_state.ts";

/** What the walker knows about the node and the pod's source. */
export interface FieldContext {
  /** The pod came from an API server (its object references can be resolved). */
  apiMode: boolean;
  runtime: RuntimeCapabilities;
}

/** A field whose non-default value the node cannot honour, and what that value asks for. */
export interface Unsupported {
  /** JSON path of the field, `spec.volumes[0].csi`. */
  field: string;
  /** What the value asks for, in a few words: "CSI volumes". */
  what: string;
}

export interface Ask {
  pod: V1Pod;
  ctx: FieldContext;
}

/** Where a `when` looks: the pod and node, the object holding the field, and its path. */
export interface At extends Ask {
  parent: Readonly<Record<string, unknown>>;
  /** The field's own path, `spec.initContainers[0].restartPolicy`. */
  field: string;
}

/**
 * - `"ok"`: honoured as the upstream kubelet honours it (a leaf, or an object handled whole).
 * - `"inert"`: the upstream kubelet does nothing with it either (the scheduler's, the API
 *   server's, or Windows-only).
 * - `{ type }`: an object, or a list of objects, whose own fields have rules in `TABLE[type]`.
 * - `{ refuse }`: a set value asks for something this node does not do; `when` narrows what
 *   counts (default: `isSet`), and may return its own description of what is asked.
 */
export type Rule =
  | "ok"
  | "inert"
  | { type: string; when?: undefined; refuse?: undefined }
  | {
    refuse: string;
    when?: (value: unknown, at: At) => boolean | string;
    type?: undefined;
  };

export type TypeRules = Readonly<Record<string, Rule>>;
export type Table = Readonly<Record<string, TypeRules>>;

/**
 * Whether a value is set: present and not the zero value of its JSON type. Objects count when
 * any field in them is set, so `{}` or `{ add: [] }` asks for nothing.
 */
export function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.values(v as object).some(isSet);
  return true;
}

/** Present at all, `{}` included: a volume source chooses its kind by being there. */
export function isPresent(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/**
 * Walks `value` (of schema type `type`) and returns every field the node cannot honour. Fields
 * the table does not name are reported too: a field added to the API after this table was
 * written must not slip through unnoticed.
 */
export function findUnsupported(
  table: Table,
  root: { type: string; value: unknown; path: string },
  ask: Ask,
): Unsupported[] {
  const out: Unsupported[] = [];
  walk(table, root.type, root.value, root.path, ask, out);
  return out;
}

function walk(
  table: Table,
  type: string,
  value: unknown,
  path: string,
  ask: Ask,
  out: Unsupported[],
): void {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(table, type, item, `${path}[${i}]`, ask, out));
    return;
  }
  const rules = table[type];
  const parent = value as Record<string, unknown>;
  for (const [key, v] of Object.entries(parent)) {
    if (!isPresent(v)) continue;
    const field = path ? `${path}.${key}` : key;
    const rule = rules?.[key];
    if (rule === undefined) {
      if (isSet(v)) out.push({ field, what: "a field this node does not know" });
      continue;
    }
    if (rule === "ok" || rule === "inert") continue;
    if (rule.type !== undefined) {
      walk(table, rule.type, v, field, ask, out);
      continue;
    }
    const verdict = rule.when ? rule.when(v, { ...ask, parent, field }) : isSet(v);
    if (verdict === false) continue;
    out.push({ field, what: typeof verdict === "string" ? verdict : rule.refuse });
  }
}
