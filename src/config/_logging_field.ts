/**
 * The file's `logging` struct (component-base LoggingConfiguration). denolet honours
 * `verbosity`; the rest only shapes the agent's own log output (format, flushing, per-file
 * verbosity, split streams), so any valid value is accepted, with a warning when it asks for
 * something other than upstream's default, since no pod or node behaviour depends on it.
 */
import { ConfigError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { parseDuration } from "./duration.ts";

const LOG_FLUSH_DEFAULT_MS = 5_000;

export interface LoggingField {
  verbosity?: number;
  warnings: string[];
}

/** Reads `logging` at `path` of `file`; throws ConfigError naming the member at fault. */
export function readLoggingField(value: unknown, at: { file: string; path: string }): LoggingField {
  const out: LoggingField = { warnings: [] };
  const fail = (p: string, message: string): never => {
    throw new ConfigError(`${at.file}: ${p}`, message);
  };
  const warn = (p: string, message: string) => {
    out.warnings.push(`${at.file}: ${p}: ${message}; accepted, as it changes no pod or node`);
  };
  const map = (v: unknown, p: string): Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? v as Record<string, unknown>
      : fail(p, `expected a map, got ${describe(v)}`);

  for (const [k, v] of Object.entries(map(value, at.path))) {
    const p = `${at.path}.${k}`;
    if (v === null) continue;
    switch (k) {
      case "verbosity":
        if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 2 ** 32 - 1) {
          fail(p, `expected a non-negative integer, got ${describe(v)}`);
        }
        out.verbosity = v as number;
        break;
      case "format":
        if (v === "json") warn(p, "denolet writes text logs only");
        else if (v !== "text" && v !== "") {
          fail(p, `Unsupported value: ${JSON.stringify(v)}: supported values: "json", "text"`);
        }
        break;
      case "flushFrequency": {
        // TimeOrMetaDuration: nanoseconds as a number, or a duration string.
        let ms: number;
        if (typeof v === "number" && Number.isInteger(v)) ms = v / 1e6;
        else if (typeof v === "string") {
          try {
            ms = parseDuration(v);
          } catch (e) {
            return fail(p, errorMessage(e));
          }
        } else return fail(p, `expected a duration, got ${describe(v)}`);
        if (ms !== 0 && ms !== LOG_FLUSH_DEFAULT_MS) {
          warn(p, "denolet writes each log line at once");
        }
        break;
      }
      case "vmodule":
        if (!Array.isArray(v)) fail(p, `expected a list, got ${describe(v)}`);
        if ((v as unknown[]).length > 0) {
          warn(p, "denolet has no per-file verbosity; verbosity applies everywhere");
        }
        break;
      case "options":
        readOptions(map(v, p), p, { fail, warn, map });
        break;
      default:
        fail(p, `unknown field "${k}"`);
    }
  }
  return out;
}

function readOptions(
  options: Record<string, unknown>,
  path: string,
  f: {
    fail: (p: string, m: string) => never;
    warn: (p: string, m: string) => void;
    map: (v: unknown, p: string) => Record<string, unknown>;
  },
): void {
  for (const [format, v] of Object.entries(options)) {
    const p = `${path}.${format}`;
    if (format !== "text" && format !== "json") f.fail(p, `unknown field "${format}"`);
    if (v === null) continue;
    for (const [k, x] of Object.entries(f.map(v, p))) {
      const q = `${p}.${k}`;
      if (x === null) continue;
      if (k === "splitStream") {
        if (typeof x !== "boolean") f.fail(q, `expected true or false, got ${describe(x)}`);
        if (x) f.warn(q, "denolet writes one stream, to stderr");
      } else if (k === "infoBufferSize") {
        if (typeof x !== "string" && typeof x !== "number") {
          f.fail(q, `expected a quantity, got ${describe(x)}`);
        }
        if (x !== "0" && x !== 0) f.warn(q, "denolet buffers no log lines");
      } else f.fail(q, `unknown field "${k}"`);
    }
  }
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object" && v !== null) return "a map";
  if (typeof v === "string") return `string ${JSON.stringify(v)}`;
  return `${typeof v} ${String(v)}`;
}
