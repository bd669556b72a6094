/**
 * Applies the upstream-settings table: reads a file field's value as Go would decode it, and
 * after the file and the flags are merged (flags win, as upstream), refuses every value the
 * table does not accept, naming the flag as written or `file: field`.
 */
import { ConfigError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { parseDuration } from "./duration.ts";
import { checkInt32 } from "./_values.ts";
import { decide, type FileType, type NodeFacts, type Setting } from "./_upstream_rules.ts";
import type { Given } from "./_upstream_given.ts";
import { NODE_SETTINGS } from "./_upstream_table_node.ts";
import { AGENT_SETTINGS } from "./_upstream_table_agent.ts";
import { FLAG_SETTINGS } from "./_upstream_table_flags.ts";

/** Every decision, in one list (the tests check it covers the upstream lists). */
export const SETTINGS: readonly Setting[] = [...NODE_SETTINGS, ...AGENT_SETTINGS, ...FLAG_SETTINGS];

const BY_FIELD = new Map(SETTINGS.filter((s) => s.field).map((s) => [s.field!, s]));
const BY_FLAG = new Map(SETTINGS.filter((s) => s.flag).map((s) => [s.flag!, s]));

/** The decision for an upstream field; every one has one (the table's tests check). */
export function settingOfField(name: string): Setting {
  return known(BY_FIELD.get(name), name);
}

/** The decision for an upstream flag; every one has one (the table's tests check). */
export function settingOfFlag(name: string): Setting {
  return known(BY_FLAG.get(name), `--${name}`);
}

function known(s: Setting | undefined, name: string): Setting {
  if (s === undefined) throw new Error(`the upstream-settings table has no decision for ${name}`);
  return s;
}

/** A file value of the wrong Go type; `at` is the path below the field (`.member`). */
export class FileValueError extends Error {
  constructor(readonly at: string, message: string) {
    super(message);
  }
}

/** Decodes a file value as Go would into `type`; durations become ms. Throws FileValueError. */
export function fileValue(type: FileType, v: unknown, at = ""): unknown {
  const bad = (expected: string): never => {
    throw new FileValueError(at, `expected ${expected}, got ${describe(v)}`);
  };
  if (typeof type === "object") {
    if (!isMap(v)) return bad("a map");
    const out: Record<string, unknown> = {};
    for (const [k, member] of Object.entries(v)) {
      const t = type.struct[k];
      if (t === undefined) throw new FileValueError(`${at}.${k}`, `unknown field "${k}"`);
      if (member !== null) out[k] = fileValue(t, member, `${at}.${k}`);
    }
    return out;
  }
  switch (type) {
    case "bool":
      return typeof v === "boolean" ? v : bad("true or false");
    case "int32":
      if (typeof v !== "number") return bad("an integer");
      try {
        return checkInt32(v);
      } catch (e) {
        throw new FileValueError(at, errorMessage(e));
      }
    case "int64":
      return Number.isSafeInteger(v) ? v : bad("an integer");
    case "float":
      return typeof v === "number" ? v : bad("a number");
    case "string":
      return typeof v === "string" ? v : bad("a string");
    case "duration":
      if (typeof v !== "string") return bad('a duration string such as "20s"');
      try {
        return parseDuration(v);
      } catch (e) {
        throw new FileValueError(at, errorMessage(e));
      }
    case "strings":
      return Array.isArray(v)
        ? v.map((x, i) => fileValue("string", x, `${at}[${i}]`))
        : bad("a list");
    case "int32s":
      return Array.isArray(v)
        ? v.map((x, i) => fileValue("int32", x, `${at}[${i}]`))
        : bad("a list");
    case "objects":
      return Array.isArray(v) ? v : bad("a list");
    case "map":
      if (!isMap(v)) return bad("a map of string to string");
      for (const [k, x] of Object.entries(v)) fileValue("string", x, `${at}.${k}`);
      return v;
  }
}

/**
 * Decides every given value: a flag wins over the file (the last occurrence of a scalar flag
 * wins; every occurrence of a map or list flag counts, as they add up). Throws ConfigError for
 * the first refused value; returns the warnings of accepted ones.
 */
export function checkUpstream(given: readonly Given[], node: () => NodeFacts): string[] {
  const bySetting = new Map<Setting, Given[]>();
  for (const g of given) {
    const setting = g.fromFile ? settingOfField(g.field) : settingOfFlag(g.flag);
    const value = !g.fromFile && setting.flagValue ? setting.flagValue(g.value) : g.value;
    bySetting.set(setting, [...(bySetting.get(setting) ?? []), { ...g, value }]);
  }
  const warnings: string[] = [];
  for (const [setting, all] of bySetting) {
    const flags = all.filter((g) => !g.fromFile);
    const effective = flags.length === 0 ? all : setting.flagValue ? flags : flags.slice(-1);
    for (const g of effective) {
      const verdict = decide(setting, g.value, { fromFile: g.fromFile, node });
      if (verdict && "refuse" in verdict) throw new ConfigError(g.where, verdict.refuse);
      if (verdict && "warn" in verdict) warnings.push(`${g.where}: ${verdict.warn}`);
    }
  }
  return warnings;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  if (typeof v === "string") return `string ${JSON.stringify(v)}`;
  return `${typeof v} ${String(v)}`;
}
