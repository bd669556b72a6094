/**
 * Turning manifest text into the static pods the kubelet runs: decode (YAML or JSON), validate,
 * apply the API server's defaults, then the static-pod treatment.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { type Document, isScalar, parseAllDocuments } from "yaml";
import { KUBERNETES_YAML } from "../util/yaml_options.ts";
import { InvalidManifestError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { dns1123Subdomain, isObj, type Obj } from "./_fields.ts";
import { applyApiDefaults } from "./_defaults.ts";
import { applyStaticPodTreatment, type StaticPodOrigin } from "./_static_pod.ts";
import { validatePod } from "./_validate.ts";

/** Upstream's maxConfigLength: manifests larger than this are refused. */
export const MAX_MANIFEST_BYTES = 10 * 1024 * 1024;

/**
 * Deepest nesting of objects and lists a manifest may have. A real Pod nests about a dozen
 * levels; the limit keeps hostile nesting away from the recursive code that handles pods later
 * (cloning, hashing, serializing), whatever stack is left at that point.
 */
export const MAX_MANIFEST_DEPTH = 100;

/** YAML alias expansions allowed per document (an "alias bomb" expands exponentially). */
const MAX_ALIAS_COUNT = 100;

/**
 * Manifest bytes as text. Throws `InvalidManifestError` for bytes that are not UTF-8 (as
 * upstream, which decodes only UTF-8), instead of silently replacing them. A BOM is dropped.
 */
export function manifestText(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new InvalidManifestError(path, "is not valid UTF-8 text", { cause });
  }
}

/**
 * Decodes one Pod manifest (YAML or JSON; JSON is YAML) and returns the static pod the kubelet
 * runs from it. Throws `InvalidManifestError` naming `opts.path` and the offending field when
 * it does not parse, is not a `v1` `Pod`, or does not validate. Pure: the same input gives the
 * same pod, including its UID.
 */
export function staticPodFromManifest(raw: string, opts: StaticPodOrigin): V1Pod {
  return asManifestProblem(opts.path, () => {
    const doc = parseManifest(raw, opts.path);
    if (doc === undefined) throw new InvalidManifestError(opts.path, "manifest is empty");
    checkKind(doc, "Pod", opts.path);
    return podFromObject(doc, opts, "");
  });
}

/**
 * Decodes a manifest URL's body: a single Pod, a `v1` `PodList`, or nothing (an empty list).
 * A PodList is all-or-nothing, as upstream: one invalid item rejects the whole body.
 */
export function staticPodsFromBody(raw: string, opts: StaticPodOrigin): V1Pod[] {
  return asManifestProblem(opts.path, () => {
    const doc = parseManifest(raw, opts.path);
    if (doc === undefined) return [];
    if (doc.kind === "PodList") {
      checkKind(doc, "PodList", opts.path);
      if (doc.items !== undefined && doc.items !== null && !Array.isArray(doc.items)) {
        throw new InvalidManifestError(opts.path, "items: must be a list");
      }
      const items = (doc.items ?? []) as unknown[];
      return items.map((item, i) => {
        if (!isObj(item)) {
          throw new InvalidManifestError(opts.path, `items[${i}]: must be an object`);
        }
        return podFromObject(item, opts, `items[${i}].`);
      });
    }
    checkKind(doc, "Pod", opts.path);
    return [podFromObject(doc, opts, "")];
  });
}

/**
 * Runs one decode so that whatever goes wrong in it is a problem with this manifest: hostile
 * input must end as a per-file report, never as an error that escapes to the source's loop.
 */
function asManifestProblem<T>(path: string, decode: () => T): T {
  try {
    return decode();
  } catch (e) {
    if (e instanceof InvalidManifestError) throw e;
    const reason = e instanceof RangeError
      ? `cannot be decoded (${errorMessage(e)}); is it nested too deeply?`
      : `cannot be decoded: ${errorMessage(e)}`;
    throw new InvalidManifestError(path, reason, { cause: e });
  }
}

function podFromObject(obj: Obj, origin: StaticPodOrigin, prefix: string): V1Pod {
  // Work on a copy: defaulting and the static-pod treatment mutate.
  const pod = structuredClone(obj);
  const errors = validatePod(pod);
  if (errors.length > 0) {
    const list = errors.map((e) => prefix + e).join("; ");
    throw new InvalidManifestError(origin.path, `invalid pod: ${list}`);
  }
  applyApiDefaults(pod);
  applyStaticPodTreatment(pod, origin);
  const fullName = (pod.metadata as Obj).name as string;
  const why = dns1123Subdomain(fullName);
  if (why) {
    throw new InvalidManifestError(
      origin.path,
      `invalid pod: ${prefix}metadata.name: Invalid value: ${JSON.stringify(fullName)}: ${why}` +
        ` (the name with the node name appended)`,
    );
  }
  return pod as V1Pod;
}

function checkKind(doc: Obj, kind: string, path: string): void {
  if (doc.kind !== kind) {
    const got = doc.kind === undefined ? "kind is missing" : `kind is ${JSON.stringify(doc.kind)}`;
    throw new InvalidManifestError(path, `expected kind "${kind}": ${got}`);
  }
  if (doc.apiVersion !== "v1") {
    const got = doc.apiVersion === undefined
      ? "apiVersion is missing"
      : `apiVersion is ${JSON.stringify(doc.apiVersion)}`;
    throw new InvalidManifestError(path, `expected apiVersion "v1": ${got}`);
  }
}

/**
 * Parses a manifest; returns undefined when there is no document at all. Text that starts with
 * "{" is read as JSON first, as upstream does (and far cheaper than YAML for a large body); if it
 * is not JSON it is read as YAML. YAML is 1.1, as Kubernetes' YAML library reads it, so
 * `defaultMode: 0644` is octal, and a repeated key keeps its last value, as there. A file with
 * several documents is refused instead of silently using the first one.
 */
function parseManifest(raw: string, path: string): Obj | undefined {
  const value = /^\s*\{/.test(raw) ? parseJson(raw) : undefined;
  const doc = value === undefined ? parseYaml(raw, path) : value;
  if (doc === undefined) return undefined;
  if (!isObj(doc)) throw new InvalidManifestError(path, "must be a YAML or JSON object");
  if (nestedDeeperThan(doc, MAX_MANIFEST_DEPTH)) {
    throw new InvalidManifestError(path, `nested more than ${MAX_MANIFEST_DEPTH} levels deep`);
  }
  return doc;
}

/** The JSON value, or undefined when `raw` is not JSON (it may still be flow-style YAML). */
function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}

function parseYaml(raw: string, path: string): unknown {
  // uniqueKeys off: upstream keeps the last of repeated keys, and the check is quadratic in
  // the number of keys of a map (minutes for a hostile 10 MB map).
  let docs = parseAllDocuments(raw, { ...KUBERNETES_YAML, prettyErrors: false, uniqueKeys: false });
  if (!Array.isArray(docs)) docs = [docs];
  const present = docs.filter((d) => !isEmptyDocument(d));
  if (present.length === 0) return undefined;
  if (present.length > 1) {
    throw new InvalidManifestError(path, `holds ${present.length} documents; expected one`);
  }
  const doc = present[0];
  if (doc.errors.length > 0) {
    // The parser turns a stack overflow on deep nesting into this error code.
    if (doc.errors.some((e) => e.code === "RESOURCE_EXHAUSTION")) {
      throw new InvalidManifestError(path, `nested more than ${MAX_MANIFEST_DEPTH} levels deep`);
    }
    throw new InvalidManifestError(path, `cannot parse as YAML or JSON: ${doc.errors[0].message}`);
  }
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (cause) {
    // The yaml package signals too much alias expansion with a ReferenceError.
    if (cause instanceof ReferenceError) {
      throw new InvalidManifestError(path, "document contains excessive aliasing", { cause });
    }
    throw cause;
  }
}

/**
 * A document with nothing in it, as after a trailing `---` (common in Helm, kustomize and
 * `kubectl -o yaml` output): the parser gives it a null scalar with no source text. An explicit
 * `null`, `~`, tag or anchor is still a document.
 */
function isEmptyDocument(doc: Document): boolean {
  if (doc.errors.length > 0) return false;
  const c = doc.contents;
  if (c === null) return true;
  return isScalar(c) && c.value === null && c.source === "" && !c.tag && !c.anchor;
}

/** Walks without recursion, so the check itself cannot run out of stack. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    // A YAML alias may point at its own ancestor: a cycle also ends here, as "too deep".
    if (depth > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The reason without the path prefix, for a problem that carries the path separately. */
export function reasonOf(e: InvalidManifestError): string {
  const prefix = `${e.path}: `;
  return e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}
