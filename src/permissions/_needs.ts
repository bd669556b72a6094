/**
 * Everything the agent touches that Deno guards, one entry per reason. This table is the single
 * definition of denolet's permission set: `deno task compile` bakes it into the binary, the
 * start-up check compares it with what was granted, and the permission e2e suite runs the agent
 * under exactly it. Adding a path, host, variable or program the agent needs is one line here.
 */
import { posix } from "node:path";
import type { AgentConfig } from "../config/types.ts";
import { gracefulShutdownConfigured } from "../config/mod.ts";
import { CONTAINER_LOGS_DIR } from "../runtime/log_links.ts";

/** What the permission set depends on besides the agent configuration. */
export interface PermissionOptions {
  /** The --config file, absolute; read at start-up. */
  configFile?: string;
  /**
   * Where HTTP/TCP/gRPC probes and lifecycle hooks may connect. Pod IPs come from the CNI, which
   * the agent does not configure, so the default is the IPv4 private and shared ranges every
   * common pod network uses (plus loopback and the --node-ip for hostNetwork pods). Deno accepts
   * IPv4 CIDRs but no IPv6 ones: an IPv6 or public pod network needs its addresses listed, or
   * "any" (an unrestricted --allow-net).
   */
  probeNetworks?: readonly string[] | "any";
  /**
   * Host directories pods may use as hostPath volumes with a `type` the agent checks or creates
   * (Directory, DirectoryOrCreate, File, FileOrCreate, ...). An untyped hostPath needs nothing:
   * the runtime does the bind mount.
   */
  hostPathRoots?: readonly string[];
}

/** IPv4 ranges pod networks are drawn from: RFC 1918, RFC 6598 (CGNAT, k3s/flannel), loopback. */
export const DEFAULT_PROBE_NETWORKS: readonly string[] = [
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "100.64.0.0/10",
  "127.0.0.0/8",
];

/** Environment variables grpc-js reads (logging, tracing, TLS roots, resolver, proxies). */
export const GRPC_ENV: readonly string[] = [
  "GRPC_VERBOSITY",
  "GRPC_TRACE",
  "GRPC_NODE_VERBOSITY",
  "GRPC_NODE_TRACE",
  "GRPC_SSL_CIPHER_SUITES",
  "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH",
  "GRPC_NODE_USE_ALTERNATIVE_RESOLVER",
  "GRPC_NODE_DEBUG_SEND_ERROR_DETAILS",
  "GRPC_EXPERIMENTAL_ENABLE_OUTLIER_DETECTION",
  "grpc_proxy",
  "https_proxy",
  "http_proxy",
  "no_grpc_proxy",
  "no_proxy",
];

export type Kind = "read" | "write" | "net" | "env" | "run" | "sys";

/** One reason the agent needs some permissions. Values may be empty (the need does not apply). */
export interface Need {
  why: string;
  grants: (c: AgentConfig, o: PermissionOptions) => Partial<Record<Kind, string[]>>;
}

export const NEEDS: readonly Need[] = [
  {
    why: "the --config file",
    grants: (_c, o) => ({ read: o.configFile ? [o.configFile] : [] }),
  },
  {
    why: "static pod manifests (a single file is watched through its directory)",
    grants: (c) => ({ read: manifestReadPaths(c.staticPodPath) }),
  },
  {
    why: "pod directories: volumes, etc-hosts, container termination logs",
    grants: (c) => ({ read: [c.rootDir], write: [c.rootDir] }),
  },
  {
    why: "container logs under the pod log directory",
    grants: (c) => ({ read: [c.podLogsDir], write: [c.podLogsDir] }),
  },
  {
    why: "the /var/log/containers links log shippers tail",
    grants: () => ({ read: [CONTAINER_LOGS_DIR], write: [CONTAINER_LOGS_DIR] }),
  },
  {
    why: "DNS settings for dnsPolicy Default/ClusterFirst pods",
    grants: (c) => ({ read: c.resolvConf ? [c.resolvConf] : [] }),
  },
  {
    why: "the node's hosts file, copied for hostNetwork pods",
    grants: () => ({ read: ["/etc/hosts"] }),
  },
  {
    why: "the CRI runtime and image endpoints",
    grants: (c) => mergeGrants([c.containerRuntimeEndpoint, c.imageServiceEndpoint].map(endpoint)),
  },
  {
    why: "the node API listeners",
    grants: (c) => ({
      net: [
        ...[c.port, c.readOnlyPort].filter((p) => p > 0).map((p) => hostPort(c.address, p)),
        ...(c.healthzPort > 0 ? [hostPort(c.healthzBindAddress, c.healthzPort)] : []),
      ],
    }),
  },
  {
    why: "the node API's certificates, client CA and key, and /logs/ (the node's log directory)",
    grants: (c) => {
      if (c.port === 0) return {};
      const read = [c.tlsCertFile, c.tlsPrivateKeyFile, c.clientCAFile, c.certDir];
      if (c.enableDebuggingHandlers && c.enableSystemLogHandler) read.push("/var/log");
      // The self-signed or bootstrapped pair is written under --cert-dir.
      return { read, write: [c.certDir] };
    },
  },
  {
    why: "the node log query (/logs/?query=<service>) reads journald through journalctl",
    grants: (c) =>
      c.port !== 0 && c.enableDebuggingHandlers && c.enableSystemLogHandler &&
        c.enableSystemLogQuery
        ? { run: ["journalctl"] }
        : {},
  },
  {
    why: "the kubeconfig; with TLS bootstrapping or rotation, the kubeconfig written and the " +
      "client certificates under --cert-dir",
    grants: (c) => {
      if (c.kubeconfig === "") return {};
      const read = [c.kubeconfig, ...(c.bootstrapKubeconfig ? [c.bootstrapKubeconfig] : [])];
      if (!c.bootstrapKubeconfig && !c.rotateCertificates) return { read };
      return { read: [...read, c.certDir], write: [posix.dirname(c.kubeconfig), c.certDir] };
    },
  },
  {
    why: "the static pod manifest URL",
    grants: (c) => ({ net: c.staticPodURL ? [urlHost(c.staticPodURL)] : [] }),
  },
  {
    why: "probes and lifecycle hooks connecting to pods",
    grants: (c, o) => ({ net: probeNets(c, o) }),
  },
  {
    why: "typed hostPath volumes (checked or created by the agent)",
    grants: (_c, o) => ({ read: [...o.hostPathRoots ?? []], write: [...o.hostPathRoots ?? []] }),
  },
  { why: "grpc-js settings", grants: () => ({ env: [...GRPC_ENV] }) },
  {
    why: "the yaml parser's debug switches",
    grants: () => ({ env: ["LOG_TOKENS", "LOG_STREAM"] }),
  },
  {
    why: "the node name when --hostname-override is not given",
    grants: () => ({ sys: ["hostname"] }),
  },
  {
    why: "the node IP when --node-ip is not given",
    grants: () => ({ sys: ["networkInterfaces"] }),
  },
  {
    why: "node memory, the default for resourceFieldRef limits.memory",
    grants: () => ({ sys: ["systemMemoryInfo"] }),
  },
  {
    why: "tmpfs for emptyDir volumes with medium Memory",
    grants: () => ({ run: ["mount", "umount"] }),
  },
  {
    why: "filesystem capacity for stats and image GC (node:fs statfs)",
    grants: () => ({ sys: ["statfs"] }),
  },
  // Deno grants these only with --allow-all (see needsAllowAll), so while they are needed the
  // whole set collapses to --allow-all, with these reasons shown.
  {
    why: "node and pod usage for /stats/summary and eviction (/proc, cgroupfs)",
    grants: () => ({ read: ["/proc", "/sys/fs/cgroup"] }),
  },
  {
    why: "node capacity for the Node status (/proc, /sys)",
    grants: () => ({ read: ["/proc", "/sys"] }),
  },
  {
    why: "QoS pod cgroups (cgroupfs writes)",
    grants: (c) => (c.cgroupsPerQOS ? { read: ["/sys/fs/cgroup"], write: ["/sys/fs/cgroup"] } : {}),
  },
  {
    // The runtime's RuntimeConfig may choose the systemd driver whatever the configuration says.
    why: "the system D-Bus: systemd's manager for the systemd cgroup driver",
    grants: (c) => (c.cgroupsPerQOS ? SYSTEM_BUS : {}),
  },
  {
    why: "graceful node shutdown: logind over the system D-Bus, and its logind.conf drop-in",
    grants: (c) =>
      gracefulShutdownConfigured(c)
        ? { ...SYSTEM_BUS, write: [SYSTEM_BUS_SOCKET, LOGIND_CONF_DIR], read: [SYSTEM_BUS_SOCKET] }
        : {},
  },
  {
    why: "finding tmpfs emptyDir mounts to unmount (/proc/self/mountinfo)",
    grants: () => ({ read: ["/proc/self/mountinfo"] }),
  },
];

/** Connecting to the system bus, authenticated as this process's uid. */
const SYSTEM_BUS_SOCKET = "/run/dbus/system_bus_socket";
/** Where the shutdown manager raises logind's InhibitDelayMaxSec (nodeshutdown/_logind.ts). */
const LOGIND_CONF_DIR = "/etc/systemd/logind.conf.d";
const SYSTEM_BUS: Partial<Record<Kind, string[]>> = {
  read: [SYSTEM_BUS_SOCKET],
  write: [SYSTEM_BUS_SOCKET],
  net: [`unix:${SYSTEM_BUS_SOCKET}`],
  sys: ["uid"],
  // Where another system bus listens, as libdbus reads it.
  env: ["DBUS_SYSTEM_BUS_ADDRESS"],
};

function manifestReadPaths(path: string): string[] {
  if (!path) return [];
  // Whether it is a file or a directory is decided at each read; a file is watched through its
  // directory, so both forms need the directory. A path ending in a YAML/JSON name is a file.
  return /\.(ya?ml|json)$/i.test(path) ? [path, posix.dirname(path)] : [path];
}

/**
 * A unix socket endpoint (config validation admits no other on Linux): Deno checks connecting
 * to it as read and write on the path and as net `unix:<path>`.
 */
function endpoint(ep: string): Partial<Record<Kind, string[]>> {
  if (!ep) return {};
  const path = ep.startsWith("unix://") ? ep.slice("unix://".length) : ep;
  return { read: [path], write: [path], net: [`unix:${path}`] };
}

function hostPort(address: string, port: number): string {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

function urlHost(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return `${u.hostname}:${port}`;
}

function probeNets(c: AgentConfig, o: PermissionOptions): string[] {
  if (o.probeNetworks === "any") return ["*"];
  const nets = [...o.probeNetworks ?? DEFAULT_PROBE_NETWORKS];
  // hostNetwork pods listen on the node's address, which need not be private.
  for (const ip of c.nodeIP.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    nets.push(ip.includes(":") ? `[${ip}]` : ip);
  }
  return nets;
}

function mergeGrants(list: Partial<Record<Kind, string[]>>[]): Partial<Record<Kind, string[]>> {
  const out: Partial<Record<Kind, string[]>> = {};
  for (const g of list) {
    for (const [k, v] of Object.entries(g) as [Kind, string[]][]) (out[k] ??= []).push(...v);
  }
  return out;
}
