/**
 * The docker keyring (pkg/credentialprovider/keyring.go): registry credentials indexed by the
 * registry endpoint they were written for (a host, maybe with port and path, maybe with `*`
 * globs in the host), looked up for an image's repository. Every matching entry is returned,
 * the most specific endpoint first, so a pull can try several in order (credential rotation).
 */
import { sha256Hex } from "../util/digest.ts";

/** Registry credentials as the CRI's AuthConfig carries them. */
export interface AuthConfig {
  username?: string;
  password?: string;
  auth?: string;
  email?: string;
  serverAddress?: string;
  identityToken?: string;
  registryToken?: string;
}

/** Who may use a credential: a pod's Secret, or a service account (credential plugins). */
export interface CredentialSource {
  secret?: Coordinates;
  serviceAccount?: Coordinates;
}

export interface Coordinates {
  uid: string;
  namespace: string;
  name: string;
}

/**
 * A credential with where it came from (none: node-wide) and the hash of its AuthConfig, by
 * which the pulled-image records recognise the same credential in another Secret.
 */
export interface TrackedAuthConfig extends AuthConfig {
  hash: string;
  source?: CredentialSource;
}

/** One entry of a dockercfg: the credentials for one registry endpoint. */
export interface DockerConfigEntry {
  username: string;
  password: string;
  email: string;
}

/** Registry endpoint (as written in the config) → credentials. */
export type DockerConfig = Map<string, DockerConfigEntry>;

/** Anything that answers credentials for an image repository. */
export interface Keyring {
  /**
   * The credentials for `repository` (normalised, without tag), best match first. May take a
   * while (a credential plugin runs); never rejects: a keyring that cannot answer has nothing.
   */
  lookup(repository: string): TrackedAuthConfig[] | Promise<TrackedAuthConfig[]>;
}

const DEFAULT_REGISTRY_HOST = "index.docker.io";

export class BasicKeyring implements Keyring {
  #index: string[] = [];
  readonly #creds = new Map<string, TrackedAuthConfig[]>();

  /**
   * Adds the entries of `cfg`, attributed to `source` (undefined: available to every pod on the
   * node). Entries whose endpoint does not parse are skipped, as upstream does.
   */
  async add(source: CredentialSource | undefined, cfg: DockerConfig): Promise<void> {
    for (const [endpoint, entry] of cfg) {
      const key = keyOf(endpoint);
      if (key === undefined) continue;
      const auth: AuthConfig = {
        username: entry.username,
        password: entry.password,
        email: entry.email,
      };
      const tracked: TrackedAuthConfig = { ...auth, hash: await hashAuthConfig(auth), source };
      const list = this.#creds.get(key) ?? [];
      list.push(tracked);
      this.#creds.set(key, list);
    }
    // Reverse order puts longer (more specific) endpoints first: quay.io/coreos before quay.io.
    this.#index = [...this.#creds.keys()].sort().reverse();
  }

  lookup(repository: string): TrackedAuthConfig[] {
    const out: TrackedAuthConfig[] = [];
    for (const key of this.#index) {
      if (urlsMatch(key, repository)) out.push(...this.#creds.get(key)!);
    }
    if (out.length > 0) return out;
    if (isDefaultRegistryMatch(repository)) return this.#creds.get(DEFAULT_REGISTRY_HOST) ?? [];
    return [];
  }
}

/** Every keyring's answers, in keyring order (upstream UnionDockerKeyring). */
export function unionKeyring(keyrings: (Keyring | undefined)[]): Keyring {
  return {
    async lookup(repository) {
      const out: TrackedAuthConfig[] = [];
      for (const k of keyrings) if (k) out.push(...await k.lookup(repository));
      return out;
    },
  };
}

/**
 * The index key of an endpoint: host[:port] plus the path, where `/v1/` and `/v2/` count as the
 * root (docker's ResolveAuthConfig). Undefined for an endpoint Go's url.Parse rejects.
 */
function keyOf(endpoint: string): string | undefined {
  const withScheme = /^https?:\/\//.test(endpoint) ? endpoint : `https://${endpoint}`;
  const url = parseUrl(withScheme.slice(withScheme.indexOf("//") + 2));
  if (!url) return undefined;
  let path = url.path;
  if (path.startsWith("/v2/") || path.startsWith("/v1/")) path = path.slice(3);
  return path !== "" && path !== "/" ? url.host + path : url.host;
}

/** Host and path of a scheme-less URL, as Go's url.Parse splits them; undefined if invalid. */
export function parseSchemelessUrl(s: string): { host: string; path: string } | undefined {
  return parseUrl(s);
}

function parseUrl(s: string): { host: string; path: string } | undefined {
  const end = s.search(/[?#]/);
  const rest = end < 0 ? s : s.slice(0, end);
  const slash = rest.indexOf("/");
  const host = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? "" : rest.slice(slash);
  // Go refuses control characters, spaces and most punctuation in a host, and bad % escapes.
  if (hasControlOrSpace(host) || /["<>\\^`{|}%]/.test(host)) return undefined;
  if (hasControlOrSpace(path) || /%(?![0-9a-fA-F]{2})/.test(path)) return undefined;
  return { host, path: decodePath(path) };
}

function hasControlOrSpace(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) <= 0x20) return true;
  return false;
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    // A lone surrogate or invalid UTF-8 after decoding: Go keeps the raw bytes; so do we.
    return path;
  }
}

/**
 * Whether credential endpoint `glob` applies to `target` (upstream URLsMatch): same port, same
 * number of host labels each matching its glob, and the endpoint's path a prefix of the
 * target's. No globs in ports or paths.
 */
export function urlsMatch(glob: string, target: string): boolean {
  const g = parseUrl(glob);
  const t = parseUrl(target);
  if (!g || !t) return false;
  const [gParts, gPort] = splitHost(g.host);
  const [tParts, tPort] = splitHost(t.host);
  if (gPort !== tPort || gParts.length !== tParts.length) return false;
  if (!t.path.startsWith(g.path)) return false;
  return gParts.every((part, i) => globMatch(part, tParts[i]));
}

/** Host labels and port (net.SplitHostPort; no port when it does not split). */
function splitHost(host: string): [string[], string] {
  const m = /^\[([^\]]*)\]:([^:]*)$/.exec(host) ?? /^([^:[\]]*):([^:]*)$/.exec(host);
  if (m) return [m[1].split("."), m[2]];
  return [host.split("."), ""];
}

/** filepath.Match on one host label: `*`, `?`, `[...]` classes (`^` negates), `\` escapes. */
export function globMatch(pattern: string, name: string): boolean {
  let re = "^";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*") re += ".*";
    else if (c === "?") re += ".";
    else if (c === "\\") {
      if (++i >= pattern.length) return false;
      re += escapeRe(pattern[i]);
    } else if (c === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close < 0) return false;
      let body = pattern.slice(i + 1, close);
      const negate = body.startsWith("^");
      if (negate) body = body.slice(1);
      if (body === "") return false;
      re += `[${negate ? "^" : ""}${body.replace(/[\]\\[]/g, "\\$&")}]`;
      i = close;
    } else re += escapeRe(c);
  }
  try {
    return new RegExp(re + "$", "s").test(name);
  } catch {
    return false; // a malformed class: Go reports ErrBadPattern, which counts as no match
  }
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/**
 * Whether `image` pulls from Docker Hub: no domain, or `docker.io` / `index.docker.io`
 * (upstream isDefaultRegistryMatch).
 */
export function isDefaultRegistryMatch(image: string): boolean {
  const slash = image.indexOf("/");
  const first = slash < 0 ? image : image.slice(0, slash);
  if (first === "") return false;
  if (slash < 0) return true;
  if (first === "docker.io" || first === "index.docker.io") return true;
  return !/[.:]/.test(first);
}

/**
 * SHA-256 of the AuthConfig as Go's json.Marshal writes it (field order, omitempty, HTML
 * escaping), so a record written by the upstream kubelet names the same credential.
 */
export function hashAuthConfig(a: AuthConfig): Promise<string> {
  const fields: [string, string | undefined][] = [
    ["username", a.username],
    ["password", a.password],
    ["auth", a.auth],
    ["email", a.email],
    ["serveraddress", a.serverAddress],
    ["identitytoken", a.identityToken],
    ["registrytoken", a.registryToken],
  ];
  const body = fields.filter(([, v]) => v).map(([k, v]) => `"${k}":${goJsonString(v!)}`);
  return sha256Hex(`{${body.join(",")}}`);
}

/** A JSON string as Go's encoder writes it: <, >, & and U+2028/9 escaped too. */
function goJsonString(s: string): string {
  return JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
