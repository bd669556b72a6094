/** The kubelet-compatible flags denolet accepts: names, help text and how each sets AgentConfig. */
import { parseDuration } from "./duration.ts";
import { parseBool, parseHeaderPairs, parseInt32, parseList } from "./_values.ts";
import type { AgentConfig } from "./types.ts";

/** What the help text calls the value type (pflag's names). */
type TypeName = "string" | "int32" | "duration" | "strings" | "colonSeparatedMultimapStringString";

export interface FlagDef {
  name: string;
  short?: string;
  /** Value type for help; undefined for booleans, which take no separate argument. */
  type?: TypeName;
  help: string;
  /** The AgentConfig field set by this flag; undefined for --config, --help, --version. */
  field?: keyof AgentConfig;
  /** Converts the raw text; throws an Error with the reason. */
  parse(raw: string): unknown;
  /**
   * Stores a parsed value. `first` is true for the first occurrence on the command line: list and
   * map flags replace the earlier (default or file) value then, and append on later occurrences.
   */
  apply(cfg: AgentConfig, value: unknown, first: boolean): void;
}

function field<K extends keyof AgentConfig>(spec: {
  name: string;
  short?: string;
  field: K;
  type?: TypeName;
  help: string;
  parse: (raw: string) => AgentConfig[K];
  merge?: (prev: AgentConfig[K], next: AgentConfig[K], first: boolean) => AgentConfig[K];
}): FlagDef {
  return {
    ...spec,
    apply(cfg, value, first) {
      const next = value as AgentConfig[K];
      cfg[spec.field] = spec.merge ? spec.merge(cfg[spec.field], next, first) : next;
    },
  };
}

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
    help: "The IP address for the Kubelet to serve on (set to '0.0.0.0' or '::' for listening " +
      "on all interfaces and IP address families)",
    parse: text,
  }),
  field({
    name: "cluster-dns",
    field: "clusterDNS",
    type: "strings",
    help: "Comma-separated list of DNS server IP address. This value is used for containers DNS " +
      'server in case of Pods with "dnsPolicy=ClusterFirst".',
    parse: parseList,
    merge: (prev, next, first) => (first ? next : [...prev, ...next]),
  }),
  field({
    name: "cluster-domain",
    field: "clusterDomain",
    type: "string",
    help: "Domain for this cluster. If set, kubelet will configure all containers to search this " +
      "domain in addition to the host's search domains",
    parse: text,
  }),
  control(
    "config",
    "string",
    "The Kubelet will load its initial configuration from this file. The path may be absolute " +
      "or relative; relative paths start at the Kubelet's current working directory. Omit this " +
      "flag to use the built-in default configuration values. Command-line flags override " +
      "configuration from this file.",
  ),
  field({
    name: "container-runtime-endpoint",
    field: "containerRuntimeEndpoint",
    type: "string",
    help: "The endpoint of container runtime service. Unix Domain Sockets are supported on " +
      "Linux. Example: 'unix:///path/to/runtime.sock'",
    parse: text,
  }),
  field({
    name: "file-check-frequency",
    field: "fileCheckFrequencyMs",
    type: "duration",
    help: "Duration between checking config files for new data",
    parse: parseDuration,
  }),
  control("help", undefined, "help for denolet", "h"),
  field({
    name: "hostname-override",
    field: "nodeName",
    type: "string",
    help: "If non-empty, will use this string as identification instead of the actual hostname.",
    // Upstream GetHostname trims and lowercases the override as it does the real hostname.
    parse: (raw) => raw.trim().toLowerCase(),
  }),
  field({
    name: "http-check-frequency",
    field: "httpCheckFrequencyMs",
    type: "duration",
    help: "Duration between checking http for new data",
    parse: parseDuration,
  }),
  field({
    name: "image-service-endpoint",
    field: "imageServiceEndpoint",
    type: "string",
    help: "The endpoint of container image service. If not specified, it will be the same with " +
      "--container-runtime-endpoint by default. Example: 'unix:///path/to/runtime.sock'",
    parse: text,
  }),
  field({
    name: "manifest-url",
    field: "staticPodURL",
    type: "string",
    help: "URL for accessing additional Pod specifications to run",
    parse: text,
  }),
  field({
    name: "manifest-url-header",
    field: "staticPodURLHeader",
    type: "colonSeparatedMultimapStringString",
    help: "Comma-separated list of HTTP headers to use when accessing the url provided to " +
      "--manifest-url. Multiple headers with the same name will be added in the same order " +
      "provided. This flag can be repeatedly invoked. For example: --manifest-url-header " +
      "'a:hello,b:again,c:world' --manifest-url-header 'b:beautiful'",
    parse: headersOf,
    merge: mergeHeaders,
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
    help: "Specified image will not be pruned by the image garbage collector. CRI " +
      "implementations have their own configuration to set this image.",
    parse: text,
  }),
  field({
    name: "pod-manifest-path",
    field: "staticPodPath",
    type: "string",
    help: "Path to the directory containing static pod files to run, or the path to a single " +
      "static pod file. Files starting with dots will be ignored.",
    parse: text,
  }),
  field({
    name: "port",
    field: "port",
    type: "int32",
    help: "The port for the Kubelet to serve on (0 disables the node API).",
    parse: parseInt32,
  }),
  field({
    name: "read-only-port",
    field: "readOnlyPort",
    type: "int32",
    help: "The read-only port for the Kubelet to serve on with no authentication/authorization " +
      "(set to 0 to disable). With --config, the file's default of 0 applies instead.",
    parse: parseInt32,
  }),
  field({
    name: "resolv-conf",
    field: "resolvConf",
    type: "string",
    help: "Resolver configuration file used as the basis for the container DNS resolution " +
      "configuration.",
    parse: text,
  }),
  field({
    name: "root-dir",
    field: "rootDir",
    type: "string",
    help: "Directory path for managing kubelet files (volume mounts, etc).",
    parse: text,
  }),
  field({
    name: "runtime-request-timeout",
    field: "runtimeRequestTimeoutMs",
    type: "duration",
    help: "Timeout of all runtime requests except long running request - pull, logs, exec and " +
      "attach. When timeout exceeded, kubelet will cancel the request, throw out an error and " +
      "will retry later.",
    parse: parseDuration,
  }),
  field({
    name: "sync-frequency",
    field: "syncFrequencyMs",
    type: "duration",
    help: "Max period between synchronizing running containers and config",
    parse: parseDuration,
  }),
  field({
    name: "v",
    short: "v",
    field: "verbosity",
    type: "int32",
    help: "number for the log level verbosity",
    parse: (raw) => {
      const n = parseInt32(raw);
      if (n < 0) throw new Error(`verbosity must not be negative, got ${n}`);
      return n;
    },
  }),
  control("version", undefined, "Print version information and quit"),
];
