/**
 * The sandbox's sysctls (upstream kuberuntime_sandbox.go): the node's `defaultPodSysctls`, then
 * the pod's own `securityContext.sysctls`.
 */
import type { V1Pod } from "@kubernetes/client-node";

/**
 * `net/ipv4/conf/eno2.100/rp_filter` → `net.ipv4.conf.eno2/100.rp_filter`: a name whose first
 * separator is `/` has its `.` and `/` swapped, as sysctl(8) reads it.
 */
export function normalizeSysctlName(name: string): string {
  const first = name.search(/[./]/);
  if (first === -1 || name[first] === ".") return name;
  return name.replace(/[./]/g, (c) => (c === "." ? "/" : "."));
}

/** Upstream's validSysctlMap: the IPC sysctls runc accepts by name. */
const IPC_BY_NAME = new Set([
  "kernel.msgmax",
  "kernel.msgmnb",
  "kernel.msgmni",
  "kernel.sem",
  "kernel.shmall",
  "kernel.shmmax",
  "kernel.shmmni",
  "kernel.shm_rmid_forced",
]);

/**
 * The sandbox's sysctls: the node's `defaultPodSysctls` that apply to the pod's namespaces
 * (upstream applyPodSysctls: none in a namespace shared with the host), then the pod's own.
 */
export function podSysctls(
  pod: V1Pod,
  defaults: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  const spec = pod.spec;
  for (const [k, v] of Object.entries(defaults)) {
    const name = normalizeSysctlName(k);
    if (IPC_BY_NAME.has(name) || name.startsWith("fs.mqueue.")) {
      if (!spec?.hostIPC) out[name] = v;
    } else if (name.startsWith("net.")) {
      if (!spec?.hostNetwork) out[name] = v;
    } else if (name.startsWith("user.")) {
      if (spec?.hostUsers === false) out[name] = v;
    } else if (name === "kernel.domainname" && !spec?.hostNetwork) {
      out[name] = v;
    }
  }
  for (const s of spec?.securityContext?.sysctls ?? []) out[s.name] = s.value;
  return out;
}
