/**
 * The readers a KubeletConfiguration file's fields go through (`_file.ts` maps each field to
 * one): each checks Go's type for the value, keeps upstream's zero-value defaulting, and sets
 * the AgentConfig field with its origin. A value of the wrong type fails naming file and field.
 */
import { posix } from "node:path";
import { ConfigError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { DurationSyntaxError, parseDuration } from "./duration.ts";
import { checkInt32, closest } from "./_values.ts";
import type { Given, UpstreamTable } from "./_upstream_given.ts";
import { readLoggingField } from "./_logging_field.ts";
import { parseByteQuantity } from "./_gc_flags.ts";
import { checkTaint } from "./_taints.ts";
import { FieldProblem, parseByPodPriority } from "./_shutdown_fields.ts";
import type { AgentConfig } from "./types.ts";

export interface Ctx {
  cfg: AgentConfig;
  origin: Map<keyof AgentConfig, string>;
  /** Names the file in messages: `kubelet.yaml: syncFrequency`. */
  file: string;
  /** Absolute directory of the file, for relative paths. */
  dir: string;
  warnings: string[];
  /** Values of the upstream fields denolet does not implement, for the table's decision. */
  given: Given[];
  /** Loaded when the document sets an upstream field (`upstreamTableFor`). */
  table?: UpstreamTable;
}

export type Reader = (value: unknown, ctx: Ctx, path: string) => void;

type KeysOf<T> = {
  [K in keyof AgentConfig]: AgentConfig[K] extends T ? K : never;
}[keyof AgentConfig];

export function fail(ctx: Ctx, path: string, message: string, cause?: unknown): never {
  throw new ConfigError(`${ctx.file}: ${path}`, message, cause ? { cause } : undefined);
}

function set<K extends keyof AgentConfig>(ctx: Ctx, key: K, value: AgentConfig[K], path: string) {
  ctx.cfg[key] = value;
  ctx.origin.set(key, `${ctx.file}: ${path}`);
}

function expectString(value: unknown, ctx: Ctx, path: string): string {
  if (typeof value !== "string") {
    // The user wrote `no` or `on`, not `false`: say why it is not text.
    const hint = typeof value === "boolean"
      ? " (quote it: YAML 1.1 reads unquoted yes, no, on and off as booleans)"
      : "";
    fail(ctx, path, `expected a string, got ${describe(value)}${hint}`);
  }
  return value;
}

/** A string field. `zeroIsUnset`: "" keeps the default, as upstream defaulting does. */
export function str(
  key: KeysOf<string>,
  opts: { zeroIsUnset?: boolean; isPath?: boolean } = {},
): Reader {
  return (value, ctx, path) => {
    let s = expectString(value, ctx, path);
    if (s === "" && opts.zeroIsUnset) return;
    if (opts.isPath && s !== "" && !posix.isAbsolute(s)) s = posix.resolve(ctx.dir, s);
    set(ctx, key, s, path);
  };
}

/** A metav1.Duration field; "0s" keeps the default (upstream compares against zeroDuration). */
export function duration(key: KeysOf<number>): Reader {
  return (value, ctx, path) => {
    if (typeof value !== "string") {
      fail(ctx, path, `expected a duration string such as "20s", got ${describe(value)}`);
    }
    let ms: number;
    try {
      ms = parseDuration(value);
    } catch (e) {
      if (!(e instanceof DurationSyntaxError)) throw e;
      fail(ctx, path, e.message, e);
    }
    if (ms !== 0) set(ctx, key, ms, path);
  };
}

export function int32(key: KeysOf<number>, opts: { zeroIsUnset: boolean }): Reader {
  return (value, ctx, path) => {
    if (typeof value !== "number") fail(ctx, path, `expected an integer, got ${describe(value)}`);
    let n: number;
    try {
      n = checkInt32(value);
    } catch (e) {
      fail(ctx, path, errorMessage(e), e);
    }
    if (n === 0 && opts.zeroIsUnset) return;
    set(ctx, key, n, path);
  };
}

/** A Go int64 field: any integer JS holds exactly; 0 is kept (pointer fields upstream). */
export function int64(key: KeysOf<number>): Reader {
  return (value, ctx, path) => {
    if (typeof value !== "number" || !Number.isSafeInteger(value)) {
      fail(ctx, path, `expected an integer, got ${describe(value)}`);
    }
    set(ctx, key, value, path);
  };
}

export function stringList(key: KeysOf<string[]>): Reader {
  return (value, ctx, path) => {
    if (!Array.isArray(value)) {
      fail(ctx, path, `expected a list of strings, got ${describe(value)}`);
    }
    const items = value.map((v, i) => expectString(v, ctx, `${path}[${i}]`));
    set(ctx, key, items, path);
  };
}

export const readHeaders: Reader = (value, ctx, path) => {
  if (!isMap(value)) {
    fail(ctx, path, `expected a map of header name to a list of values, got ${describe(value)}`);
  }
  const out: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(value)) {
    const at = `${path}.${name}`;
    if (values === null) continue;
    if (!Array.isArray(values)) {
      fail(ctx, at, `expected a list of strings (e.g. ["v"]), got ${describe(values)}`);
    }
    out[name] = values.map((v, i) => expectString(v, ctx, `${at}[${i}]`));
  }
  set(ctx, "staticPodURLHeader", out, path);
};

/** registerWithTaints: a list of core/v1 Taint objects. */
export const readTaints: Reader = (value, ctx, path) => {
  if (!Array.isArray(value)) fail(ctx, path, `expected a list of taints, got ${describe(value)}`);
  const out = value.map((item, i) => {
    const at = `${path}[${i}]`;
    if (!isMap(item)) fail(ctx, at, `expected a taint {key, value, effect}, got ${describe(item)}`);
    const taint = {
      key: expectString(item.key ?? "", ctx, `${at}.key`),
      value: item.value === undefined || item.value === null
        ? undefined
        : expectString(item.value, ctx, `${at}.value`),
      effect: expectString(item.effect ?? "", ctx, `${at}.effect`),
    };
    try {
      return checkTaint(taint);
    } catch (e) {
      return fail(ctx, at, errorMessage(e), e);
    }
  });
  set(ctx, "registerWithTaints", out, path);
};

export const readLogging: Reader = (value, ctx, path) => {
  const read = readLoggingField(value, { file: ctx.file, path });
  if (read.verbosity !== undefined) set(ctx, "verbosity", read.verbosity, `${path}.verbosity`);
  ctx.warnings.push(...read.warnings);
};

/** A map[string]string field (evictionHard, ...): the file's map replaces the default. */
export function stringMap(key: KeysOf<Record<string, string>>): Reader {
  return (value, ctx, path) => {
    if (!isMap(value)) {
      fail(ctx, path, `expected a map of string to string, got ${describe(value)}`);
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expectString(v, ctx, `${path}.${k}`);
    set(ctx, key, out, path);
  };
}

/** featureGates: a map of gate name to boolean; the file's map replaces the default. */
export const readFeatureGates: Reader = (value, ctx, path) => {
  if (!isMap(value)) {
    fail(ctx, path, `expected a map of gate name to boolean, got ${describe(value)}`);
  }
  const out: Record<string, boolean> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "boolean") {
      fail(ctx, `${path}.${k}`, `expected true or false, got ${describe(v)}`);
    }
    out[k] = v;
  }
  set(ctx, "featureGates", out, path);
};

export function bool(key: KeysOf<boolean>): Reader {
  return (value, ctx, path) => {
    if (typeof value !== "boolean") {
      fail(ctx, path, `expected true or false, got ${describe(value)}`);
    }
    set(ctx, key, value, path);
  };
}

/** containerLogMaxSize: a quantity string ("10Mi"); "" keeps the default. */
export const readByteQuantity: Reader = (value, ctx, path) => {
  const s = expectString(value, ctx, path);
  if (s === "") return;
  try {
    set(ctx, "containerLogMaxSizeBytes", parseByteQuantity(s), path);
  } catch (e) {
    fail(ctx, path, errorMessage(e), e);
  }
};

/** A nested struct (authentication, ...): members by JSON name; unknown members are errors. */
export function struct(members: Record<string, Reader>): Reader {
  return (value, ctx, path) => {
    if (!isMap(value)) fail(ctx, path, `expected a map, got ${describe(value)}`);
    for (const [name, v] of Object.entries(value)) {
      const at = `${path}.${name}`;
      const read = members[name];
      if (read === undefined) {
        const near = closest(name, Object.keys(members));
        fail(ctx, at, `unknown field "${name}"${near ? ` (did you mean "${near}"?)` : ""}`);
      }
      if (v !== null) read(v, ctx, at);
    }
  };
}

/** A string enum; "" keeps the default, as upstream defaulting does. */
export function oneOf(key: KeysOf<string>, values: readonly string[]): Reader {
  return (value, ctx, path) => {
    const s = expectString(value, ctx, path);
    if (s === "") return;
    if (!values.includes(s)) {
      fail(ctx, path, `${JSON.stringify(s)} must be one of ${values.join(", ")}`);
    }
    set(ctx, key, s, path);
  };
}

/** userNamespaces.idsPerPod: an int64 upstream, checked by validation (it may pass 2^31). */
export const readIdsPerPod: Reader = (value, ctx, path) => {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    fail(ctx, path, `expected an integer, got ${describe(value)}`);
  }
  set(ctx, "userNamespacesIdsPerPod", value, path);
};

export const readShutdownByPriority: Reader = (value, ctx, path) => {
  let entries;
  try {
    entries = parseByPodPriority(value, path);
  } catch (e) {
    if (!(e instanceof FieldProblem)) throw e;
    return fail(ctx, e.at, e.message);
  }
  set(ctx, "shutdownGracePeriodByPodPriority", entries, path);
};

export function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  if (typeof v === "string") return `string ${JSON.stringify(v)}`;
  return `${typeof v} ${String(v)}`;
}
