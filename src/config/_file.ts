/**
 * Reads a KubeletConfiguration file (YAML or JSON) onto an AgentConfig. Mirrors upstream:
 * zero values of defaulted fields mean "use the default" (v1beta1 SetDefaults), `null` is the
 * same as absent (Go JSON), relative paths are resolved against the file's directory
 * (resolveRelativePaths), and Go's types are enforced (a number is not a duration string).
 */
import { posix } from "node:path";
import { parse as parseYaml } from "yaml";
import { KUBERNETES_YAML } from "../util/yaml_options.ts";
import { ConfigError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { DurationSyntaxError, parseDuration } from "./duration.ts";
import { checkInt32, closest } from "./_values.ts";
import { UPSTREAM_FIELDS } from "./_upstream_fields.ts";
import { type Given, loadUpstreamTable, type UpstreamTable } from "./_upstream_given.ts";
import { readLoggingField } from "./_logging_field.ts";
import { parseByteQuantity } from "./_gc_flags.ts";
import { defaultImageFileFields } from "./_image_flags.ts";
import { checkTaint } from "./_taints.ts";
import { type FileReaderKit, serverFileFields } from "./_server_flags.ts";
import { resourceFileFields, type ResourceFileKit } from "./_resource_flags.ts";
import { FieldProblem, parseByPodPriority } from "./_shutdown_fields.ts";
import { DEFAULT_EVICTION_HARD } from "../eviction/thresholds.ts";
import type { AgentConfig } from "./types.ts";

export const API_VERSION = "kubelet.config.k8s.io/v1beta1";
export const KIND = "KubeletConfiguration";

interface Ctx {
  cfg: AgentConfig;
  origin: Map<keyof AgentConfig, string>;
  /** Names the file in messages: `kubelet.yaml: syncFrequency`. */
  file: string;
  /** Absolute directory of the file, for relative paths. */
  dir: string;
  warnings: string[];
  /** Values of the upstream fields denolet does not implement, for the table's decision. */
  given: Given[];
  /** Loaded when the document sets an upstream field (`upstreamTableFor`). */
  table?: UpstreamTable;
}

type Reader = (value: unknown, ctx: Ctx, path: string) => void;

type KeysOf<T> = {
  [K in keyof AgentConfig]: AgentConfig[K] extends T ? K : never;
}[keyof AgentConfig];

function fail(ctx: Ctx, path: string, message: string, cause?: unknown): never {
  throw new ConfigError(`${ctx.file}: ${path}`, message, cause ? { cause } : undefined);
}

function set<K extends keyof AgentConfig>(ctx: Ctx, key: K, value: AgentConfig[K], path: string) {
  ctx.cfg[key] = value;
  ctx.origin.set(key, `${ctx.file}: ${path}`);
}

function expectString(value: unknown, ctx: Ctx, path: string): string {
  if (typeof value !== "string") {
    // The user wrote `no` or `on`, not `false`: say why it is not text.
    const hint = typeof value === "boolean"
      ? " (quote it: YAML 1.1 reads unquoted yes, no, on and off as booleans)"
      : "";
    fail(ctx, path, `expected a string, got ${describe(value)}${hint}`);
  }
  return value;
}

/** A string field. `zeroIsUnset`: "" keeps the default, as upstream defaulting does. */
function str(key: KeysOf<string>, opts: { zeroIsUnset?: boolean; isPath?: boolean } = {}): Reader {
  return (value, ctx, path) => {
    let s = expectString(value, ctx, path);
    if (s === "" && opts.zeroIsUnset) return;
    if (opts.isPath && s !== "" && !posix.isAbsolute(s)) s = posix.resolve(ctx.dir, s);
    set(ctx, key, s, path);
  };
}

/** A metav1.Duration field; "0s" keeps the default (upstream compares against zeroDuration). */
function duration(key: KeysOf<number>): Reader {
  return (value, ctx, path) => {
    if (typeof value !== "string") {
      fail(ctx, path, `expected a duration string such as "20s", got ${describe(value)}`);
    }
    let ms: number;
    try {
      ms = parseDuration(value);
    } catch (e) {
      if (!(e instanceof DurationSyntaxError)) throw e;
      fail(ctx, path, e.message, e);
    }
    if (ms !== 0) set(ctx, key, ms, path);
  };
}

function int32(key: KeysOf<number>, opts: { zeroIsUnset: boolean }): Reader {
  return (value, ctx, path) => {
    if (typeof value !== "number") fail(ctx, path, `expected an integer, got ${describe(value)}`);
    let n: number;
    try {
      n = checkInt32(value);
    } catch (e) {
      fail(ctx, path, errorMessage(e), e);
    }
    if (n === 0 && opts.zeroIsUnset) return;
    set(ctx, key, n, path);
  };
}

/** A Go int64 field: any integer JS holds exactly; 0 is kept (pointer fields upstream). */
function int64(key: KeysOf<number>): Reader {
  return (value, ctx, path) => {
    if (typeof value !== "number" || !Number.isSafeInteger(value)) {
      fail(ctx, path, `expected an integer, got ${describe(value)}`);
    }
    set(ctx, key, value, path);
  };
}

function stringList(key: KeysOf<string[]>): Reader {
  return (value, ctx, path) => {
    if (!Array.isArray(value)) {
      fail(ctx, path, `expected a list of strings, got ${describe(value)}`);
    }
    const items = value.map((v, i) => expectString(v, ctx, `${path}[${i}]`));
    set(ctx, key, items, path);
  };
}

const readHeaders: Reader = (value, ctx, path) => {
  if (!isMap(value)) {
    fail(ctx, path, `expected a map of header name to a list of values, got ${describe(value)}`);
  }
  const out: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(value)) {
    const at = `${path}.${name}`;
    if (values === null) continue;
    if (!Array.isArray(values)) {
      fail(ctx, at, `expected a list of strings (e.g. ["v"]), got ${describe(values)}`);
    }
    out[name] = values.map((v, i) => expectString(v, ctx, `${at}[${i}]`));
  }
  set(ctx, "staticPodURLHeader", out, path);
};

/** registerWithTaints: a list of core/v1 Taint objects. */
const readTaints: Reader = (value, ctx, path) => {
  if (!Array.isArray(value)) fail(ctx, path, `expected a list of taints, got ${describe(value)}`);
  const out = value.map((item, i) => {
    const at = `${path}[${i}]`;
    if (!isMap(item)) fail(ctx, at, `expected a taint {key, value, effect}, got ${describe(item)}`);
    const taint = {
      key: expectString(item.key ?? "", ctx, `${at}.key`),
      value: item.value === undefined || item.value === null
        ? undefined
        : expectString(item.value, ctx, `${at}.value`),
      effect: expectString(item.effect ?? "", ctx, `${at}.effect`),
    };
    try {
      return checkTaint(taint);
    } catch (e) {
      return fail(ctx, at, errorMessage(e), e);
    }
  });
  set(ctx, "registerWithTaints", out, path);
};

const readLogging: Reader = (value, ctx, path) => {
  const read = readLoggingField(value, { file: ctx.file, path });
  if (read.verbosity !== undefined) set(ctx, "verbosity", read.verbosity, `${path}.verbosity`);
  ctx.warnings.push(...read.warnings);
};

/** A map[string]string field (evictionHard, ...): the file's map replaces the default. */
function stringMap(key: KeysOf<Record<string, string>>): Reader {
  return (value, ctx, path) => {
    if (!isMap(value)) {
      fail(ctx, path, `expected a map of string to string, got ${describe(value)}`);
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expectString(v, ctx, `${path}.${k}`);
    set(ctx, key, out, path);
  };
}

/** featureGates: a map of gate name to boolean; the file's map replaces the default. */
const readFeatureGates: Reader = (value, ctx, path) => {
  if (!isMap(value)) {
    fail(ctx, path, `expected a map of gate name to boolean, got ${describe(value)}`);
  }
  const out: Record<string, boolean> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "boolean") {
      fail(ctx, `${path}.${k}`, `expected true or false, got ${describe(v)}`);
    }
    out[k] = v;
  }
  set(ctx, "featureGates", out, path);
};

function bool(key: KeysOf<boolean>): Reader {
  return (value, ctx, path) => {
    if (typeof value !== "boolean") {
      fail(ctx, path, `expected true or false, got ${describe(value)}`);
    }
    set(ctx, key, value, path);
  };
}

/** containerLogMaxSize: a quantity string ("10Mi"); "" keeps the default. */
const readByteQuantity: Reader = (value, ctx, path) => {
  const s = expectString(value, ctx, path);
  if (s === "") return;
  try {
    set(ctx, "containerLogMaxSizeBytes", parseByteQuantity(s), path);
  } catch (e) {
    fail(ctx, path, errorMessage(e), e);
  }
};

/** A nested struct (authentication, ...): members by JSON name; unknown members are errors. */
function struct(members: Record<string, Reader>): Reader {
  return (value, ctx, path) => {
    if (!isMap(value)) fail(ctx, path, `expected a map, got ${describe(value)}`);
    for (const [name, v] of Object.entries(value)) {
      const at = `${path}.${name}`;
      const read = members[name];
      if (read === undefined) {
        const near = closest(name, Object.keys(members));
        fail(ctx, at, `unknown field "${name}"${near ? ` (did you mean "${near}"?)` : ""}`);
      }
      if (v !== null) read(v, ctx, at);
    }
  };
}

/** A string enum; "" keeps the default, as upstream defaulting does. */
function oneOf(key: KeysOf<string>, values: readonly string[]): Reader {
  return (value, ctx, path) => {
    const s = expectString(value, ctx, path);
    if (s === "") return;
    if (!values.includes(s)) {
      fail(ctx, path, `${JSON.stringify(s)} must be one of ${values.join(", ")}`);
    }
    set(ctx, key, s, path);
  };
}

/** userNamespaces.idsPerPod: an int64 upstream, checked by validation (it may pass 2^31). */
const readIdsPerPod: Reader = (value, ctx, path) => {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    fail(ctx, path, `expected an integer, got ${describe(value)}`);
  }
  set(ctx, "userNamespacesIdsPerPod", value, path);
};

const readShutdownByPriority: Reader = (value, ctx, path) => {
  let entries;
  try {
    entries = parseByPodPriority(value, path);
  } catch (e) {
    if (!(e instanceof FieldProblem)) throw e;
    return fail(ctx, e.at, e.message);
  }
  set(ctx, "shutdownGracePeriodByPodPriority", entries, path);
};

const KIT: FileReaderKit<Ctx> & ResourceFileKit<Ctx> = {
  str,
  bool,
  duration,
  stringList,
  struct,
  oneOf,
  int64,
};

/** The fields denolet implements, by upstream JSON name. */
const FIELDS: Record<string, Reader> = {
  staticPodPath: str("staticPodPath", { isPath: true }),
  staticPodURL: str("staticPodURL"),
  staticPodURLHeader: readHeaders,
  containerRuntimeEndpoint: str("containerRuntimeEndpoint", { zeroIsUnset: true }),
  imageServiceEndpoint: str("imageServiceEndpoint"),
  podLogsDir: str("podLogsDir", { zeroIsUnset: true, isPath: true }),
  syncFrequency: duration("syncFrequencyMs"),
  fileCheckFrequency: duration("fileCheckFrequencyMs"),
  httpCheckFrequency: duration("httpCheckFrequencyMs"),
  address: str("address", { zeroIsUnset: true }),
  port: int32("port", { zeroIsUnset: true }),
  readOnlyPort: int32("readOnlyPort", { zeroIsUnset: false }),
  // healthzPort is a pointer upstream (0 turns the endpoint off); the address is a plain string.
  healthzPort: int32("healthzPort", { zeroIsUnset: false }),
  healthzBindAddress: str("healthzBindAddress", { zeroIsUnset: true }),
  runtimeRequestTimeout: duration("runtimeRequestTimeoutMs"),
  maxPods: int32("maxPods", { zeroIsUnset: true }),
  registerNode: bool("registerNode"),
  rotateCertificates: bool("rotateCertificates"),
  registerWithTaints: readTaints,
  providerID: str("providerID"),
  nodeStatusUpdateFrequency: duration("nodeStatusUpdateFrequencyMs"),
  nodeStatusReportFrequency: duration("nodeStatusReportFrequencyMs"),
  nodeLeaseDurationSeconds: int32("nodeLeaseDurationSeconds", { zeroIsUnset: true }),
  nodeStatusMaxImages: int32("nodeStatusMaxImages", { zeroIsUnset: false }),
  kubeReserved: stringMap("kubeReserved"),
  systemReserved: stringMap("systemReserved"),
  kubeAPIQPS: int32("kubeAPIQPS", { zeroIsUnset: false }),
  // Only kubeAPIQPS is a pointer upstream; a 0 burst is defaulted to 100 like an absent one.
  kubeAPIBurst: int32("kubeAPIBurst", { zeroIsUnset: true }),
  clusterDNS: stringList("clusterDNS"),
  clusterDomain: str("clusterDomain"),
  // resolvConf is a *string upstream: "" is meaningful (no host DNS config), only absent defaults.
  resolvConf: str("resolvConf", { isPath: true }),
  logging: readLogging,
  evictionHard: stringMap("evictionHard"),
  evictionSoft: stringMap("evictionSoft"),
  evictionSoftGracePeriod: stringMap("evictionSoftGracePeriod"),
  evictionMinimumReclaim: stringMap("evictionMinimumReclaim"),
  evictionPressureTransitionPeriod: duration("evictionPressureTransitionPeriodMs"),
  evictionMaxPodGracePeriod: int32("evictionMaxPodGracePeriod", { zeroIsUnset: false }),
  mergeDefaultEvictionSettings: bool("mergeDefaultEvictionSettings"),
  featureGates: readFeatureGates,
  cgroupsPerQOS: bool("cgroupsPerQOS"),
  cgroupRoot: str("cgroupRoot"),
  cgroupDriver: str("cgroupDriver", { zeroIsUnset: true }),
  imageGCHighThresholdPercent: int32("imageGCHighThresholdPercent", { zeroIsUnset: false }),
  imageGCLowThresholdPercent: int32("imageGCLowThresholdPercent", { zeroIsUnset: false }),
  imageMinimumGCAge: duration("imageMinimumGCAgeMs"),
  containerLogMaxSize: readByteQuantity,
  containerLogMaxFiles: int32("containerLogMaxFiles", { zeroIsUnset: true }),
  containerLogMonitorInterval: duration("containerLogMonitorIntervalMs"),
  seccompDefault: bool("seccompDefault"),
  allowedUnsafeSysctls: stringList("allowedUnsafeSysctls"),
  defaultPodSysctls: stringMap("defaultPodSysctls"),
  imagePullCredentialsVerificationPolicy: str("imagePullCredentialsVerificationPolicy", {
    zeroIsUnset: true,
  }),
  preloadedImagesVerificationAllowlist: stringList("preloadedImagesVerificationAllowlist"),
  serializeImagePulls: bool("serializeImagePulls"),
  // Pointers upstream: an explicit 0 is kept (and refused by validation, or means no limit).
  maxParallelImagePulls: int32("maxParallelImagePulls", { zeroIsUnset: false }),
  registryPullQPS: int32("registryPullQPS", { zeroIsUnset: false }),
  registryBurst: int32("registryBurst", { zeroIsUnset: true }),
  imageMaximumGCAge: duration("imageMaximumGCAgeMs"),
  userNamespaces: struct({ idsPerPod: readIdsPerPod }),
  shutdownGracePeriod: duration("shutdownGracePeriodMs"),
  shutdownGracePeriodCriticalPods: duration("shutdownGracePeriodCriticalPodsMs"),
  shutdownGracePeriodByPodPriority: readShutdownByPriority,
  ...resourceFileFields(KIT),
  ...serverFileFields(KIT),
};

const TYPE_META = new Set(["apiVersion", "kind"]);

/** The names of the fields denolet implements (the tests check the upstream lists against them). */
export const IMPLEMENTED_FIELDS: readonly string[] = Object.keys(FIELDS);

/**
 * An upstream field denolet does not implement: decoded as Go would, for the table to decide
 * once the flags are in (`checkUpstream`).
 */
function readUpstream(name: string, value: unknown, ctx: Ctx): void {
  const table = ctx.table;
  if (table === undefined) throw new Error(`the upstream-settings table is not loaded for ${name}`);
  const where = `${ctx.file}: ${name}`;
  try {
    const decoded = table.fileValue(table.settingOfField(name).type, value);
    ctx.given.push({ field: name, where, value: decoded, fromFile: true });
  } catch (e) {
    if (!(e instanceof table.FileValueError)) throw e;
    fail(ctx, `${name}${e.at}`, e.message, e);
  }
}

/**
 * The upstream-settings table when `doc` sets an upstream field denolet does not implement
 * (one applyConfigDocument then decodes), else undefined: most files set none.
 */
export async function upstreamTableFor(
  doc: Record<string, unknown>,
): Promise<UpstreamTable | undefined> {
  const sets = Object.entries(doc).some(([name, value]) =>
    value !== null && !FIELDS[name] && UPSTREAM_FIELDS.has(name)
  );
  return sets ? await loadUpstreamTable() : undefined;
}

/**
 * Parses `text` and applies its fields onto `cfg`, recording each field's origin. Returns
 * warnings (logging settings) and the values of the upstream fields
 * the table decides. Throws ConfigError naming `file` and the field.
 */
export async function applyConfigFile(
  cfg: AgentConfig,
  origin: Map<keyof AgentConfig, string>,
  src: { text: string; file: string; dir: string },
): Promise<{ warnings: string[]; given: Given[] }> {
  const doc = parseConfigDocument(src.text, src.file);
  const table = await upstreamTableFor(doc);
  return applyConfigDocument(cfg, origin, { ...src, doc, defaulting: true, table });
}

/**
 * Parses a KubeletConfiguration file (YAML 1.1 or JSON) and checks its apiVersion and kind.
 * Returns its fields without them. Throws ConfigError naming `file`.
 */
export function parseConfigDocument(text: string, file: string): Record<string, unknown> {
  const ctx = { file } as Ctx;
  let doc: unknown;
  try {
    // YAML 1.1, as the kubelet reads its file: `cgroupsPerQOS: yes` is true.
    doc = parseYaml(text, KUBERNETES_YAML);
  } catch (e) {
    throw new ConfigError(file, `cannot parse as YAML or JSON: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  if (doc === null || doc === undefined) throw new ConfigError(file, "the file is empty");
  if (!isMap(doc)) {
    throw new ConfigError(file, `expected a ${KIND} object, got ${describe(doc)}`);
  }
  if (doc.apiVersion !== API_VERSION) {
    fail(ctx, "apiVersion", `must be "${API_VERSION}", got ${describe(doc.apiVersion)}`);
  }
  if (doc.kind !== KIND) fail(ctx, "kind", `must be "${KIND}", got ${describe(doc.kind)}`);
  return Object.fromEntries(Object.entries(doc).filter(([name]) => !TYPE_META.has(name)));
}

/**
 * Applies a parsed document's fields onto `cfg` (see applyConfigFile). `defaulting`: the file's
 * own v1beta1 defaulting (the report frequency from the update frequency, the merged eviction
 * defaults), which drop-ins, merged into an already defaulted document, do not get again.
 * `table`: `upstreamTableFor(doc)`, needed when the document sets an upstream field.
 */
export function applyConfigDocument(
  cfg: AgentConfig,
  origin: Map<keyof AgentConfig, string>,
  src: {
    doc: Record<string, unknown>;
    file: string;
    dir: string;
    defaulting: boolean;
    table?: UpstreamTable;
  },
): { warnings: string[]; given: Given[] } {
  const ctx: Ctx = {
    cfg,
    origin,
    file: src.file,
    dir: src.dir,
    warnings: [],
    given: [],
    table: src.table,
  };
  for (const [name, value] of Object.entries(src.doc)) {
    const read = FIELDS[name];
    if (read) {
      if (value !== null) read(value, ctx, name);
    } else if (UPSTREAM_FIELDS.has(name)) {
      if (value !== null) readUpstream(name, value, ctx);
    } else {
      const near = closest(name, UPSTREAM_FIELDS);
      const hint = near ? ` (did you mean "${near}"?)` : "";
      fail(ctx, name, `unknown field "${name}"${hint}`);
    }
  }
  if (!src.defaulting) return { warnings: ctx.warnings, given: ctx.given };
  // Upstream's v1beta1 defaulting: a file that sets only the update frequency gets it as the
  // report frequency too. Defaulting runs on the file alone, so flags never do this.
  if (
    ctx.origin.has("nodeStatusUpdateFrequencyMs") && !ctx.origin.has("nodeStatusReportFrequencyMs")
  ) {
    cfg.nodeStatusReportFrequencyMs = cfg.nodeStatusUpdateFrequencyMs;
  }
  defaultImageFileFields(cfg, new Set(ctx.origin.keys()));
  // Upstream loadConfigFile: an evictionHard map replaces the defaults unless
  // mergeDefaultEvictionSettings asks to keep the signals it does not name.
  if (cfg.mergeDefaultEvictionSettings && ctx.origin.has("evictionHard")) {
    cfg.evictionHard = { ...DEFAULT_EVICTION_HARD, ...cfg.evictionHard };
  }
  return { warnings: ctx.warnings, given: ctx.given };
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  if (typeof v === "string") return `string ${JSON.stringify(v)}`;
  return `${typeof v} ${String(v)}`;
}
