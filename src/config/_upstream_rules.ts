/**
 * The vocabulary of the upstream-settings table (`_upstream_table*.ts`): how a KubeletConfiguration
 * field denolet does not implement is typed in the file, and the rule that decides whether a
 * value is accepted. "Honour or refuse, never ignore": a setting denolet does not implement is
 * accepted only at upstream's default (or a value that behaves the same on this node), unless it
 * cannot change what a pod or the node does (logging, debugging, settings upstream itself reads
 * nowhere); everything else is refused at start, naming the flag or `file: field` and the value.
 */
import { formatDuration } from "./duration.ts";

/** A field's Go type, as far as checking the file's value goes. */
export type FileType =
  | "bool"
  | "int32"
  | "int64"
  | "float"
  | "string"
  | "duration"
  | "strings"
  | "int32s"
  | "map"
  | "objects"
  | { struct: Record<string, FileType> };

/** What the node is, for the few rules whose answer depends on it. */
export interface NodeFacts {
  /** The unified cgroup hierarchy (cgroup v2) is mounted at /sys/fs/cgroup. */
  cgroupV2: boolean;
}

/**
 * The decision for one value (normalized: durations in ms, maps and structs as objects).
 * `refuse`: the start fails with this reason; `warn`: accepted, with this warning.
 */
export type Verdict = { refuse: string } | { warn: string } | undefined;

export type Rule =
  /** Accepted values; any other is refused because denolet does not implement `what`. */
  | {
    kind: "only";
    values: readonly unknown[];
    what: string;
    node?: NodeCheck;
    /** The one accepted value is not upstream's default (the message must not say it is). */
    notDefault?: boolean;
  }
  /** Every value upstream accepts (`check` holds upstream's own validation, if any). */
  | { kind: "inert"; check?: (v: unknown) => string | undefined }
  /** Logging, debugging or telemetry only: any value; a warning when it is not the default. */
  | { kind: "observability"; defaults: readonly unknown[]; what: string };

/** A further answer for a value the rule accepts, from what the node is. */
type NodeCheck = (v: unknown, node: () => NodeFacts) => string | undefined;

export interface Setting {
  /** The KubeletConfiguration field (top level), when there is one. */
  field?: string;
  /** The command-line flag without dashes, when there is one. */
  flag?: string;
  /** How the file types the field. */
  type: FileType;
  /**
   * The field is a non-pointer Go field that upstream's SetDefaults fills in when it holds its
   * zero value (kubeadm writes `0s` and `""` for them): the zero value in the file is the default.
   * Flags are never defaulted that way.
   */
  zeroIsDefault?: boolean;
  /** Turns the flag's parsed value into the field's form (a map flag's "" into {}). */
  flagValue?: (v: unknown) => unknown;
  /** Upstream's default, for the reviewer. */
  upstream: string;
  rule: Rule;
  /** Why the accepted values are honest on denolet. */
  why: string;
}

export function only(
  values: readonly unknown[],
  what: string,
  node?: NodeCheck,
  opts: { notDefault?: boolean } = {},
): Rule {
  return { kind: "only", values, what, node, ...opts };
}

export function inert(check?: (v: unknown) => string | undefined): Rule {
  return { kind: "inert", check };
}

export function observability(defaults: readonly unknown[], what: string): Rule {
  return { kind: "observability", defaults, what };
}

/** The zero value of a type, as Go decodes it. */
export function zeroOf(type: FileType): unknown {
  switch (type) {
    case "bool":
      return false;
    case "int32":
    case "int64":
    case "float":
    case "duration":
      return 0;
    case "string":
      return "";
    case "strings":
    case "int32s":
    case "objects":
      return [];
    default:
      return {};
  }
}

/** Decides one value of `s`; `fromFile` says whether the value is the file's (zero = default). */
export function decide(
  s: Setting,
  value: unknown,
  opts: { fromFile: boolean; node: () => NodeFacts },
): Verdict {
  const rule = s.rule;
  const isZeroDefault = opts.fromFile && s.zeroIsDefault && same(value, zeroOf(s.type));
  if (isZeroDefault) return undefined;
  if (rule.kind === "inert") {
    const problem = rule.check?.(value);
    return problem === undefined ? undefined : { refuse: problem };
  }
  if (rule.kind === "observability") {
    if (rule.defaults.some((d) => same(d, value))) return undefined;
    return { warn: `${show(s.type, value)}: ${rule.what}; accepted, as it changes no pod or node` };
  }
  if (!rule.values.some((d) => same(d, value))) {
    const accepted = rule.values.length === 0
      ? "the default (unset) is"
      : rule.values.length === 1
      ? `${rule.notDefault ? "" : "the default "}${show(s.type, rule.values[0])} is`
      : `${rule.values.map((d) => show(s.type, d)).join(" or ")} are`;
    return {
      refuse: `${show(s.type, value)}: denolet does not implement ${rule.what}; only ` +
        `${accepted} accepted`,
    };
  }
  const problem = rule.node?.(value, opts.node);
  return problem === undefined ? undefined : { refuse: problem };
}

/** A value as the user would write it: durations in Go syntax, the rest as JSON. */
export function show(type: FileType, v: unknown): string {
  if (type === "duration" && typeof v === "number") return formatDuration(v);
  if (typeof type === "object" && typeof v === "object" && v !== null && !Array.isArray(v)) {
    const members = Object.entries(v).map(([k, x]) => `${k}: ${show(type.struct[k] ?? "map", x)}`);
    return `{${members.join(", ")}}`;
  }
  if (type === "string" && typeof v !== "string") return JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

/** Deep equality of JSON-like values (maps compare by key, whatever the order). */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && same(ra[k], rb[k]));
}
