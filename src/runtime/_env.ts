/**
 * Container environment: the env list the kubelet hands the runtime (kubelet_pods.go
 * makeEnvironmentVariables) and `$(VAR)` expansion of commands against it; the expansion rules
 * are in `util/expand_vars.ts`, the downward API's values in `_downward_api.ts`.
 */
import type { V1ConfigMap, V1Container, V1Pod, V1Secret } from "@kubernetes/client-node";
import type { KeyValue } from "../cri/types.ts";
import type { PodObjects } from "../objects/mod.ts";
import { ConfigError, DenoletError, isKind, NotFoundError } from "../util/errors.ts";
import type { Logger } from "../util/log.ts";
import { expandVars } from "../util/expand_vars.ts";
import { type DownwardContext, fieldRefValue, resourceFieldValue } from "./_downward_api.ts";
import { podServiceEnv, type ServiceLookup } from "./_service_env.ts";
import { envFileValue, readVolumeFile } from "./_env_file.ts";
import { posix } from "node:path";

// The runtime's importers and tests reach the expansion through here.
export { expandVars };

/** ConfigMaps and Secrets for env `valueFrom` and `envFrom` (the API mode's object caches). */
export type EnvObjects = Pick<PodObjects, "configMap" | "secret">;

/** Pod facts env reads beyond the downward API's, and where ConfigMaps and Secrets come from. */
export interface EnvContext extends DownwardContext {
  /**
   * ConfigMaps and Secrets (API mode). Without them, references to either fail with a clear
   * error unless optional.
   */
  objects?: EnvObjects;
  /** The cluster's Services, for service-link variables (API mode); standalone, none. */
  services?: ServiceLookup;
  /** The pod's mounted volumes, for `fileKeyRef` (env files an init container wrote). */
  volumes?: ReadonlyMap<string, { hostPath: string }>;
  /** Warnings (envFrom keys skipped); default none. */
  logger?: Logger;
  signal?: AbortSignal;
}

/**
 * A reference the env cannot satisfy: upstream's CreateContainerConfigError message as is
 * (`couldn't find key k in ConfigMap ns/name`), with the field it came from for logs.
 */
export class EnvSourceError extends DenoletError {
  constructor(readonly field: string, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * Upstream's relaxed environment variable names (RelaxedEnvironmentVariableValidation, GA):
 * printable ASCII without `=`. An envFrom key outside that would break the runtime's
 * `NAME=value` list.
 */
function isEnvVarName(name: string): boolean {
  return /^[\x20-\x3c\x3e-\x7e]+$/.test(name);
}

/** A Secret value as text (the API sends them base64-encoded). */
function secretText(value: string): string {
  const bin = atob(value);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

interface ObjectRef {
  optional: boolean;
  field: string;
  /** Names the reference in the standalone error, e.g. `configMap "x" key "k"`. */
  what: string;
}

/** The ConfigMaps and Secrets one container's env reads, each fetched once. */
class EnvObjectReader {
  readonly #found = new Map<string, V1ConfigMap | V1Secret>();

  constructor(readonly pod: V1Pod, readonly ctx: EnvContext) {}

  /** The ConfigMap, or undefined when it does not exist and the reference is optional. */
  configMap(name: string, ref: ObjectRef): Promise<V1ConfigMap | undefined> {
    return this.#get("configMap", name, ref);
  }

  secret(name: string, ref: ObjectRef): Promise<V1Secret | undefined> {
    return this.#get("secret", name, ref) as Promise<V1Secret | undefined>;
  }

  async #get(
    kind: "configMap" | "secret",
    name: string,
    ref: ObjectRef,
  ): Promise<V1ConfigMap | V1Secret | undefined> {
    const cached = this.#found.get(`${kind}/${name}`);
    if (cached) return cached;
    const objects = this.ctx.objects;
    if (!objects) {
      if (ref.optional) return undefined;
      throw new ConfigError(ref.field, `${ref.what} cannot be read: no API server is configured`);
    }
    try {
      const obj = await objects[kind](this.pod, name, { signal: this.ctx.signal });
      this.#found.set(`${kind}/${name}`, obj);
      return obj;
    } catch (err) {
      // A later reference to the same missing object that is not optional must still fail.
      if (ref.optional && isKind(err, NotFoundError)) return undefined;
      throw err;
    }
  }
}

/** envFrom's variables, prefixed; keys that cannot be variable names are left out and logged. */
async function envFromValues(
  reader: EnvObjectReader,
  from: NonNullable<V1Container["envFrom"]>[number],
  ctx: { field: string; container: string; logger?: Logger },
): Promise<[string, string][]> {
  const ns = reader.pod.metadata?.namespace ?? "";
  let values: [string, string][] = [];
  let what = "";
  if (from.configMapRef) {
    const name = from.configMapRef.name ?? "";
    what = `configMap ${ns}/${name}`;
    const cm = await reader.configMap(name, {
      optional: from.configMapRef.optional === true,
      field: ctx.field,
      what: `configMap ${JSON.stringify(name)}`,
    });
    values = Object.entries(cm?.data ?? {});
  } else if (from.secretRef) {
    const name = from.secretRef.name ?? "";
    what = `secret ${ns}/${name}`;
    const secret = await reader.secret(name, {
      optional: from.secretRef.optional === true,
      field: ctx.field,
      what: `secret ${JSON.stringify(name)}`,
    });
    values = Object.entries(secret?.data ?? {}).map(([k, v]) => [k, secretText(v)]);
  }
  const out: [string, string][] = [];
  const invalid: string[] = [];
  for (const [k, v] of values) {
    const name = (from.prefix ?? "") + k;
    if (isEnvVarName(name)) out.push([name, v]);
    else invalid.push(name);
  }
  if (invalid.length) {
    ctx.logger?.warn("Skipped envFrom keys that are not valid variable names", {
      reason: "InvalidEnvironmentVariableNames",
      container: ctx.container,
      message: `Keys [${invalid.sort().join(", ")}] from the EnvFrom ${what} were skipped ` +
        "since they are considered invalid environment variable names.",
    });
  }
  return out;
}

/** A `configMapKeyRef` or `secretKeyRef` value; undefined when optional and missing. */
async function keyRefValue(
  reader: EnvObjectReader,
  src: NonNullable<NonNullable<V1Container["env"]>[number]["valueFrom"]>,
  field: string,
): Promise<string | undefined> {
  const ns = reader.pod.metadata?.namespace ?? "";
  const isSecret = !src.configMapKeyRef;
  const { name = "", key, optional = false } = (src.configMapKeyRef ?? src.secretKeyRef)!;
  const ref = {
    optional,
    field,
    what: `${isSecret ? "secret" : "configMap"} ${JSON.stringify(name)} key ${JSON.stringify(key)}`,
  };
  const obj = isSecret ? await reader.secret(name, ref) : await reader.configMap(name, ref);
  if (!obj) return undefined;
  const raw = obj.data?.[key];
  if (raw !== undefined) return isSecret ? secretText(raw) : raw;
  if (optional) return undefined;
  throw new EnvSourceError(
    field,
    `couldn't find key ${key} in ${isSecret ? "Secret" : "ConfigMap"} ${ns}/${name}`,
  );
}

/**
 * The container's environment in declaration order (envFrom first, then env), each `value`
 * expanded against the variables before it; a later duplicate overrides the earlier value.
 * ConfigMap and Secret references read `ctx.objects`: a missing object fails with upstream's
 * message (`configmap "x" not found`, a NotFoundError) and a missing key with
 * `couldn't find key k in ConfigMap ns/x` (an EnvSourceError), unless the reference is optional,
 * which skips it. envFrom keys that cannot be variable names are skipped with a warning.
 * Without `ctx.objects` (standalone) such references throw ConfigError unless optional.
 * With `ctx.services`, the service-link variables follow the pod's own (which win over them)
 * and `$(VAR)` sees them; ServicesNotSyncedError before the Services were first listed.
 */
export async function buildEnv(
  pod: V1Pod,
  container: V1Container,
  ctx: EnvContext,
): Promise<KeyValue[]> {
  const env = new Map<string, string>();
  const serviceEnv = podServiceEnv(pod, ctx.services);
  const where = `containers[${container.name}]`;
  const reader = new EnvObjectReader(pod, ctx);
  for (const [i, from] of (container.envFrom ?? []).entries()) {
    const pairs = await envFromValues(reader, from, {
      field: `${where}.envFrom[${i}]`,
      container: container.name,
      logger: ctx.logger,
    });
    for (const [k, v] of pairs) env.set(k, v);
  }
  const lookup = (name: string) => env.get(name) ?? serviceEnv.get(name);
  for (const v of container.env ?? []) {
    const field = `${where}.env[${v.name}]`;
    let value = v.value ?? "";
    if (value !== "") {
      value = expandVars(value, lookup);
    } else if (v.valueFrom) {
      const src = v.valueFrom;
      if (src.fieldRef) {
        value = fieldRefValue(pod, src.fieldRef.fieldPath, ctx, field);
      } else if (src.resourceFieldRef) {
        value = resourceFieldValue(pod, container, src.resourceFieldRef, { ...ctx, field });
      } else if (src.configMapKeyRef || src.secretKeyRef) {
        const found = await keyRefValue(reader, src, field);
        if (found === undefined) continue;
        value = found;
      } else if (src.fileKeyRef) {
        const found = await fileKeyValue(src.fileKeyRef, {
          volumes: ctx.volumes,
          field,
          logger: ctx.logger,
        });
        if (found === undefined) continue;
        value = found;
      } else {
        throw new ConfigError(field, "unsupported valueFrom source");
      }
    }
    env.set(v.name, value);
  }
  for (const [k, v] of serviceEnv) if (!env.has(k)) env.set(k, v);
  return [...env].map(([key, value]) => ({ key, value }));
}

/** Expands `$(VAR)` in command or args against the final container env. */
export function expandCommand(args: string[] | undefined, env: KeyValue[]): string[] | undefined {
  if (!args) return undefined;
  const map = new Map(env.map((kv) => [kv.key, kv.value]));
  return args.map((a) => expandVars(a, (n) => map.get(n)));
}

/**
 * A `fileKeyRef` value, with upstream's messages (kubelet_pods.go); undefined when the key is
 * missing or empty and the reference optional.
 */
async function fileKeyValue(
  ref: { volumeName: string; path: string; key: string; optional?: boolean },
  ctx: { volumes?: ReadonlyMap<string, { hostPath: string }>; field: string; logger?: Logger },
): Promise<string | undefined> {
  const vol = ctx.volumes?.get(ref.volumeName);
  if (!vol) {
    throw new EnvSourceError(
      ctx.field,
      `cannot find the volume ${JSON.stringify(ref.volumeName)} referenced by FileKeyRef`,
    );
  }
  let value: string | undefined;
  try {
    value = envFileValue(await readVolumeFile(vol.hostPath, ref.path), ref.key);
  } catch (err) {
    // As upstream: the reason goes to the log, the status says only that it failed.
    ctx.logger?.warn("Failed to parse env file", { field: ctx.field, path: ref.path, err });
    throw new EnvSourceError(ctx.field, "couldn't parse env file", { cause: err });
  }
  if (!value) {
    if (ref.optional) return undefined;
    throw new EnvSourceError(
      ctx.field,
      `environment variable key ${JSON.stringify(ref.key)} not found in file ` +
        JSON.stringify(posix.join(vol.hostPath, ref.path)),
    );
  }
  return value;
}
