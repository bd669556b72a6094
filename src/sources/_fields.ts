/**
 * Field-error collection and typed accessors for validating a decoded manifest. Messages follow
 * the API server's `field.Error` wording ("Required value", "Unsupported value", ...) so users
 * recognise them.
 */
export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export class FieldErrors {
  readonly list: string[] = [];

  add(field: string, detail: string): void {
    this.list.push(`${field}: ${detail}`);
  }
  required(field: string): void {
    this.add(field, "Required value");
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
  forbidden(field: string, detail: string): void {
    this.add(field, `Forbidden: ${detail}`);
  }
  /** A wrong JSON type: what the API server's strict-typed decoder would refuse. */
  type(field: string, expected: string): void {
    this.add(field, `must be ${expected}`);
  }
}

/** Typed reads that record a type error and return undefined when the value has the wrong type. */
export class Reader {
  constructor(readonly errs: FieldErrors) {}

  str(o: Obj, key: string, field: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") return this.#bad(`${field}.${key}`, "a string");
    return v;
  }
  int(o: Obj, key: string, field: string): number | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v)) {
      return this.#bad(`${field}.${key}`, "an integer");
    }
    return v;
  }
  bool(o: Obj, key: string, field: string): boolean | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "boolean") return this.#bad(`${field}.${key}`, "a boolean");
    return v;
  }
  obj(o: Obj, key: string, field: string): Obj | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (!isObj(v)) return this.#bad(`${field}.${key}`, "an object");
    return v;
  }
  /** An array of objects; a non-object item is reported and skipped. */
  objs(o: Obj, key: string, field: string): Array<[Obj, string]> {
    const v = o[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) return this.#bad(`${field}.${key}`, "a list") ?? [];
    const out: Array<[Obj, string]> = [];
    v.forEach((item, i) => {
      const path = `${field}.${key}[${i}]`;
      if (isObj(item)) out.push([item, path]);
      else this.errs.type(path, "an object");
    });
    return out;
  }
  strings(o: Obj, key: string, field: string): string[] | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) {
      return this.#bad(`${field}.${key}`, "a list of strings");
    }
    return v as string[];
  }
  stringMap(o: Obj, key: string, field: string): Record<string, string> | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (!isObj(v) || Object.values(v).some((s) => typeof s !== "string")) {
      return this.#bad(`${field}.${key}`, "a map of string to string");
    }
    return v as Record<string, string>;
  }

  #bad(field: string, expected: string): undefined {
    this.errs.type(field, expected);
    return undefined;
  }
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const IANA_SVC_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

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
    const why = prefix === "" ? "prefix part must be non-empty" : dns1123Subdomain(prefix);
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
