/**
 * Turning manifest text into the static pods the kubelet runs: decode (YAML or JSON), validate,
 * apply the API server's defaults, then the static-pod treatment.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { InvalidManifestError } from "../util/errors.ts";
import { dns1123Subdomain, isObj, type Obj } from "./_fields.ts";
import { applyApiDefaults } from "./_defaults.ts";
import { applyStaticPodTreatment, type StaticPodOrigin } from "./_static_pod.ts";
import { validatePod } from "./_validate.ts";

/** Upstream's maxConfigLength: manifests larger than this are refused. */
export const MAX_MANIFEST_BYTES = 10 * 1024 * 1024;

/**
 * Decodes one Pod manifest (YAML or JSON; JSON is YAML) and returns the static pod the kubelet
 * runs from it. Throws `InvalidManifestError` naming `opts.path` and the offending field when
 * it does not parse, is not a `v1` `Pod`, or does not validate. Pure: the same input gives the
 * same pod, including its UID.
 */
export function staticPodFromManifest(raw: string, opts: StaticPodOrigin): V1Pod {
  const doc = parseManifest(raw, opts.path);
  if (doc === undefined) throw new InvalidManifestError(opts.path, "manifest is empty");
  checkKind(doc, "Pod", opts.path);
  return podFromObject(doc, opts, "");
}

/**
 * Decodes a manifest URL's body: a single Pod, a `v1` `PodList`, or nothing (an empty list).
 * A PodList is all-or-nothing, as upstream: one invalid item rejects the whole body.
 */
export function staticPodsFromBody(raw: string, opts: StaticPodOrigin): V1Pod[] {
  const doc = parseManifest(raw, opts.path);
  if (doc === undefined) return [];
  if (doc.kind === "PodList") {
    checkKind(doc, "PodList", opts.path);
    if (doc.items !== undefined && doc.items !== null && !Array.isArray(doc.items)) {
      throw new InvalidManifestError(opts.path, "items: must be a list");
    }
    const items = (doc.items ?? []) as unknown[];
    return items.map((item, i) => {
      if (!isObj(item)) throw new InvalidManifestError(opts.path, `items[${i}]: must be an object`);
      return podFromObject(item, opts, `items[${i}].`);
    });
  }
  checkKind(doc, "Pod", opts.path);
  return [podFromObject(doc, opts, "")];
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
 * Parses YAML 1.1, as Kubernetes' YAML library does, so `defaultMode: 0644` is octal. A file
 * with several documents is refused instead of silently using the first one. Returns undefined
 * when there is no document at all.
 */
function parseManifest(raw: string, path: string): Obj | undefined {
  let docs;
  try {
    docs = parseAllDocuments(raw, { version: "1.1", prettyErrors: false });
  } catch (cause) {
    throw new InvalidManifestError(path, "cannot parse as YAML or JSON", { cause });
  }
  if (!Array.isArray(docs)) docs = [docs];
  const present = docs.filter((d) => d.errors.length > 0 || d.contents !== null);
  if (present.length === 0) return undefined;
  if (present.length > 1) {
    throw new InvalidManifestError(path, `holds ${present.length} documents; expected one`);
  }
  const doc = present[0];
  if (doc.errors.length > 0) {
    throw new InvalidManifestError(path, `cannot parse as YAML or JSON: ${doc.errors[0].message}`);
  }
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (!isObj(value)) throw new InvalidManifestError(path, "must be a YAML or JSON object");
  return value;
}

/** The reason without the path prefix, for a problem that carries the path separately. */
export function reasonOf(e: InvalidManifestError): string {
  const prefix = `${e.path}: `;
  return e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}
