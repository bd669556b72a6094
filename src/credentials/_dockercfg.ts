/**
 * Reading docker configs as the kubelet's Go types do (pkg/credentialprovider/config.go): a
 * `config.json` (`{"auths": {...}}`) or a legacy `.dockercfg` (the map itself); each entry's
 * `auth` (base64 of `user:password`) wins over its `username`/`password`. Field names match
 * case-insensitively and `null` leaves a field empty, as Go's encoding/json does; errors carry
 * Go's messages, since upstream shows them as the container's waiting reason.
 */
import { DenoletError } from "../util/errors.ts";
import type { DockerConfig, DockerConfigEntry } from "./keyring.ts";

/** A docker config that does not decode; the message is what the kubelet would say. */
export class DockerConfigError extends DenoletError {}

/** The `auths` of a config.json document (upstream DockerConfigJSON). */
export function parseDockerConfigJson(text: string): DockerConfig {
  const doc = parseJson(text);
  if (doc === null) return new Map();
  if (!isObject(doc)) throw typeError(doc, "", "credentialprovider.DockerConfigJSON");
  let auths: unknown = null;
  for (const [k, v] of Object.entries(doc)) if (k.toLowerCase() === "auths") auths = v;
  return readEntries(auths, "DockerConfigJSON.auths");
}

/** A legacy `.dockercfg` document: endpoint → entry. */
export function parseDockercfg(text: string): DockerConfig {
  return readEntries(parseJson(text), "");
}

function readEntries(value: unknown, field: string): DockerConfig {
  const out: DockerConfig = new Map();
  if (value === null) return out;
  if (!isObject(value)) throw typeError(value, field, "credentialprovider.DockerConfig");
  for (const [endpoint, raw] of Object.entries(value)) out.set(endpoint, readEntry(raw));
  return out;
}

const ENTRY_FIELDS = ["username", "password", "email", "auth"] as const;

/** DockerConfigEntry.UnmarshalJSON. */
function readEntry(raw: unknown): DockerConfigEntry {
  const entry: DockerConfigEntry = { username: "", password: "", email: "" };
  if (raw === null) return entry;
  if (!isObject(raw)) throw typeError(raw, "", "credentialprovider.dockerConfigEntryWithAuth");
  let auth = "";
  for (const [k, v] of Object.entries(raw)) {
    const name = ENTRY_FIELDS.find((f) => f === k.toLowerCase());
    if (name === undefined || v === null) continue;
    if (typeof v !== "string") {
      throw typeError(v, `dockerConfigEntryWithAuth.${name}`, "string");
    }
    if (name === "auth") auth = v;
    else entry[name] = v;
  }
  if (auth === "") return entry;
  const decoded = decodeAuthField(auth);
  entry.username = decoded.username;
  entry.password = decoded.password;
  return entry;
}

/**
 * The `auth` field: base64(user:password), padded or not (upstream picks the decoder by a
 * trailing `=`).
 */
export function decodeAuthField(field: string): { username: string; password: string } {
  const padded = field.trim().endsWith("=");
  const bytes = decodeBase64(field, padded);
  const text = new TextDecoder().decode(bytes);
  const colon = text.indexOf(":");
  if (colon < 0) {
    throw new DockerConfigError(
      "unable to parse auth field, must be formatted as base64(username:password)",
    );
  }
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Go's StdEncoding (padded) or RawStdEncoding; CR and LF are skipped as Go skips them. */
function decodeBase64(s: string, padded: boolean): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let n = 0;
  let chars = 0;
  let padAt = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\r" || c === "\n") continue;
    if (c === "=" && padded && chars % 4 >= 2) {
      padAt = padAt < 0 ? i : padAt;
      chars++;
      continue;
    }
    const v = ALPHABET.indexOf(c);
    if (v < 0 || padAt >= 0) throw illegal(i);
    bits = (bits << 6) | v;
    n += 6;
    chars++;
    if (n >= 8) {
      n -= 8;
      out.push((bits >> n) & 0xff);
    }
  }
  if (padded ? chars % 4 !== 0 : chars % 4 === 1) throw illegal(s.length);
  return new Uint8Array(out);
}

function illegal(at: number): DockerConfigError {
  return new DockerConfigError(`illegal base64 data at input byte ${at}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    if (text.trim() === "") throw new DockerConfigError("unexpected end of JSON input");
    throw new DockerConfigError(`invalid JSON: ${(e as Error).message}`, { cause: e });
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Go's UnmarshalTypeError text. */
function typeError(value: unknown, field: string, goType: string): DockerConfigError {
  const kind = Array.isArray(value) ? "array" : typeof value === "object" ? "object" : typeof value;
  const where = field === "" ? "" : ` into Go struct field ${field}`;
  return new DockerConfigError(
    `json: cannot unmarshal ${kind}${where === "" ? " into Go value" : where} of type ${goType}`,
  );
}
