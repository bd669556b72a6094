/**
 * denolet's Deno permission set as a function of its configuration: the narrowest
 * `--allow-*` flags that run it. The reasons live in `_needs.ts`; this module turns them into
 * flags and checks a running process. Deno grants /proc, /sys and /dev only with --allow-all
 * (denoland/deno#27564); while a need falls there the set collapses to --allow-all and says why.
 */
import type { AgentConfig } from "../config/types.ts";
import { DenoletError } from "../util/errors.ts";
import { type Kind, NEEDS, type PermissionOptions } from "./_needs.ts";

export {
  DEFAULT_PROBE_NETWORKS,
  GRPC_ENV,
  type Need,
  NEEDS,
  type PermissionOptions,
} from "./_needs.ts";

/** Sorted, de-duplicated grants per kind. `net` holds "*" when unrestricted. */
export interface PermissionSet {
  read: string[];
  write: string[];
  net: string[];
  env: string[];
  run: string[];
  sys: string[];
  /**
   * Always true: subPath mounts walk the path with openat(2) O_NOFOLLOW through libc (Deno's FFI),
   * the only way to open a path component without following a swapped-in symlink. Deno cannot
   * narrow it to one library named by soname, so it is the whole --allow-ffi.
   */
  ffi: true;
  /**
   * Needs Deno can only meet with --allow-all (paths under /proc, /sys, /dev), as "why: path".
   * When not empty, the flags are `--allow-all` and these are the reasons.
   */
  allowAll: string[];
}

/** A grant Deno can only give with --allow-all, or a set that cannot be expressed as flags. */
export class PermissionSetError extends DenoletError {}

const KINDS: readonly Kind[] = ["read", "write", "net", "env", "run", "sys"];

/**
 * Deno (since 1.43, CVE-2024-34346) grants /proc, /sys and /dev only to a process with every
 * permission unrestricted, i.e. --allow-all: reading /proc/self/environ or writing
 * /proc/self/mem would defeat the sandbox. A path list cannot name them.
 */
const ALL_ONLY_PREFIXES = ["/proc", "/sys", "/dev"];
/** Device nodes Deno does let a path list grant. */
const ALLOWED_DEVICES = new Set(["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"]);

/** True when Deno grants `path` only under --allow-all. */
export function needsAllowAll(path: string): boolean {
  if (ALLOWED_DEVICES.has(path)) return false;
  return ALL_ONLY_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * The permissions the agent needs with `config`. Throws PermissionSetError when a need falls
 * on a path Deno only grants with --allow-all (see needsAllowAll), naming the reason, so such
 * a need is a visible decision rather than a silent widening.
 */
export function permissionSet(config: AgentConfig, opts: PermissionOptions = {}): PermissionSet {
  const acc: Record<Kind, Set<string>> = {
    read: new Set(),
    write: new Set(),
    net: new Set(),
    env: new Set(),
    run: new Set(),
    sys: new Set(),
  };
  const allowAll: string[] = [];
  for (const need of NEEDS) {
    const grants = need.grants(config, opts);
    for (const kind of KINDS) {
      for (const value of grants[kind] ?? []) {
        if (!value) continue;
        if ((kind === "read" || kind === "write") && needsAllowAll(value)) {
          allowAll.push(`${need.why}: ${kind} ${value}`);
          continue;
        }
        acc[kind].add(value);
      }
    }
  }
  return {
    read: minimalPaths(acc.read),
    write: minimalPaths(acc.write),
    net: acc.net.has("*") ? ["*"] : [...acc.net].sort(),
    env: [...acc.env].sort(),
    run: [...acc.run].sort(),
    sys: [...acc.sys].sort(),
    ffi: true,
    allowAll: [...new Set(allowAll)],
  };
}

/** The set as `deno run`/`deno compile` flags, in a fixed order; an empty kind gets no flag. */
export function toFlags(set: PermissionSet): string[] {
  if (set.allowAll.length > 0) return ["--allow-all"];
  const flags: string[] = [];
  for (const kind of KINDS) {
    const values = set[kind];
    if (values.length === 0) continue;
    if (values.some((v) => v.includes(","))) {
      throw new PermissionSetError(`Cannot express ${kind} grant with a comma: ${values}`);
    }
    flags.push(values[0] === "*" ? `--allow-${kind}` : `--allow-${kind}=${values.join(",")}`);
  }
  if (set.ffi) flags.push("--allow-ffi");
  return flags;
}

/** `toFlags(permissionSet(config, opts))`: the flags the agent runs with under `config`. */
export function permissionFlags(config: AgentConfig, opts: PermissionOptions = {}): string[] {
  return toFlags(permissionSet(config, opts));
}

/**
 * The grants of `set` this process does not hold, as flags (`--allow-read=/x`). Empty under
 * -A. Never prompts (querySync). A CIDR is checked through its network address.
 */
export function missingPermissions(set: PermissionSet): string[] {
  if (set.allowAll.length > 0) return allGranted() ? [] : ["--allow-all"];
  const missing: string[] = [];
  const check = (desc: Deno.PermissionDescriptor, flag: string) => {
    if (Deno.permissions.querySync(desc).state !== "granted") missing.push(flag);
  };
  for (const path of set.read) check({ name: "read", path }, `--allow-read=${path}`);
  for (const path of set.write) check({ name: "write", path }, `--allow-write=${path}`);
  for (const host of set.net) {
    if (host === "*") check({ name: "net" }, "--allow-net");
    else check({ name: "net", host: host.replace(/\/\d+$/, "") }, `--allow-net=${host}`);
  }
  for (const variable of set.env) check({ name: "env", variable }, `--allow-env=${variable}`);
  for (const command of set.run) check({ name: "run", command }, `--allow-run=${command}`);
  for (const kind of set.sys) {
    check(
      { name: "sys", kind: kind as Deno.SysPermissionDescriptor["kind"] },
      `--allow-sys=${kind}`,
    );
  }
  return missing;
}

/** Drops paths inside another listed path (a grant on a directory covers what is below it). */
function minimalPaths(paths: Set<string>): string[] {
  const sorted = [...paths].map((p) => p.replace(/(.)\/+$/, "$1")).sort();
  return sorted.filter((p, i) =>
    sorted.indexOf(p) === i && !sorted.some((q) => q !== p && (q === "/" || p.startsWith(`${q}/`)))
  );
}

/**
 * The start-up check: undefined when this process holds every grant `config` needs, else a
 * message naming what is missing and how to get a matching binary. A compiled binary carries the
 * set for the configuration it was built for; a different root dir, port or endpoint on the node
 * must fail here, clearly, rather than later as a NotCapable deep inside a pod sync.
 */
export function startupPermissionProblem(
  config: AgentConfig,
  opts: PermissionOptions = {},
): string | undefined {
  const set = permissionSet(config, opts);
  const missing = missingPermissions(set);
  if (missing.length === 0) return undefined;
  if (set.allowAll.length > 0) {
    return "this configuration needs --allow-all, because Deno grants /proc, /sys and /dev to " +
      `nothing less, and the agent reads them for: ${set.allowAll.join("; ")}.`;
  }
  return `this configuration needs permissions the process was not given: ${missing.join(" ")}. ` +
    "A compiled denolet carries the permissions of the configuration it was built for; build " +
    "one for this configuration with `deno task compile -- <the same flags>`, or run from " +
    "source with the flags `deno run -A main.ts permissions <the same flags>` prints.";
}

function allGranted(): boolean {
  const names = ["read", "write", "net", "env", "run", "sys", "ffi"] as const;
  return names.every((name) => Deno.permissions.querySync({ name }).state === "granted");
}
