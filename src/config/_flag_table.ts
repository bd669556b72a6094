/** The kubelet-compatible flags denolet accepts: names, help text and how each sets AgentConfig. */
import { parseDuration } from "./duration.ts";
import { EVICTION_FLAGS } from "./_eviction_flags.ts";
import { GC_FLAGS } from "./_gc_flags.ts";
import { CREDENTIAL_PROVIDER_FLAGS, IMAGE_PULL_FLAGS } from "./_image_flags.ts";
import { FEATURE_GATES_FLAG } from "./_feature_gates.ts";
import { CLUSTER_FLAGS } from "./_cluster_flags.ts";
import { SERVER_FLAGS } from "./_server_flags.ts";
import { RESOURCE_FLAGS } from "./_resource_flags.ts";
import { parseBool, parseHeaderPairs, parseInt32, parseList } from "./_values.ts";
import { field, type FlagDef, type TypeName } from "./_flag_kit.ts";

export type { FlagDef } from "./_flag_kit.ts";

function control(name: string, type: TypeName | undefined, help: string, short?: string): FlagDef {
  return {
    name,
    short,
    type,
    help,
    parse: (raw) => (type === undefined ? parseBool(raw) : raw),
    // --config, --help and --version steer loading; parseArgv reads them, nothing to store.
    apply() {},
  };
}

const text = (raw: string) => raw;

type Headers = Record<string, string[]>;

function mergeHeaders(prev: Headers, next: Headers, first: boolean): Headers {
  const out: Headers = first ? {} : structuredClone(prev);
  for (const [k, vs] of Object.entries(next)) (out[k] ??= []).push(...vs);
  return out;
}

function headersOf(raw: string): Headers {
  const out: Headers = {};
  for (const [k, v] of parseHeaderPairs(raw)) (out[k] ??= []).push(v);
  return out;
}

export const FLAGS: readonly FlagDef[] = [
  field({
    name: "address",
    field: "address",
    type: "string",
    help: "Address the node API listens on; 0.0.0.0 or :: means every interface.",
    parse: text,
  }),
  field({
    name: "allowed-unsafe-sysctls",
    field: "allowedUnsafeSysctls",
    type: "strings",
    help: "Unsafe sysctls or sysctl patterns ending in * (comma-separated) that pods may set, " +
      "beyond the safe set; e.g. 'kernel.msg*,net.ipv4.route.min_pmtu'.",
    parse: parseList,
  }),
  field({
    name: "cluster-dns",
    field: "clusterDNS",
    type: "strings",
    help: "Cluster DNS server IPs (comma-separated, repeatable) given to pods whose dnsPolicy is " +
      "ClusterFirst.",
    parse: parseList,
    merge: (prev, next, first) => (first ? next : [...prev, ...next]),
  }),
  field({
    name: "cluster-domain",
    field: "clusterDomain",
    type: "string",
    help: "Cluster domain added to the DNS search list of ClusterFirst pods, before the host's.",
    parse: text,
  }),
  control(
    "config",
    "string",
    "KubeletConfiguration (kubelet.config.k8s.io/v1beta1) file, YAML or JSON. Flags given on " +
      "the command line win over its fields.",
  ),
  control(
    "config-dir",
    "string",
    "Directory of drop-in KubeletConfiguration files (*.conf, subdirectories too, in lexical " +
      "order) merged over the defaults and --config as upstream's: maps merge, other values " +
      "replace, later files win; flags win over them.",
  ),
  field({
    name: "container-runtime-endpoint",
    field: "containerRuntimeEndpoint",
    type: "string",
    help: "CRI runtime socket, as unix:///path/to/runtime.sock.",
    parse: text,
  }),
  ...EVICTION_FLAGS,
  ...GC_FLAGS,
  ...IMAGE_PULL_FLAGS,
  ...CREDENTIAL_PROVIDER_FLAGS,
  FEATURE_GATES_FLAG,
  field({
    name: "file-check-frequency",
    field: "fileCheckFrequencyMs",
    type: "duration",
    help: "How often the static pod path is re-read (changes are also picked up as they happen).",
    parse: parseDuration,
  }),
  field({
    name: "healthz-bind-address",
    field: "healthzBindAddress",
    type: "string",
    help: "Address of the plain-HTTP /healthz endpoint; 0.0.0.0 or :: means every interface.",
    parse: text,
  }),
  field({
    name: "healthz-port",
    field: "healthzPort",
    type: "int32",
    help: "Port of the plain-HTTP /healthz endpoint (0 turns it off).",
    parse: parseInt32,
  }),
  control("help", undefined, "Show this help and exit.", "h"),
  field({
    name: "hostname-override",
    field: "nodeName",
    type: "string",
    help: "Node name to use instead of the machine's hostname.",
    // Upstream GetHostname trims and lowercases the override as it does the real hostname.
    parse: (raw) => raw.trim().toLowerCase(),
  }),
  field({
    name: "http-check-frequency",
    field: "httpCheckFrequencyMs",
    type: "duration",
    help: "How often --manifest-url is fetched again.",
    parse: parseDuration,
  }),
  field({
    name: "image-service-endpoint",
    field: "imageServiceEndpoint",
    type: "string",
    help: "CRI image service socket, when it differs from --container-runtime-endpoint.",
    parse: text,
  }),
  ...CLUSTER_FLAGS,
  field({
    name: "manifest-url",
    field: "staticPodURL",
    type: "string",
    help: "URL serving a Pod or a PodList to run as static pods.",
    parse: text,
  }),
  field({
    name: "manifest-url-header",
    field: "staticPodURLHeader",
    type: "colonSeparatedMultimapStringString",
    help: "Headers sent with --manifest-url requests, as name:value pairs separated by commas; " +
      "repeatable, and a repeated name sends the header once per value, in order " +
      "(e.g. 'a:1,b:2' --manifest-url-header 'b:3').",
    parse: headersOf,
    merge: mergeHeaders,
  }),
  field({
    name: "max-pods",
    field: "maxPods",
    type: "int32",
    help: "Number of pods that can run on this node; pods beyond it are refused (OutOfpods).",
    parse: parseInt32,
  }),
  field({
    name: "node-ip",
    field: "nodeIP",
    type: "string",
    help: "IP address (or comma-separated dual-stack IP addresses) of the node. If unset, " +
      "denolet uses the node's first non-loopback address.",
    parse: text,
  }),
  field({
    name: "pod-infra-container-image",
    field: "podInfraContainerImage",
    type: "string",
    help: "The runtime's sandbox (pause) image, which image garbage collection must keep. The " +
      "runtime's own configuration decides which image sandboxes use.",
    parse: text,
  }),
  field({
    name: "pod-manifest-path",
    field: "staticPodPath",
    type: "string",
    help: "Directory of static pod manifests (one Pod per file; dot-files are skipped), or a " +
      "single manifest file.",
    parse: text,
  }),
  field({
    name: "port",
    field: "port",
    type: "int32",
    help: "Port of the authenticated HTTPS node API (0 turns it off).",
    parse: parseInt32,
  }),
  field({
    name: "read-only-port",
    field: "readOnlyPort",
    type: "int32",
    help: "Port of the unauthenticated read-only node API (0 turns it off). A --config file " +
      "changes the default to 0, as upstream.",
    parse: parseInt32,
  }),
  field({
    name: "resolv-conf",
    field: "resolvConf",
    type: "string",
    help: "resolv.conf that pods with dnsPolicy Default (or no cluster DNS) inherit.",
    parse: text,
  }),
  field({
    name: "root-dir",
    field: "rootDir",
    type: "string",
    help: "Directory for the agent's state: pod volumes, /etc/hosts files, termination logs.",
    parse: text,
  }),
  field({
    name: "runtime-request-timeout",
    field: "runtimeRequestTimeoutMs",
    type: "duration",
    help: "Deadline of each CRI call (image pulls excepted); a call past it is cancelled and " +
      "retried later.",
    parse: parseDuration,
  }),
  field({
    name: "seccomp-default",
    field: "seccompDefault",
    type: undefined,
    help: "Run containers whose pod and container set no seccompProfile with the runtime's " +
      "default seccomp profile (RuntimeDefault) instead of unconfined.",
    parse: parseBool,
  }),
  field({
    name: "sync-frequency",
    field: "syncFrequencyMs",
    type: "duration",
    help: "Longest time between two syncs of a pod that has no events.",
    parse: parseDuration,
  }),
  field({
    name: "v",
    short: "v",
    field: "verbosity",
    type: "int32",
    help: "Log verbosity: higher numbers add debug lines.",
    parse: (raw) => {
      const n = parseInt32(raw);
      if (n < 0) throw new Error(`verbosity must not be negative, got ${n}`);
      return n;
    },
  }),
  ...RESOURCE_FLAGS,
  ...SERVER_FLAGS,
  control("version", undefined, "Print the version and exit."),
];
