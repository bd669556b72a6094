/**
 * The node log query's parameters (`/logs/?query=...`), read and checked as upstream's
 * newNodeLogQuery and nodeLogQuery.validate do (pkg/kubelet/kubelet_server_journal.go), with
 * their messages: a parse error answers 400, a validation error 406. The file checks live in
 * `_root.ts`; this module is pure.
 */
import { goRegexpProblem } from "./_regexp.ts";

export const MAX_TAIL_LINES = 100_000;
const MAX_SERVICE_LENGTH = 256;
const MAX_SERVICES = 4;
// Upstream's "known safe" characters for journalctl's --unit: anything else could start an option
// or an escape.
const UNSAFE_SERVICE_CHARS = /[^a-zA-Z\-_.:0-9@]+/;

/** An RFC 3339 time as Go parses it: the instant, and the wall clock in the zone it was given in. */
export interface QueryTime {
  /** Seconds since the epoch and the nanoseconds within that second: the instant. */
  seconds: number;
  nanos: number;
  /** Year, month (1-12), day, hour, minute, second in the offset the value was written with. */
  wall: [number, number, number, number, number, number];
  /** The value as Go marshals it in a message (RFC 3339, trailing zeros of the fraction cut). */
  text: string;
}

export interface QueryOptions {
  sinceTime?: QueryTime;
  untilTime?: QueryTime;
  /** As parsed (Go's int): may be out of range until validated. */
  tailLines?: bigint;
  /** A journal boot offset, 0 the current boot. */
  boot?: bigint;
  /** A regular expression journalctl's --grep filters with; "" none. */
  pattern: string;
}

export interface NodeLogQuery extends QueryOptions {
  /** Queries without a slash: journald units, or files found by name under /var/log. */
  services: string[];
  /** Queries with a `/` or `\`: a file under /var/log. */
  files: string[];
}

/** One field error, rendered as apimachinery's field.Error. */
export type FieldError = string;

/** Whether any option besides the query is set (upstream: `options != (options{})`). */
export function hasOptions(q: QueryOptions): boolean {
  return q.sinceTime !== undefined || q.untilTime !== undefined || q.tailLines !== undefined ||
    q.boot !== undefined || q.pattern !== "";
}

/** Errors as upstream's aggregate: one alone, several in brackets. */
export function aggregate(errors: readonly FieldError[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
}

/**
 * The query in `params`, or the parse errors; `undefined` query with no errors means the request
 * asks nothing of the log query (it is a plain /logs/ file request).
 */
export function parseNodeLogQuery(
  params: URLSearchParams,
): { query?: NodeLogQuery; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const q: NodeLogQuery = { services: [], files: [], pattern: "" };
  const queries = params.getAll("query");
  for (const value of queries) {
    // A slash or backslash marks a file; a bare name may still resolve to a file later.
    if (/[/\\]/.test(value)) q.files.push(value);
    else if (value.trim() !== "") q.services.push(value);
  }
  if (params.has("query") && q.files.length === 0 && q.services.length === 0) {
    errors.push(invalid("query", goValue(queries), "may not be empty"));
  }
  for (const key of ["sinceTime", "untilTime"] as const) {
    const raw = params.get(key) ?? "";
    if (raw === "") continue;
    const t = parseRFC3339(raw);
    if (t === undefined) errors.push(invalid(key, goValue(raw), "invalid time format"));
    else q[key] = t;
  }
  for (const key of ["boot", "tailLines"] as const) {
    const raw = params.get(key) ?? "";
    if (raw === "") continue;
    const n = atoi(raw);
    if (typeof n === "string") errors.push(invalid(key, goValue(raw), n));
    else q[key] = n;
  }
  q.pattern = params.get("pattern") ?? "";
  if (errors.length > 0) return { errors };
  const empty = q.services.length === 0 && q.files.length === 0 && !hasOptions(q);
  return { query: empty ? undefined : q, errors };
}

/** Upstream's validate, but for the file's existence (`_root.ts` checks that). */
export function validateNodeLogQuery(q: NodeLogQuery): FieldError[] {
  const errors = validateServices(q.services);
  const { files, services } = q;
  if (files.length === 0 && services.length === 0) {
    errors.push("query: Required value: cannot be empty with options");
  } else if (files.length > 0 && services.length > 0) {
    const value = `[${files.join(" ")}], [${services.join(" ")}]`;
    errors.push(invalid("query", goValue(value), "cannot specify a file and service"));
  } else if (files.length > 1) {
    errors.push(invalid("query", goValue(files), "cannot specify more than one file"));
  } else if (files.length === 1 && hasOptions(q)) {
    errors.push(invalid("query", goValue(files), "cannot specify file with options"));
  }
  if (q.sinceTime && q.untilTime && after(q.sinceTime, q.untilTime)) {
    errors.push(invalid("untilTime", goValue(q.untilTime.text), "must be after `sinceTime`"));
  }
  if (q.boot !== undefined && q.boot > 0n) {
    errors.push(invalid("boot", String(q.boot), "must be less than 1"));
  }
  if (q.tailLines !== undefined && (q.tailLines < 0n || q.tailLines > BigInt(MAX_TAIL_LINES))) {
    errors.push(
      invalid(
        "tailLines",
        String(q.tailLines),
        `must be between 0 and ${MAX_TAIL_LINES}, inclusive`,
      ),
    );
  }
  const bad = goRegexpProblem(q.pattern);
  if (bad !== undefined) errors.push(invalid("pattern", goValue(q.pattern), bad));
  return errors;
}

/** Upstream's validateServices: safe names, at most four. */
export function validateServices(services: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const s of services) {
    if (new TextEncoder().encode(s).length > MAX_SERVICE_LENGTH) {
      errors.push(invalid("query", goValue(s), `length must be less than ${MAX_SERVICE_LENGTH}`));
    } else if (UNSAFE_SERVICE_CHARS.test(s)) {
      errors.push(invalid("query", goValue(s), "input contains unsupported characters"));
    }
  }
  if (services.length > MAX_SERVICES) {
    errors.push(`query: Too many: ${services.length}: must have at most ${MAX_SERVICES} items`);
  }
  return errors;
}

/**
 * journalctl's arguments for `services` (upstream's getLoggingCmd on Linux, in its order). Times
 * are written as upstream writes them: Go's layout "2006-1-2 15:4:5" in the zone of the value.
 */
export function journalctlArgs(q: QueryOptions, services: readonly string[]): string[] {
  const args = ["--utc", "--no-pager", "--output=short-precise"];
  if (q.sinceTime) args.push(`--since=${journalTime(q.sinceTime)}`);
  if (q.untilTime) args.push(`--until=${journalTime(q.untilTime)}`);
  if (q.tailLines !== undefined) args.push("--pager-end", `--lines=${q.tailLines}`);
  for (const s of services) if (s !== "") args.push(`--unit=${s}`);
  if (q.pattern !== "") args.push(`--grep=${q.pattern}`);
  if (q.boot !== undefined) args.push("--boot", String(q.boot));
  return args;
}

function journalTime(t: QueryTime): string {
  const [y, mo, d, h, mi, s] = t.wall;
  return `${y}-${mo}-${d} ${String(h).padStart(2, "0")}:${mi}:${s}`;
}

function after(a: QueryTime, b: QueryTime): boolean {
  return a.seconds > b.seconds || (a.seconds === b.seconds && a.nanos > b.nanos);
}

function invalid(field: string, value: string, detail: string): FieldError {
  return `${field}: Invalid value: ${value}: ${detail}`;
}

/** A string as Go's %q, a list as encoding/json writes it. */
function goValue(v: string | readonly string[]): string {
  return JSON.stringify(v);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.Atoi on a 64-bit platform: the number, or the error's message. */
export function atoi(raw: string): bigint | string {
  if (!/^[+-]?[0-9]+$/.test(raw)) return `strconv.Atoi: parsing ${goValue(raw)}: invalid syntax`;
  const n = BigInt(raw);
  if (n < INT64_MIN || n > INT64_MAX) {
    return `strconv.Atoi: parsing ${goValue(raw)}: value out of range`;
  }
  return n;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/;

/** Go's time.Parse(time.RFC3339, raw), or undefined when Go would refuse it. */
export function parseRFC3339(raw: string): QueryTime | undefined {
  const m = RFC3339.exec(raw);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59) {
    return undefined;
  }
  let offsetMin = 0;
  if (m[8] !== "Z") {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = (m[7] ?? ".").slice(1);
  const nanos = Number(fraction.slice(0, 9).padEnd(9, "0"));
  const seconds = utcMs(y, mo, d, h, mi, s) / 1000 - offsetMin * 60;
  const cut = fraction.replace(/0+$/, "");
  const text = raw.slice(0, 19) + (cut === "" ? "" : `.${cut}`) + m[8];
  return { seconds, nanos, wall: [y, mo, d, h, mi, s], text };
}

// setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999, Go does not.
function utcMs(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, 0);
  return t.getTime();
}

function daysIn(y: number, mo: number): number {
  return (utcMs(mo === 12 ? y + 1 : y, mo === 12 ? 1 : mo + 1, 1) - utcMs(y, mo, 1)) / 86_400_000;
}
