/**
 * Field-error collection and the name and value formats of manifest validation. Messages follow
 * the API server's `field.Error` wording ("Required value", "Unsupported value", ...) so users
 * recognise them.
 */
export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** How a JSON value's type is named in a type error. */
export function typeOf(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "list";
  // YAML 1.1 reads an unquoted 2024-01-01 as a timestamp.
  if (v instanceof Date) return "timestamp (quote it to make it a string)";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : `number ${v}`;
  return typeof v;
}

/**
 * Errors kept in full; the rest are only counted. A small manifest can hold thousands of bad
 * items, and the reason is logged, kept and served: it must stay short.
 */
export const MAX_FIELD_ERRORS = 20;

export class FieldErrors {
  readonly #kept: string[] = [];
  #count = 0;

  /** Every error recorded, including those left out of `list`. */
  get count(): number {
    return this.#count;
  }
  /** The first `MAX_FIELD_ERRORS` errors, then how many more there were. */
  get list(): string[] {
    const more = this.#count - this.#kept.length;
    if (more === 0) return [...this.#kept];
    return [...this.#kept, `... and ${more} more error${more === 1 ? "" : "s"}`];
  }

  add(field: string, detail: string): void {
    this.#count++;
    if (this.#kept.length < MAX_FIELD_ERRORS) this.#kept.push(`${field}: ${detail}`);
  }
  required(field: string, detail = ""): void {
    this.add(field, detail ? `Required value: ${detail}` : "Required value");
  }
  invalid(field: string, value: unknown, detail: string): void {
    this.add(field, `Invalid value: ${JSON.stringify(value)}: ${detail}`);
  }
  unsupported(field: string, value: unknown, allowed: readonly string[]): void {
    const supported = allowed.map((a) => JSON.stringify(a)).join(", ");
    this.add(field, `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}`);
  }
  duplicate(field: string, value: unknown): void {
    this.add(field, `Duplicate value: ${JSON.stringify(value)}`);
  }
  notFound(field: string, value: unknown, detail = ""): void {
    this.add(field, `Not found: ${JSON.stringify(value)}${detail ? `: ${detail}` : ""}`);
  }
  forbidden(field: string, detail: string): void {
    this.add(field, `Forbidden: ${detail}`);
  }
  /** A wrong JSON type: what the API server's typed decoder refuses before validating. */
  type(field: string, expected: string, got: unknown): void {
    this.add(field, `must be ${expected}, got ${typeOf(got)}`);
  }
  /** Unsupported when `value` is set and not one of `allowed`. */
  oneOf(field: string, value: string | undefined, allowed: readonly string[]): void {
    if (value !== undefined && value !== "" && !allowed.includes(value)) {
      this.unsupported(field, value, allowed);
    }
  }
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const IANA_SVC_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const HTTP_HEADER_NAME = /^[-A-Za-z0-9!#$%&'*+.^_`|~]+$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const MAX_ID = 2147483647;

/** Returns why `v` is not an RFC 1123 label, or undefined when it is one. */
export function dns1123Label(v: string): string | undefined {
  if (v.length > 63) return "must be no more than 63 characters";
  if (!DNS1123_LABEL.test(v)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Returns why `v` is not an RFC 1123 subdomain, or undefined when it is one. */
export function dns1123Subdomain(v: string): string | undefined {
  if (v.length > 253) return "must be no more than 253 characters";
  if (!DNS1123_SUBDOMAIN.test(v)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Label and annotation keys: `[prefix/]name`. */
export function qualifiedName(v: string): string | undefined {
  const slash = v.lastIndexOf("/");
  const prefix = slash >= 0 ? v.slice(0, slash) : undefined;
  const name = slash >= 0 ? v.slice(slash + 1) : v;
  if (prefix !== undefined) {
    const why = prefix === "" ? "must be non-empty" : dns1123Subdomain(prefix);
    if (why) return `prefix part ${why}`;
  }
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return "name part must consist of at most 63 alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

export function labelValue(v: string): string | undefined {
  if (v === "") return undefined;
  if (v.length > 63 || !QUALIFIED_NAME.test(v)) {
    return "a valid label must be an empty string or consist of at most 63 alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Port names (IANA_SVC_NAME): at most 15 characters, at least one letter, no "--". */
export function portName(v: string): string | undefined {
  if (v.length > 15) return "must be no more than 15 characters";
  if (!IANA_SVC_NAME.test(v)) {
    return "must contain only lowercase alphanumeric characters or '-', and start and end with one";
  }
  if (v.includes("--")) return "must not contain consecutive hyphens";
  if (!/[a-z]/.test(v)) return "must contain at least one letter";
  return undefined;
}

/** Port numbers (IsValidPortNum). */
export function portNumber(v: number): string | undefined {
  return v >= 1 && v <= 65535 ? undefined : "must be between 1 and 65535, inclusive";
}

/** Environment variable names: printable ASCII except '=' (RelaxedEnvironmentVariableValidation). */
export function envVarName(v: string): string | undefined {
  if (v.length === 0) return "must not be empty";
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 32 || c > 126 || c === 61) {
      return "must consist only of printable ASCII characters other than '='";
    }
  }
  return undefined;
}

/** HTTP header field names (an RFC 7230 token). */
export function httpHeaderName(v: string): string | undefined {
  return HTTP_HEADER_NAME.test(v)
    ? undefined
    : "a valid HTTP header must consist of alphanumeric characters or '-' (and a few other RFC 7230 token characters)";
}

/** User and group ids (IsValidUserID / IsValidGroupID). */
export function linuxId(v: number): string | undefined {
  return v >= 0 && v <= MAX_ID ? undefined : `must be between 0 and ${MAX_ID}, inclusive`;
}

/** IPv4 or IPv6 address text, as Go's net.ParseIP reads it (no zone, no brackets). */
export function ipAddress(v: string): string | undefined {
  if (IPV4.test(v) || isIPv6(v)) return undefined;
  return "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
}

function isIPv6(v: string): boolean {
  // The URL parser validates IPv6 literals; the character check keeps zones and brackets out.
  return v.includes(":") && !/[^0-9A-Fa-f:.]/.test(v) && URL.canParse(`http://[${v}]/`);
}
