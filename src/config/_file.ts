/**
 * Reads a KubeletConfiguration file (YAML or JSON) onto an AgentConfig. Mirrors upstream:
 * zero values of defaulted fields mean "use the default" (v1beta1 SetDefaults), `null` is the
 * same as absent (Go JSON), relative paths are resolved against the file's directory
 * (resolveRelativePaths), and Go's types are enforced (a number is not a duration string).
 */
import { parse as parseYaml } from "yaml";
import { KUBERNETES_YAML } from "../util/yaml_options.ts";
import { ConfigError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { closest } from "./_values.ts";
import { UPSTREAM_FIELDS } from "./_upstream_fields.ts";
import { type Given, loadUpstreamTable, type UpstreamTable } from "./_upstream_given.ts";
import { defaultImageFileFields } from "./_image_flags.ts";
import { type FileReaderKit, serverFileFields } from "./_server_flags.ts";
import { resourceFileFields, type ResourceFileKit } from "./_resource_flags.ts";
import { DEFAULT_EVICTION_HARD } from "../eviction/thresholds.ts";
import type { AgentConfig } from "./types.ts";
import {
  bool,
  type Ctx,
  describe,
  duration,
  fail,
  int32,
  int64,
  isMap,
  oneOf,
  readByteQuantity,
  type Reader,
  readFeatureGates,
  readHeaders,
  readIdsPerPod,
  readLogging,
  readShutdownByPriority,
  readTaints,
  str,
  stringList,
  stringMap,
  struct,
} from "./_file_readers.ts";

export const API_VERSION = "kubelet.config.k8s.io/v1beta1";
export const KIND = "KubeletConfiguration";

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
