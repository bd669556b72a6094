/**
 * Structured, levelled logging. Lines are `key=value` (logfmt) on stderr by default.
 * Verbosity follows klog: `-v=N` enables `debug(n, ...)` calls with n <= N.
 */
export type Fields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  /** Verbose line, shown when the configured verbosity is at least `level`. */
  debug(level: number, msg: string, fields?: Fields): void;
  /** A logger that adds `fields` to every line (for example `pod` and `uid`). */
  child(fields: Fields): Logger;
}

export interface LoggerOptions {
  verbosity?: number;
  /** Where lines go; defaults to stderr. Tests pass an array pusher. */
  write?: (line: string) => void;
  now?: () => number;
}

const encoder = new TextEncoder();

export function createLogger(opts: LoggerOptions = {}, base: Fields = {}): Logger {
  const verbosity = opts.verbosity ?? 0;
  const write = opts.write ??
    ((line: string) => Deno.stderr.writeSync(encoder.encode(line + "\n")));
  const now = opts.now ?? (() => Date.now());
  const emit = (level: string, msg: string, fields?: Fields) => {
    write(formatLine(now(), level, msg, { ...base, ...fields }));
  };
  return {
    info: (msg, f) => emit("info", msg, f),
    warn: (msg, f) => emit("warn", msg, f),
    error: (msg, f) => emit("error", msg, f),
    debug: (level, msg, f) => {
      if (level <= verbosity) emit("debug", msg, { v: level, ...f });
    },
    child: (fields) => createLogger(opts, { ...base, ...fields }),
  };
}

/** A logger that drops everything (unit tests that do not look at logs). */
export const nullLogger: Logger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  child: () => nullLogger,
};

export function formatLine(ts: number, level: string, msg: string, fields: Fields): string {
  let line = `time=${new Date(ts).toISOString()} level=${level} msg=${quote(msg)}`;
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    line += ` ${k}=${quote(formatValue(v))}`;
  }
  return line;
}

function formatValue(v: unknown): string {
  if (v instanceof Error) return errorMessage(v);
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || v === null) return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** Error message including the cause chain: "a: b: c". */
export function errorMessage(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let i = 0; cur !== undefined && cur !== null && i < 8; i++) {
    if (cur instanceof Error) {
      if (!parts.some((p) => p.includes(cur instanceof Error ? cur.message : ""))) {
        parts.push(cur.message);
      }
      cur = cur.cause;
    } else {
      parts.push(String(cur));
      break;
    }
  }
  return parts.join(": ");
}

function quote(s: string): string {
  return /^[^\s"=]+$/.test(s) ? s : JSON.stringify(s);
}
