/**
 * Container environment (ValidateEnv, validateEnvVarValueFrom) and the downward API selectors
 * shared with downwardAPI volumes (validateObjectFieldSelector,
 * validateContainerResourceFieldSelector, validateContainerResourceDivisor).
 */
import type {
  V1Container,
  V1ObjectFieldSelector,
  V1ResourceFieldSelector,
  V1Volume,
} from "@kubernetes/client-node";
import { tryParseQuantity } from "../util/quantity.ts";
import { dns1123Label, envVarName, type FieldErrors, qualifiedName } from "./_fields.ts";

/** fieldPaths an env var may read (validEnvDownwardAPIFieldPathExpressions). */
export const ENV_FIELD_PATHS = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
] as const;
/** fieldPaths a downwardAPI volume file may hold (validDownwardAPIFieldPathExpressions). */
export const VOLUME_FIELD_PATHS = [
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
] as const;
const RESOURCE_FIELD_PATHS = [
  "limits.cpu",
  "limits.ephemeral-storage",
  "limits.memory",
  "requests.cpu",
  "requests.ephemeral-storage",
  "requests.memory",
] as const;
const SUBSCRIPTED = /^(metadata\.labels|metadata\.annotations)\['(.*)'\]$/;
const CPU_DIVISORS = [0.001, 1];
const BYTE_DIVISORS = [
  1,
  ...[1, 2, 3, 4, 5, 6].map((e) => 1000 ** e),
  ...[1, 2, 3, 4, 5, 6].map((e) => 1024 ** e),
];

/** `env` of a container at `path`; `containerNames` are all of the pod's containers. */
export function validateEnv(
  c: V1Container,
  path: string,
  opts: {
    containerNames: ReadonlySet<string>;
    /** The pod's volumes by name: a fileKeyRef must name an emptyDir. */
    volumes: ReadonlyMap<string, V1Volume>;
    errs: FieldErrors;
  },
): void {
  const { errs } = opts;
  (c.env ?? []).forEach((e, i) => {
    const ep = `${path}.env[${i}]`;
    if (!e.name) errs.required(`${ep}.name`);
    else {
      const why = envVarName(e.name);
      if (why) errs.invalid(`${ep}.name`, e.name, why);
    }
    const from = e.valueFrom;
    if (!from) return;
    const fp = `${ep}.valueFrom`;
    const sources = ([
      "fieldRef",
      "resourceFieldRef",
      "configMapKeyRef",
      "secretKeyRef",
      "fileKeyRef",
    ] as const).filter((k) => from[k] !== undefined && from[k] !== null);
    if (sources.length === 0) {
      errs.invalid(
        fp,
        "",
        "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` " +
          "or `fileKeyRef`",
      );
    } else if (e.value) {
      errs.invalid(fp, "", "may not be specified when `value` is not empty");
    } else if (sources.length > 1) {
      errs.invalid(fp, "", "may not have more than one field specified at a time");
    }
    if (from.fieldRef) {
      validateFieldSelector(from.fieldRef, `${fp}.fieldRef`, { allowed: ENV_FIELD_PATHS, errs });
    }
    if (from.resourceFieldRef) {
      const rp = `${fp}.resourceFieldRef`;
      validateResourceSelector(from.resourceFieldRef, rp, { volume: false, errs });
      const target = from.resourceFieldRef.containerName;
      if (target && !opts.containerNames.has(target)) {
        errs.notFound(`${rp}.containerName`, target);
      }
    }
    if (from.fileKeyRef) validateFileKeyRef(from.fileKeyRef, `${fp}.fileKeyRef`, opts);
    // PreventStaticPodAPIReferences: nothing here can read another API object.
    if (from.secretKeyRef) errs.forbidden(fp, "static pods may not reference secrets");
    if (from.configMapKeyRef) errs.forbidden(fp, "static pods may not reference configmaps");
  });
  if ((c.envFrom ?? []).length > 0) {
    errs.forbidden(`${path}.envFrom`, "static pods may not reference secrets or configmaps");
  }
}

/** A `fieldRef` at `path`; `allowed` are the plain (unsubscripted) field paths. */
export function validateFieldSelector(
  fs: V1ObjectFieldSelector,
  path: string,
  opts: { allowed: readonly string[]; errs: FieldErrors },
): void {
  const { errs } = opts;
  // Validation runs before defaulting, which sets an absent apiVersion to v1.
  if (fs.apiVersion && fs.apiVersion !== "v1") {
    errs.invalid(
      `${path}.fieldPath`,
      fs.fieldPath ?? "",
      `error converting fieldPath: unsupported pod version: ${fs.apiVersion}`,
    );
    return;
  }
  if (!fs.fieldPath) {
    errs.required(`${path}.fieldPath`);
    return;
  }
  const m = SUBSCRIPTED.exec(fs.fieldPath);
  if (m) {
    const key = m[1] === "metadata.annotations" ? m[2].toLowerCase() : m[2];
    const why = qualifiedName(key);
    if (why) errs.invalid(path, key, why);
  } else if (!opts.allowed.includes(fs.fieldPath)) {
    errs.unsupported(`${path}.fieldPath`, fs.fieldPath, opts.allowed);
  }
}

/** A `resourceFieldRef` at `path`; a volume's must name its container. */
export function validateResourceSelector(
  fs: V1ResourceFieldSelector,
  path: string,
  opts: { volume: boolean; errs: FieldErrors },
): void {
  const { errs } = opts;
  if (opts.volume && !fs.containerName) {
    errs.required(`${path}.containerName`);
  } else if (!fs.resource) {
    errs.required(`${path}.resource`);
  } else if (
    !(RESOURCE_FIELD_PATHS as readonly string[]).includes(fs.resource) &&
    !/^(requests|limits)\.hugepages-/.test(fs.resource)
  ) {
    errs.unsupported(`${path}.resource`, fs.resource, RESOURCE_FIELD_PATHS);
  }
  const divisor = fs.divisor === undefined || fs.divisor === null
    ? undefined
    : tryParseQuantity(fs.divisor);
  if (divisor === undefined || divisor === 0 || !fs.resource) return;
  const resource = fs.resource.replace(/^(limits|requests)\./, "");
  if (resource === "cpu" && !CPU_DIVISORS.includes(divisor)) {
    errs.invalid(
      `${path}.divisor`,
      fs.resource,
      "only divisor's values 1m and 1 are supported with the cpu resource",
    );
  } else if (resource !== "cpu" && !BYTE_DIVISORS.includes(divisor)) {
    errs.invalid(
      `${path}.divisor`,
      fs.resource,
      `only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the ${resource} resource`,
    );
  }
}

/** Upstream validateFileKeySelector and validateFileKeyRefVolumes (EnvFiles). */
function validateFileKeyRef(
  ref: { volumeName?: string; path?: string; key?: string },
  path: string,
  opts: { volumes: ReadonlyMap<string, V1Volume>; errs: FieldErrors },
): void {
  const { errs } = opts;
  if (!ref.key) errs.required(`${path}.key`);
  else {
    const why = envVarName(ref.key);
    if (why) errs.invalid(`${path}.key`, ref.key, why);
  }
  if (!ref.volumeName) errs.required(`${path}.volumeName`);
  else {
    const why = dns1123Label(ref.volumeName);
    if (why) errs.invalid(`${path}.volumeName`, ref.volumeName, why);
    const vol = opts.volumes.get(ref.volumeName);
    if (!vol) errs.notFound(`${path}.volumeName`, ref.volumeName);
    else if (!vol.emptyDir) {
      errs.invalid(
        `${path}.volumeName`,
        ref.volumeName,
        "referenced volume must be of type emptyDir",
      );
    }
  }
  if (!ref.path) errs.required(`${path}.path`);
  else if (ref.path.split("/").includes("..")) {
    errs.invalid(`${path}.path`, ref.path, "must not contain '..'");
  }
}
