/**
 * How a flag is defined: its description, and the helpers every flag group builds flags with
 * (a plain value, or a map flag with pflag's replace-then-merge semantics).
 */
import type { AgentConfig } from "./types.ts";

/** What the help text calls the value type (pflag's names). */
export type TypeName =
  | "string"
  | "int32"
  | "int"
  | "duration"
  | "strings"
  | "colonSeparatedMultimapStringString"
  | "mapStringString"
  | "mapStringBool";

export interface FlagDef {
  name: string;
  short?: string;
  /** Value type for help; undefined for booleans, which take no separate argument. */
  type?: TypeName;
  help: string;
  /** The AgentConfig field set by this flag; undefined for --config, --help, --version. */
  field?: keyof AgentConfig;
  /** Converts the raw text; throws an Error with the reason. */
  parse(raw: string): unknown;
  /**
   * Stores a parsed value. `first` is true for the first occurrence on the command line: list and
   * map flags replace the earlier (default or file) value then, and append on later occurrences.
   */
  apply(cfg: AgentConfig, value: unknown, first: boolean): void;
}

/** A flag that sets one field; `merge` combines repeated occurrences (default: the last wins). */
export function field<K extends keyof AgentConfig>(spec: {
  name: string;
  short?: string;
  field: K;
  type?: TypeName;
  help: string;
  parse: (raw: string) => AgentConfig[K];
  merge?: (prev: AgentConfig[K], next: AgentConfig[K], first: boolean) => AgentConfig[K];
}): FlagDef {
  return {
    ...spec,
    apply(cfg, value, first) {
      const next = value as AgentConfig[K];
      cfg[spec.field] = spec.merge ? spec.merge(cfg[spec.field], next, first) : next;
    },
  };
}

/** `field` in positional form, for the flag groups' long lists. */
export function scalar<K extends keyof AgentConfig>(
  name: string,
  key: K,
  type: TypeName | undefined,
  help: string,
  parse: (raw: string) => AgentConfig[K],
): FlagDef {
  return field({ name, field: key, type, help, parse });
}

type MapKey = {
  [K in keyof AgentConfig]: AgentConfig[K] extends Record<string, string> ? K : never;
}[
  keyof AgentConfig
];

/**
 * A map flag (pflag/cliflag): the first occurrence on the command line replaces the default or
 * file value, later ones add to it. `parse` splits the pairs.
 */
export function mapFlag(
  name: string,
  key: MapKey,
  help: string,
  parse: (raw: string) => Record<string, string>,
): FlagDef {
  return field({
    name,
    field: key,
    type: "mapStringString",
    help,
    parse: parse as (raw: string) => AgentConfig[MapKey],
    merge: (prev, next, first) =>
      (first ? { ...next } : { ...prev, ...next }) as AgentConfig[MapKey],
  });
}
