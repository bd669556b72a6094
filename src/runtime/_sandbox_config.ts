/**
 * The PodSandboxConfig for a pod (kuberuntime_sandbox.go generatePodSandboxConfig, the DNS
 * configurer in pkg/kubelet/network/dns, hostname rules in kubelet_pods.go).
 */
import type { V1Pod } from "@kubernetes/client-node";
import type {
  DNSConfig,
  LinuxSandboxSecurityContext,
  NamespaceOption,
  PodSandboxConfig,
  PortMapping,
  Protocol,
  SELinuxOption,
  UserNamespace,
} from "../cri/types.ts";
import { ConfigError } from "../util/errors.ts";
import { pathComponent } from "../util/path_component.ts";
import { sandboxAnnotations, sandboxLabels } from "./_labels.ts";
import { sandboxSeccomp } from "./_seccomp.ts";
import { podSysctls } from "./_sysctls.ts";

export interface SandboxConfigOptions {
  /** Root of pod log dirs (/var/log/pods); the pod's is <podLogsDir>/<ns>_<name>_<uid>. */
  podLogsDir: string;
  clusterDNS: string[];
  clusterDomain: string;
  /** The node's resolver config, parsed once at start with parseResolvConf. */
  hostDNS: DNSConfig;
  /**
   * The --resolv-conf value. Only "" matters: then host-DNS pods get 127.0.0.1 (::1 for IPv6
   * node IPs) and search "." as upstream, so lookups do not silently use the node's resolver.
   */
  resolvConf?: string;
  /** Node IPs, used only with resolvConf "". */
  nodeIPs?: string[];
  cgroupParent?: string;
  /** defaultPodSysctls (the DefaultPodSysctls gate): sysctls every pod gets unless it sets them. */
  defaultPodSysctls?: Readonly<Record<string, string>>;
  /** The pod's user namespace (from the user namespace manager); unset sends none. */
  userns?: UserNamespace;
}

const MAX_DNS_NAMESERVERS = 3;
const MAX_DNS_SEARCH_PATHS = 32;
const MAX_DNS_SEARCH_LIST_CHARS = 2048;
const MAX_SEARCH_DOMAIN_LEN = 253;
const HOSTNAME_MAX_LEN = 63;
const FQDN_MAX_LEN = 64;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_MAX_LEN = 253;

/**
 * <podLogsDir>/<namespace>_<name>_<uid>, as BuildPodLogsDirectory. Throws ConfigError when a
 * part is not a safe path component: the directory is removed recursively with the pod.
 */
export function podLogDirectory(podLogsDir: string, pod: V1Pod): string {
  const m = pod.metadata ?? {};
  const ns = pathComponent(m.namespace ?? "", "metadata.namespace");
  const name = pathComponent(m.name ?? "", "metadata.name");
  const uid = pathComponent(m.uid ?? "", "metadata.uid");
  return `${podLogsDir.replace(/\/+$/, "")}/${ns}_${name}_${uid}`;
}

/**
 * Namespace modes for the pod's sandbox and containers (runtimeutil.NamespacesForPod), with the
 * user namespace the manager chose for the pod.
 */
export function podNamespaces(pod: V1Pod, userns?: UserNamespace): NamespaceOption {
  const spec = pod.spec;
  const out: NamespaceOption = {
    network: spec?.hostNetwork ? "NODE" : "POD",
    pid: spec?.hostPID ? "NODE" : spec?.shareProcessNamespace ? "POD" : "CONTAINER",
    ipc: spec?.hostIPC ? "NODE" : "POD",
  };
  if (userns) out.usernsOptions = userns;
  return out;
}

/**
 * The pod's hostname (spec.hostnameOverride, else spec.hostname or the pod name, cut to 63
 * characters without a trailing "-" or ".") and domain (<subdomain>.<ns>.svc.<clusterDomain>
 * when spec.subdomain is set; none with hostnameOverride, as upstream
 * GeneratePodHostNameAndDomain).
 */
export function podHostnameAndDomain(
  pod: V1Pod,
  clusterDomain: string,
): { hostname: string; domain: string } {
  const name = pod.metadata?.name ?? "";
  const override = pod.spec?.hostnameOverride;
  if (override) {
    if (!isDNS1123Subdomain(override)) {
      throw new ConfigError(
        "spec.hostnameOverride",
        `pod hostnameOverride ${JSON.stringify(override)} is not a valid DNS subdomain`,
      );
    }
    return { hostname: truncateHostname(name, override), domain: "" };
  }
  let hostname = name;
  const specHost = pod.spec?.hostname;
  if (specHost) {
    if (!isDNS1123Label(specHost)) {
      throw new ConfigError(
        "spec.hostname",
        `pod hostname ${JSON.stringify(specHost)} is not a valid DNS label`,
      );
    }
    hostname = specHost;
  }
  hostname = truncateHostname(name, hostname);
  let domain = "";
  const sub = pod.spec?.subdomain;
  if (sub) {
    if (!isDNS1123Label(sub)) {
      throw new ConfigError(
        "spec.subdomain",
        `pod subdomain ${JSON.stringify(sub)} is not a valid DNS label`,
      );
    }
    domain = `${sub}.${pod.metadata?.namespace ?? ""}.svc.${clusterDomain}`;
  }
  return { hostname, domain };
}

function isDNS1123Label(s: string): boolean {
  return s.length <= HOSTNAME_MAX_LEN && DNS1123_LABEL.test(s);
}

function isDNS1123Subdomain(s: string): boolean {
  return s.length <= DNS1123_SUBDOMAIN_MAX_LEN && DNS1123_SUBDOMAIN.test(s);
}

/** Cut to 63 characters without a trailing "-" or "." (truncatePodHostnameIfNeeded). */
function truncateHostname(podName: string, hostname: string): string {
  if (hostname.length <= HOSTNAME_MAX_LEN) return hostname;
  const cut = hostname.slice(0, HOSTNAME_MAX_LEN).replace(/[-.]+$/, "");
  if (!cut) {
    throw new ConfigError(
      "metadata.name",
      `hostname for pod ${JSON.stringify(podName)} is invalid`,
    );
  }
  return cut;
}

/** The kernel nodename: the FQDN when setHostnameAsFQDN and a domain exist (max 64 chars). */
function kernelHostname(pod: V1Pod, clusterDomain: string): string {
  const { hostname, domain } = podHostnameAndDomain(pod, clusterDomain);
  if (!domain || !pod.spec?.setHostnameAsFQDN) return hostname;
  const fqdn = `${hostname}.${domain}`;
  if (fqdn.length > FQDN_MAX_LEN) {
    throw new ConfigError(
      "spec.setHostnameAsFQDN",
      `FQDN ${fqdn} is too long (${FQDN_MAX_LEN} characters is the max, ${fqdn.length} requested)`,
    );
  }
  return fqdn;
}

/** Parses resolv.conf: nameservers accumulate, the last search line wins, options merge. */
export function parseResolvConf(text: string): DNSConfig {
  const cfg: DNSConfig = { servers: [], searches: [], options: [] };
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("#")) continue;
    const fields = trimmed.split(/\s+/).filter((f) => f !== "");
    if (fields.length === 0) continue;
    if (fields[0] === "nameserver" && fields.length >= 2) cfg.servers.push(fields[1]);
    if (fields[0] === "search") {
      // Trailing dots normalised so "a.com" and "a.com." count once towards the search limits.
      cfg.searches = fields.slice(1).filter((s) => s !== ".").map((s) => s.replace(/\.$/, ""));
    }
    if (fields[0] === "options") cfg.options = mergeOptions(cfg.options, fields.slice(1));
  }
  return cfg;
}

/** Merges "name[:value]" options; a later option with the same name replaces the earlier. */
function mergeOptions(existing: string[], more: string[]): string[] {
  const map = new Map<string, string>();
  for (const op of [...existing, ...more]) {
    const i = op.indexOf(":");
    const name = i === -1 ? op : op.slice(0, i);
    map.delete(name);
    map.set(name, i === -1 ? "" : op.slice(i + 1));
  }
  return [...map].map(([k, v]) => (v === "" ? k : `${k}:${v}`));
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}

/** The pod's resolver config per dnsPolicy, merged with spec.dnsConfig, within resolver limits. */
export function podDNSConfig(pod: V1Pod, opts: SandboxConfigOptions): DNSConfig {
  const policy = pod.spec?.dnsPolicy ?? "ClusterFirst";
  const host = pod.spec?.hostNetwork === true;
  let type: "none" | "cluster" | "host";
  if (policy === "None") type = "none";
  else if (policy === "ClusterFirstWithHostNet") type = "cluster";
  else if (policy === "Default" || (policy === "ClusterFirst" && host)) type = "host";
  else type = "cluster"; // ClusterFirst, and unknown policies as upstream
  let cfg: DNSConfig = {
    servers: [...opts.hostDNS.servers],
    searches: [...opts.hostDNS.searches],
    options: [...opts.hostDNS.options],
  };
  if (type === "none") cfg = { servers: [], searches: [], options: [] };
  // Without clusterDNS a ClusterFirst pod falls back to the node's resolver, as upstream.
  if (type === "cluster" && opts.clusterDNS.length === 0) type = "host";
  if (type === "cluster") {
    const d = opts.clusterDomain;
    const ns = pod.metadata?.namespace ?? "";
    cfg.servers = [...opts.clusterDNS];
    if (d) cfg.searches = dedupe([`${ns}.svc.${d}`, `svc.${d}`, d, ...cfg.searches]);
    cfg.options = ["ndots:5"];
  } else if (type === "host" && opts.resolvConf === "") {
    const ips = opts.nodeIPs ?? [];
    cfg.servers = ips.length
      ? ips.map((ip) => (ip.includes(":") ? "::1" : "127.0.0.1"))
      : ["127.0.0.1"];
    cfg.searches = ["."];
  }
  const extra = pod.spec?.dnsConfig;
  if (extra) {
    cfg.servers = dedupe([...cfg.servers, ...(extra.nameservers ?? [])]);
    cfg.searches = dedupe([...cfg.searches, ...(extra.searches ?? [])]);
    cfg.options = mergeOptions(
      cfg.options,
      (extra.options ?? []).map((
        o,
      ) => (o.value === undefined || o.value === null ? o.name ?? "" : `${o.name}:${o.value}`)),
    );
  }
  cfg.servers = cfg.servers.slice(0, MAX_DNS_NAMESERVERS);
  cfg.searches = fitSearches(cfg.searches);
  return cfg;
}

function fitSearches(searches: string[]): string[] {
  let out = searches.slice(0, MAX_DNS_SEARCH_PATHS).filter((s) =>
    s.length <= MAX_SEARCH_DOMAIN_LEN
  );
  // Drop domains from the end until the search line fits.
  while (out.length && out.join(" ").length > MAX_DNS_SEARCH_LIST_CHARS) out = out.slice(0, -1);
  return out;
}

/** Every container port (with or without hostPort), de-duplicated per container as upstream. */
export function podPortMappings(pod: V1Pod): PortMapping[] {
  const out: PortMapping[] = [];
  for (const c of pod.spec?.containers ?? []) {
    const seen = new Set<string>();
    for (const p of c.ports ?? []) {
      const protocol = (p.protocol ?? "TCP") as Protocol;
      const hostIp = p.hostIP ?? "";
      const family = hostIp === "" ? "any" : hostIp.includes(":") ? "v6" : "v4";
      const key = p.name || `${family}-${protocol}-${hostIp}:${p.containerPort}:${p.hostPort ?? 0}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ protocol, containerPort: p.containerPort, hostPort: p.hostPort ?? 0, hostIp });
    }
  }
  return out;
}

/** fsGroup first, then supplementalGroups, as the kubelet orders them. */
export function podSupplementalGroups(pod: V1Pod): number[] {
  const sc = pod.spec?.securityContext;
  const groups: number[] = [];
  if (sc?.fsGroup !== undefined && sc.fsGroup !== null) groups.push(sc.fsGroup);
  groups.push(...(sc?.supplementalGroups ?? []));
  return groups;
}

function sandboxSecurityContext(pod: V1Pod, userns?: UserNamespace): LinuxSandboxSecurityContext {
  const sc = pod.spec?.securityContext;
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const out: LinuxSandboxSecurityContext = {
    namespaceOptions: podNamespaces(pod, userns),
    privileged: all.some((c) => c.securityContext?.privileged === true),
    seccomp: sandboxSeccomp(),
  };
  if (sc?.runAsUser !== undefined && sc.runAsUser !== null) out.runAsUser = { value: sc.runAsUser };
  if (sc?.runAsGroup !== undefined && sc.runAsGroup !== null) {
    out.runAsGroup = { value: sc.runAsGroup };
  }
  const groups = podSupplementalGroups(pod);
  if (groups.length) out.supplementalGroups = groups;
  if (sc?.supplementalGroupsPolicy === "Strict") out.supplementalGroupsPolicy = "Strict";
  const se = sc?.seLinuxOptions;
  if (se) out.selinuxOptions = seLinuxOption(se);
  return out;
}

/** The CRI's SELinux label: every part sent, empty when the pod leaves it to the runtime. */
export function seLinuxOption(
  se: { user?: string; role?: string; type?: string; level?: string },
): SELinuxOption {
  return { user: se.user ?? "", role: se.role ?? "", type: se.type ?? "", level: se.level ?? "" };
}

/**
 * The sandbox config for one attempt at running `pod`. Throws ConfigError for an invalid
 * hostname, subdomain or FQDN; the caller reports it on the pod.
 */
export function buildSandboxConfig(
  pod: V1Pod,
  attempt: number,
  opts: SandboxConfigOptions,
): PodSandboxConfig {
  const m = pod.metadata ?? {};
  const config: PodSandboxConfig = {
    metadata: { name: m.name ?? "", uid: m.uid ?? "", namespace: m.namespace ?? "", attempt },
    labels: sandboxLabels(pod),
    annotations: sandboxAnnotations(pod),
    dnsConfig: podDNSConfig(pod, opts),
    logDirectory: podLogDirectory(opts.podLogsDir, pod),
  };
  // A host-network sandbox keeps the node's hostname.
  if (!pod.spec?.hostNetwork) config.hostname = kernelHostname(pod, opts.clusterDomain);
  const ports = podPortMappings(pod);
  if (ports.length) config.portMappings = ports;
  const sysctls = podSysctls(pod, opts.defaultPodSysctls);
  config.linux = { securityContext: sandboxSecurityContext(pod, opts.userns), sysctls };
  if (opts.cgroupParent) config.linux.cgroupParent = opts.cgroupParent;
  return config;
}
