/**
 * The CredentialProviderConfig (kubelet.config.k8s.io v1, v1beta1, v1alpha1) of
 * --image-credential-provider-config: one file, or every .json/.yaml/.yml file of a directory in
 * name order with provider names unique across them; checked as upstream checks it
 * (pkg/credentialprovider/plugin/config.go), with its messages.
 */
import { parse as parseYaml } from "yaml";
import { parseDuration } from "../../config/duration.ts";
import { DenoletError } from "../../util/errors.ts";
import { KUBERNETES_YAML } from "../../util/yaml_options.ts";
import { errorMessage } from "../../util/log.ts";
import { parseSchemelessUrl } from "../keyring.ts";

export const CONFIG_GROUP = "kubelet.config.k8s.io";
const CONFIG_VERSIONS = ["v1alpha1", "v1beta1", "v1"];
export const PLUGIN_API_VERSIONS = [
  "credentialprovider.kubelet.k8s.io/v1",
  "credentialprovider.kubelet.k8s.io/v1alpha1",
  "credentialprovider.kubelet.k8s.io/v1beta1",
];
export const CACHE_TYPES = ["ServiceAccount", "Token"] as const;

/** The config cannot be read or is invalid; the message is upstream's. */
export class ProviderConfigError extends DenoletError {}

export interface TokenAttributes {
  serviceAccountTokenAudience: string;
  cacheType: string;
  requireServiceAccount?: boolean;
  requiredServiceAccountAnnotationKeys: string[];
  optionalServiceAccountAnnotationKeys: string[];
}

export interface CredentialProvider {
  name: string;
  matchImages: string[];
  /** undefined when the file leaves it out (an error upstream). */
  defaultCacheDurationMs?: number;
  apiVersion: string;
  args: string[];
  env: { name: string; value: string }[];
  tokenAttributes?: TokenAttributes;
}

/** The providers of `path` (a file or a directory of files), merged. */
export async function readProviderConfig(path: string): Promise<CredentialProvider[]> {
  if (path === "") throw new ProviderConfigError("credential provider config path is empty");
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (err) {
    throw new ProviderConfigError(`unable to access path "${path}": ${errorMessage(err)}`, {
      cause: err,
    });
  }
  let files = [path];
  if (info.isDirectory) {
    files = [];
    for await (const e of Deno.readDir(path)) {
      if (!e.isDirectory && /\.(json|ya?ml)$/.test(e.name)) files.push(`${path}/${e.name}`);
    }
    files.sort();
    if (files.length === 0) {
      throw new ProviderConfigError(`no configuration files found in directory "${path}"`);
    }
  }
  const seen = new Set<string>();
  const out: CredentialProvider[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (err) {
      throw new ProviderConfigError(`unable to read file "${file}": ${errorMessage(err)}`, {
        cause: err,
      });
    }
    let providers: CredentialProvider[];
    try {
      providers = decode(text);
    } catch (err) {
      throw new ProviderConfigError(`error decoding config "${file}": ${errorMessage(err)}`, {
        cause: err,
      });
    }
    for (const p of providers) {
      if (seen.has(p.name)) {
        throw new ProviderConfigError(
          `duplicate provider name "${p.name}" found in configuration file(s)`,
        );
      }
      seen.add(p.name);
      out.push(p);
    }
  }
  return out;
}

function decode(text: string): CredentialProvider[] {
  const doc = parseYaml(text, KUBERNETES_YAML) as Record<string, unknown> | null;
  if (!isMap(doc)) throw new Error("expected a CredentialProviderConfig object");
  const [group, version] = String(doc.apiVersion ?? "").split("/");
  if (doc.kind !== "CredentialProviderConfig") {
    throw new Error(`failed to decode "${String(doc.kind ?? "")}" (wrong Kind)`);
  }
  if (group !== CONFIG_GROUP || !CONFIG_VERSIONS.includes(version)) {
    throw new Error(
      `failed to decode CredentialProviderConfig, unexpected Group: ${group ?? ""}`,
    );
  }
  strict(doc, ["apiVersion", "kind", "providers"], "");
  const list = doc.providers ?? [];
  if (!Array.isArray(list)) throw new Error("providers: expected a list");
  return list.map((raw, i) => provider(raw, `providers[${i}]`));
}

function provider(raw: unknown, at: string): CredentialProvider {
  if (!isMap(raw)) throw new Error(`${at}: expected an object`);
  strict(raw, [
    "name",
    "matchImages",
    "defaultCacheDuration",
    "apiVersion",
    "args",
    "env",
    "tokenAttributes",
  ], at);
  const dur = raw.defaultCacheDuration;
  let ta: TokenAttributes | undefined;
  if (isMap(raw.tokenAttributes)) {
    const t = raw.tokenAttributes;
    strict(t, [
      "serviceAccountTokenAudience",
      "cacheType",
      "requireServiceAccount",
      "requiredServiceAccountAnnotationKeys",
      "optionalServiceAccountAnnotationKeys",
    ], `${at}.tokenAttributes`);
    ta = {
      serviceAccountTokenAudience: str(t.serviceAccountTokenAudience),
      cacheType: str(t.cacheType),
      requireServiceAccount: typeof t.requireServiceAccount === "boolean"
        ? t.requireServiceAccount
        : undefined,
      requiredServiceAccountAnnotationKeys: strings(t.requiredServiceAccountAnnotationKeys),
      optionalServiceAccountAnnotationKeys: strings(t.optionalServiceAccountAnnotationKeys),
    };
  }
  return {
    name: str(raw.name),
    matchImages: strings(raw.matchImages),
    defaultCacheDurationMs: dur === undefined || dur === null ? undefined : parseDuration(str(dur)),
    apiVersion: str(raw.apiVersion),
    args: strings(raw.args),
    env: Array.isArray(raw.env)
      ? raw.env.map((e) => ({ name: str(e?.name), value: str(e?.value) }))
      : [],
    tokenAttributes: ta,
  };
}

/** Upstream's strict decoding: unknown fields are errors. */
function strict(obj: Record<string, unknown>, known: string[], at: string): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) throw new Error(`unknown field "${at ? `${at}.` : ""}${k}"`);
  }
}

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(str) : [];
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Upstream validateCredentialProviderConfig: every problem, as field errors. `saTokens`: the
 * KubeletServiceAccountTokenForCredentialProviders gate.
 */
export function validateProviders(providers: CredentialProvider[], saTokens: boolean): string[] {
  const errs: string[] = [];
  const invalid = (f: string, v: unknown, why: string) =>
    errs.push(`${f}: Invalid value: ${JSON.stringify(v)}: ${why}`);
  const required = (f: string, why = "") =>
    errs.push(`${f}: Required value${why ? `: ${why}` : ""}`);
  const forbidden = (f: string, why: string) => errs.push(`${f}: Forbidden: ${why}`);
  if (providers.length === 0) required("providers", "at least 1 item in plugins is required");
  const seen = new Set<string>();
  for (const p of providers) {
    if (p.name.includes("/")) invalid("providers.name", p.name, "provider name cannot contain '/'");
    if (p.name.includes(" ")) {
      invalid("providers.name", p.name, "provider name cannot contain spaces");
    }
    if (p.name === ".") invalid("providers.name", p.name, "provider name cannot be '.'");
    if (p.name === "..") invalid("providers.name", p.name, "provider name cannot be '..'");
    if (seen.has(p.name)) errs.push(`providers.name: Duplicate value: ${JSON.stringify(p.name)}`);
    seen.add(p.name);
    if (p.apiVersion === "") required("providers.apiVersion");
    else if (!PLUGIN_API_VERSIONS.includes(p.apiVersion)) {
      errs.push(
        `providers.apiVersion: Unsupported value: ${JSON.stringify(p.apiVersion)}: supported ` +
          `values: ${PLUGIN_API_VERSIONS.map((v) => JSON.stringify(v)).join(", ")}`,
      );
    }
    if (p.matchImages.length === 0) {
      required("providers.matchImages", "at least 1 item in matchImages is required");
    }
    for (const m of p.matchImages) {
      if (!parseSchemelessUrl(m)) {
        invalid("providers.matchImages", m, "match image is invalid");
      }
    }
    if (p.defaultCacheDurationMs === undefined) required("providers.defaultCacheDuration");
    else if (p.defaultCacheDurationMs < 0) {
      invalid(
        "providers.defaultCacheDuration",
        p.defaultCacheDurationMs,
        "must be greater than or equal to 0",
      );
    }
    const t = p.tokenAttributes;
    if (!t) continue;
    const f = "providers.tokenAttributes";
    if (!saTokens) {
      forbidden(
        f,
        "tokenAttributes is not supported when KubeletServiceAccountTokenForCredentialProviders feature gate is disabled",
      );
    }
    if (t.serviceAccountTokenAudience === "") required(`${f}.serviceAccountTokenAudience`);
    if (t.requireServiceAccount === undefined) required(`${f}.requireServiceAccount`);
    if (p.apiVersion !== "credentialprovider.kubelet.k8s.io/v1") {
      forbidden(
        f,
        "tokenAttributes is only supported for credentialprovider.kubelet.k8s.io/v1 API version",
      );
    }
    if (t.requireServiceAccount === false && t.requiredServiceAccountAnnotationKeys.length > 0) {
      forbidden(
        `${f}.requiredServiceAccountAnnotationKeys`,
        "requireServiceAccount cannot be false when requiredServiceAccountAnnotationKeys is set",
      );
    }
    const both = t.requiredServiceAccountAnnotationKeys.filter((k) =>
      t.optionalServiceAccountAnnotationKeys.includes(k)
    );
    if (both.length > 0) invalid(f, both, "annotation keys cannot be both required and optional");
    if (t.cacheType === "") {
      required(
        `${f}.cacheType`,
        "cacheType is required to be set when tokenAttributes is specified. Supported values are: ServiceAccount, Token",
      );
    } else if (!(CACHE_TYPES as readonly string[]).includes(t.cacheType)) {
      errs.push(
        `${f}.cacheType: Unsupported value: ${
          JSON.stringify(t.cacheType)
        }: supported values: "ServiceAccount", "Token"`,
      );
    }
  }
  return errs;
}
