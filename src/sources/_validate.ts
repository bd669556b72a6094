import {
  dns1123Label,
  dns1123Subdomain,
  FieldErrors,
  labelValue,
  type Obj,
  qualifiedName,
  Reader,
} from "./_fields.ts";
import { type ContainerContext, validateContainer } from "./_validate_container.ts";
import { tryParseQuantity } from "../util/quantity.ts";

const RESTART_POLICIES = ["Always", "OnFailure", "Never"] as const;
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"] as const;
const TOLERATION_OPERATORS = ["Exists", "Equal"] as const;
const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
const HOST_PATH_TYPES = [
  "",
  "DirectoryOrCreate",
  "Directory",
  "FileOrCreate",
  "File",
  "Socket",
  "CharDevice",
  "BlockDevice",
] as const;
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/**
 * Every volume source of the v1 API. A volume naming none of them is defaulted to emptyDir; the
 * API-object ones are refused because a static pod has no API server to resolve them
 * (upstream's PreventStaticPodAPIReferences).
 */
export const VOLUME_SOURCES: Record<string, string | null> = {
  hostPath: null,
  emptyDir: null,
  downwardAPI: null,
  projected: null,
  image: null,
  nfs: null,
  iscsi: null,
  fc: null,
  rbd: null,
  cephfs: null,
  cinder: null,
  flocker: null,
  flexVolume: null,
  gitRepo: null,
  gcePersistentDisk: null,
  awsElasticBlockStore: null,
  azureDisk: null,
  vsphereVolume: null,
  quobyte: null,
  photonPersistentDisk: null,
  portworxVolume: null,
  scaleIO: null,
  storageos: null,
  secret: "secrets (via secret volumes)",
  configMap: "configmaps (via configmap volumes)",
  persistentVolumeClaim: "persistentvolumeclaims",
  ephemeral: "persistentvolumeclaims (via ephemeral volumes)",
  csi: "csidrivers (via CSI volumes)",
  glusterfs: "endpoints (via glusterFS volumes)",
  azureFile: "secrets (via azureFile volumes)",
};

/**
 * Validates a decoded Pod object (before API defaults are applied, so empty enum values are
 * fine) and returns the field errors, empty when valid. Unknown fields are ignored, as the API
 * server's non-strict decoding does.
 */
export function validatePod(pod: Obj): string[] {
  const errs = new FieldErrors();
  const r = new Reader(errs);
  validateMeta(r.obj(pod, "metadata", "") ?? {}, r);
  const spec = r.obj(pod, "spec", "");
  if (!spec) errs.required("spec");
  else validateSpec(spec, r);
  return errs.list.map((e) => e.replace(/^\./, ""));
}

function validateMeta(meta: Obj, r: Reader) {
  const errs = r.errs;
  const name = r.str(meta, "name", "metadata");
  if (!name) errs.required("metadata.name");
  else {
    const why = dns1123Subdomain(name);
    if (why) errs.invalid("metadata.name", name, why);
  }
  const ns = r.str(meta, "namespace", "metadata");
  if (ns) {
    const why = dns1123Label(ns);
    if (why) errs.invalid("metadata.namespace", ns, why);
  }
  r.str(meta, "uid", "metadata");
  for (const [k, v] of Object.entries(r.stringMap(meta, "labels", "metadata") ?? {})) {
    const why = qualifiedName(k) ?? labelValue(v);
    if (why) errs.invalid(`metadata.labels`, `${k}=${v}`, why);
  }
  const annotations = r.stringMap(meta, "annotations", "metadata") ?? {};
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    const why = qualifiedName(k);
    if (why) errs.invalid("metadata.annotations", k, why);
    size += k.length + v.length;
  }
  if (size > MAX_ANNOTATIONS_BYTES) {
    errs.add("metadata.annotations", `Too long: must have at most ${MAX_ANNOTATIONS_BYTES} bytes`);
  }
}

function validateSpec(spec: Obj, r: Reader) {
  const errs = r.errs;
  const enumField = (key: string, allowed: readonly string[]) => {
    const v = r.str(spec, key, "spec");
    if (v && !allowed.includes(v)) errs.unsupported(`spec.${key}`, v, allowed);
    return v;
  };
  enumField("restartPolicy", RESTART_POLICIES);
  const dnsPolicy = enumField("dnsPolicy", DNS_POLICIES);
  const dnsConfig = r.obj(spec, "dnsConfig", "spec");
  if (dnsPolicy === "None" && !(dnsConfig && Array.isArray(dnsConfig.nameservers))) {
    errs.required("spec.dnsConfig");
  }
  const hostNetwork = r.bool(spec, "hostNetwork", "spec") ?? false;
  r.bool(spec, "hostPID", "spec");
  r.bool(spec, "hostIPC", "spec");
  r.bool(spec, "enableServiceLinks", "spec");
  r.obj(spec, "securityContext", "spec");
  r.stringMap(spec, "nodeSelector", "spec");
  r.int(spec, "priority", "spec");
  const grace = r.int(spec, "terminationGracePeriodSeconds", "spec");
  if (grace !== undefined && grace < 0) {
    errs.invalid("spec.terminationGracePeriodSeconds", grace, "must be greater than or equal to 0");
  }
  const deadline = r.int(spec, "activeDeadlineSeconds", "spec");
  if (deadline !== undefined && deadline < 1) {
    errs.invalid("spec.activeDeadlineSeconds", deadline, "must be between 1 and 2^63-1, inclusive");
  }
  for (const key of ["hostname", "subdomain"]) {
    const v = r.str(spec, key, "spec");
    const why = v ? dns1123Label(v) : undefined;
    if (why) errs.invalid(`spec.${key}`, v, why);
  }
  validateApiReferences(spec, r);
  validateTolerations(spec, r);

  const volumeNames = validateVolumes(spec, r);
  const ctx = { names: new Set<string>(), volumeNames, hostNetwork };
  const containers = r.objs(spec, "containers", "spec");
  if (containers.length === 0 && !errs.list.some((e) => e.startsWith("spec.containers:"))) {
    errs.required("spec.containers");
  }
  for (const [c, path] of containers) {
    validateContainer(c, path, { ...ctx, kind: "containers" } satisfies ContainerContext, errs);
  }
  for (const [c, path] of r.objs(spec, "initContainers", "spec")) {
    validateContainer(c, path, { ...ctx, kind: "initContainers" }, errs);
  }
  if (Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) {
    errs.forbidden("spec.ephemeralContainers", "cannot be set on create");
  }
}

function validateApiReferences(spec: Obj, r: Reader) {
  const sa = r.str(spec, "serviceAccountName", "spec") ?? r.str(spec, "serviceAccount", "spec");
  if (sa) {
    r.errs.forbidden("spec.serviceAccountName", "static pods may not reference serviceaccounts");
  }
  if (Array.isArray(spec.imagePullSecrets) && spec.imagePullSecrets.length > 0) {
    r.errs.forbidden("spec.imagePullSecrets", "static pods may not reference secrets");
  }
  if (Array.isArray(spec.resourceClaims) && spec.resourceClaims.length > 0) {
    r.errs.forbidden("spec.resourceClaims", "static pods may not reference resourceclaims");
  }
}

function validateTolerations(spec: Obj, r: Reader) {
  for (const [t, tp] of r.objs(spec, "tolerations", "spec")) {
    const op = r.str(t, "operator", tp);
    if (op && !(TOLERATION_OPERATORS as readonly string[]).includes(op)) {
      r.errs.unsupported(`${tp}.operator`, op, TOLERATION_OPERATORS);
    }
    const effect = r.str(t, "effect", tp);
    if (effect && !(TAINT_EFFECTS as readonly string[]).includes(effect)) {
      r.errs.unsupported(`${tp}.effect`, effect, TAINT_EFFECTS);
    }
    if (op === "Exists" && r.str(t, "value", tp)) {
      r.errs.invalid(`${tp}.operator`, op, "value must be empty when `operator` is 'Exists'");
    }
    r.str(t, "key", tp);
    r.int(t, "tolerationSeconds", tp);
  }
}

/** Validates spec.volumes and returns the declared volume names. */
function validateVolumes(spec: Obj, r: Reader): Set<string> {
  const errs = r.errs;
  const names = new Set<string>();
  for (const [v, vp] of r.objs(spec, "volumes", "spec")) {
    const name = r.str(v, "name", vp);
    if (!name) errs.required(`${vp}.name`);
    else {
      const why = dns1123Label(name);
      if (why) errs.invalid(`${vp}.name`, name, why);
      else if (names.has(name)) errs.duplicate(`${vp}.name`, name);
      names.add(name);
    }
    const sources = Object.keys(VOLUME_SOURCES).filter((k) => v[k] !== undefined && v[k] !== null);
    if (sources.length > 1) {
      errs.forbidden(vp, `may not specify more than 1 volume type (got ${sources.join(", ")})`);
    }
    for (const s of sources) {
      const ref = VOLUME_SOURCES[s];
      if (ref) errs.forbidden(`${vp}.${s}`, `static pods may not reference ${ref}`);
    }
    const hostPath = r.obj(v, "hostPath", vp);
    if (hostPath) {
      const hp = `${vp}.hostPath`;
      const path = r.str(hostPath, "path", hp);
      if (!path) errs.required(`${hp}.path`);
      else if (path.split("/").includes("..")) {
        errs.invalid(`${hp}.path`, path, "must not contain '..'");
      }
      const type = r.str(hostPath, "type", hp);
      if (type && !(HOST_PATH_TYPES as readonly string[]).includes(type)) {
        errs.unsupported(`${hp}.type`, type, HOST_PATH_TYPES);
      }
    }
    const emptyDir = r.obj(v, "emptyDir", vp);
    if (emptyDir) {
      const medium = r.str(emptyDir, "medium", `${vp}.emptyDir`);
      if (medium && medium !== "Memory" && !medium.startsWith("HugePages")) {
        errs.unsupported(`${vp}.emptyDir.medium`, medium, ["", "Memory", "HugePages"]);
      }
      const limit = emptyDir.sizeLimit;
      if (limit !== undefined && limit !== null && tryParseQuantity(limit) === undefined) {
        errs.invalid(`${vp}.emptyDir.sizeLimit`, limit, "must be a valid quantity");
      }
    }
    const projected = r.obj(v, "projected", vp);
    for (const [s, sp] of projected ? r.objs(projected, "sources", `${vp}.projected`) : []) {
      for (const key of Object.keys(s)) {
        if (key === "downwardAPI") continue;
        errs.forbidden(
          `${sp}.${key}`,
          `static pods may not reference ${key} (via projected volumes)`,
        );
      }
    }
  }
  return names;
}
