/**
 * Pod sysctls (upstream pkg/kubelet/sysctl and component-helpers' sysctl namespaces): the safe
 * set every pod may use, the node's `allowedUnsafeSysctls`, the refusal of a sysctl in a
 * namespace the pod shares with the host (SysctlForbidden).
 */
import type { V1Pod } from "@kubernetes/client-node";
import { normalizeSysctlName } from "../runtime/mod.ts";
import type { AdmitResult } from "./types.ts";

export type SysctlNamespace = "IPC" | "Net" | "UTS" | "User";

/** The sysctls upstream calls safe, with the kernel version from which each is namespaced. */
const SAFE_SYSCTLS: ReadonlyArray<[name: string, kernel?: string]> = [
  ["kernel.shm_rmid_forced"],
  ["net.ipv4.ip_local_port_range"],
  ["net.ipv4.tcp_syncookies"],
  ["net.ipv4.ping_group_range"],
  ["net.ipv4.ip_unprivileged_port_start"],
  ["net.ipv4.ip_local_reserved_ports", "3.16"],
  ["net.ipv4.tcp_keepalive_time", "4.5"],
  ["net.ipv4.tcp_fin_timeout", "4.6"],
  ["net.ipv4.tcp_keepalive_intvl", "4.5"],
  ["net.ipv4.tcp_keepalive_probes", "4.5"],
  ["net.ipv4.tcp_rmem", "4.15"],
  ["net.ipv4.tcp_wmem", "4.15"],
  ["net.ipv4.tcp_slow_start_after_idle", "4.15"],
  ["net.ipv4.tcp_notsent_lowat", "4.6"],
];

const BY_NAME: Readonly<Record<string, SysctlNamespace>> = {
  "kernel.domainname": "UTS",
  "kernel.sem": "IPC",
  "kernel.shmall": "IPC",
  "kernel.shmmax": "IPC",
  "kernel.shmmni": "IPC",
  "kernel.shm_rmid_forced": "IPC",
  "kernel.shm": "IPC",
  "kernel.msgmax": "IPC",
  "kernel.msgmnb": "IPC",
  "kernel.msgmni": "IPC",
  "kernel.msg": "IPC",
};
const BY_PREFIX: ReadonlyArray<[string, SysctlNamespace]> = [
  ["net.", "Net"],
  ["fs.mqueue.", "IPC"],
  ["user.", "User"],
];

/** The kernel namespace a sysctl (or pattern prefix) belongs to; undefined when not namespaced. */
export function sysctlNamespace(name: string): SysctlNamespace | undefined {
  if (Object.hasOwn(BY_NAME, name)) return BY_NAME[name];
  return BY_PREFIX.find(([p]) => name.startsWith(p))?.[1];
}

/** Upstream's SysctlContainSlashPatternFmt: segments, the last one may end in `*`. */
const PATTERN = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]$/;

/** Checks `--allowed-unsafe-sysctls` entries; returns the problem with the first bad one. */
export function allowlistProblem(patterns: readonly string[]): string | undefined {
  for (const p of patterns) {
    if (p.length > 253 || !PATTERN.test(p)) {
      return `sysctl ${JSON.stringify(p)} must have at most 253 characters and match regex ` +
        PATTERN.source;
    }
    const name = normalizeSysctlName(p);
    const prefix = name.endsWith("*") ? name.slice(0, -1) : name;
    if (!sysctlNamespace(prefix)) {
      return `the sysctls ${JSON.stringify(prefix)} are not known to be namespaced`;
    }
  }
  return undefined;
}

/** Compares dotted versions numerically: "6.18.44-fc" ≥ "4.15". */
function kernelAtLeast(kernel: string, want: string): boolean {
  const a = kernel.split(/[.-]/).map((x) => parseInt(x, 10));
  const b = want.split(".").map((x) => parseInt(x, 10));
  for (let i = 0; i < b.length; i++) {
    const x = Number.isNaN(a[i]) || a[i] === undefined ? 0 : a[i];
    if (x !== b[i]) return x > b[i];
  }
  return true;
}

export interface SysctlAllowlist {
  /** Upstream's sysctl admit handler: the first sysctl the pod may not set refuses it. */
  admit(pod: V1Pod): AdmitResult;
}

/**
 * The allowlist: the safe sysctls the running kernel namespaces, plus `unsafe` (names, or
 * prefixes ending in `*`; validate them with `allowlistProblem` first).
 */
export function createSysctlAllowlist(
  unsafe: readonly string[],
  opts: { kernelRelease: string },
): SysctlAllowlist {
  const names = new Map<string, SysctlNamespace>();
  const prefixes = new Map<string, SysctlNamespace>();
  for (const [name, kernel] of SAFE_SYSCTLS) {
    if (!kernel || kernelAtLeast(opts.kernelRelease, kernel)) {
      names.set(name, sysctlNamespace(name)!);
    }
  }
  for (const raw of unsafe) {
    const n = normalizeSysctlName(raw);
    if (n.endsWith("*")) {
      const p = n.slice(0, -1);
      const ns = sysctlNamespace(p);
      if (ns) prefixes.set(p, ns);
    } else {
      const ns = sysctlNamespace(n);
      if (ns) names.set(n, ns);
    }
  }
  const problem = (raw: string, pod: V1Pod): string | undefined => {
    const name = normalizeSysctlName(raw);
    const ns = names.get(name) ??
      [...prefixes].find(([p]) => name.startsWith(p))?.[1];
    if (!ns) return `${JSON.stringify(name)} not allowlisted`;
    const spec = pod.spec;
    const hostUsers = spec?.hostUsers !== false;
    if (
      (ns === "IPC" && spec?.hostIPC) || (ns === "Net" && spec?.hostNetwork) ||
      (ns === "User" && hostUsers)
    ) {
      return `${JSON.stringify(name)} not allowed with host ${ns} enabled`;
    }
    return undefined;
  };
  return {
    admit(pod) {
      for (const s of pod.spec?.securityContext?.sysctls ?? []) {
        const why = problem(s.name ?? "", pod);
        if (why) {
          return { admit: false, reason: "SysctlForbidden", message: `forbidden sysctl: ${why}` };
        }
      }
      return { admit: true };
    },
  };
}
