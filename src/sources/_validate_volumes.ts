/**
 * spec.volumes (ValidateVolumes, validateVolumeSource and the per-source checks for the sources
 * a static pod may use), plus the path rules volume mounts share.
 */
import type {
  V1DownwardAPIVolumeFile,
  V1HostPathVolumeSource,
  V1Volume,
} from "@kubernetes/client-node";
import { tryParseQuantity } from "../util/quantity.ts";
import { dns1123Label, type FieldErrors } from "./_fields.ts";
import {
  validateFieldSelector,
  validateResourceSelector,
  VOLUME_FIELD_PATHS,
} from "./_validate_env.ts";

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

const HOST_PATH_TYPES = [
  "",
  "BlockDevice",
  "CharDevice",
  "Directory",
  "DirectoryOrCreate",
  "File",
  "FileOrCreate",
  "Socket",
] as const;
const MAX_FILE_MODE = 0o777;
const FILE_MODE_ERROR = "must be a number between 0 and 0777 (octal), both inclusive";

/** Validates spec.volumes and returns the valid ones by name (for volumeMounts). */
export function validateVolumes(volumes: V1Volume[], errs: FieldErrors): Map<string, V1Volume> {
  const byName = new Map<string, V1Volume>();
  const seen = new Set<string>();
  volumes.forEach((v, i) => {
    const vp = `spec.volumes[${i}]`;
    const before = errs.count;
    if (!v.name) errs.required(`${vp}.name`);
    else {
      const why = dns1123Label(v.name);
      if (why) errs.invalid(`${vp}.name`, v.name, why);
      else if (seen.has(v.name)) errs.duplicate(`${vp}.name`, v.name);
      seen.add(v.name);
    }
    validateSource(v, vp, errs);
    if (errs.count === before && v.name) byName.set(v.name, v);
  });
  return byName;
}

function validateSource(v: V1Volume, vp: string, errs: FieldErrors) {
  const fields = v as unknown as Record<string, unknown>;
  const sources = Object.keys(VOLUME_SOURCES).filter((k) =>
    fields[k] !== undefined && fields[k] !== null
  );
  for (const extra of sources.slice(1)) {
    errs.forbidden(`${vp}.${extra}`, "may not specify more than 1 volume type");
  }
  for (const s of sources) {
    const ref = VOLUME_SOURCES[s];
    if (ref) errs.forbidden(`${vp}.${s}`, `static pods may not reference ${ref}`);
  }
  if (v.hostPath) validateHostPath(v.hostPath, `${vp}.hostPath`, errs);
  if (v.emptyDir) {
    const medium = v.emptyDir.medium ?? "";
    if (medium !== "" && medium !== "Memory" && !medium.startsWith("HugePages")) {
      errs.unsupported(`${vp}.emptyDir.medium`, medium, ["", "Memory", "HugePages"]);
    }
    const limit = tryParseQuantity(v.emptyDir.sizeLimit);
    if (limit !== undefined && limit < 0) {
      errs.forbidden(
        `${vp}.emptyDir.sizeLimit`,
        "SizeLimit field must be a valid resource quantity",
      );
    }
  }
  if (v.downwardAPI) {
    fileMode(v.downwardAPI.defaultMode, `${vp}.downwardAPI.defaultMode`, errs);
    validateDownwardItems(v.downwardAPI.items ?? [], `${vp}.downwardAPI`, errs);
  }
  if (v.projected) {
    fileMode(v.projected.defaultMode, `${vp}.projected.defaultMode`, errs);
    (v.projected.sources ?? []).forEach((s, i) => {
      const sp = `${vp}.projected.sources[${i}]`;
      for (const [key, value] of Object.entries(s)) {
        if (key === "downwardAPI" || value === undefined || value === null) continue;
        errs.forbidden(
          `${sp}.${key}`,
          `static pods may not reference ${key} (via projected volumes)`,
        );
      }
      if (s.downwardAPI) {
        validateDownwardItems(s.downwardAPI.items ?? [], `${sp}.downwardAPI`, errs);
      }
    });
  }
  if (v.image && !v.image.reference) errs.required(`${vp}.image.reference`);
}

function validateHostPath(hp: V1HostPathVolumeSource, path: string, errs: FieldErrors) {
  if (!hp.path) {
    errs.required(`${path}.path`);
    return;
  }
  // Upstream leaves this to the node; the mount needs an absolute host path.
  if (!hp.path.startsWith("/")) errs.invalid(`${path}.path`, hp.path, "must be an absolute path");
  validateNoBacksteps(hp.path, `${path}.path`, errs);
  errs.oneOf(`${path}.type`, hp.type, HOST_PATH_TYPES);
}

function validateDownwardItems(items: V1DownwardAPIVolumeFile[], path: string, errs: FieldErrors) {
  items.forEach((item, i) => {
    const ip = `${path}.items[${i}]`;
    if (!item.path) errs.required(`${ip}.path`);
    else {
      validateLocalDescendingPath(item.path, `${ip}.path`, errs);
      if (item.path.startsWith("..")) {
        errs.invalid(`${ip}.path`, item.path, "must not start with '..'");
      }
    }
    fileMode(item.mode, `${ip}.mode`, errs);
    if (item.fieldRef) {
      validateFieldSelector(item.fieldRef, `${ip}.fieldRef`, { allowed: VOLUME_FIELD_PATHS, errs });
      if (item.resourceFieldRef) {
        errs.invalid(
          ip,
          "resource",
          "fieldRef and resourceFieldRef can not be specified simultaneously",
        );
      }
    } else if (item.resourceFieldRef) {
      validateResourceSelector(item.resourceFieldRef, `${ip}.resourceFieldRef`, {
        volume: true,
        errs,
      });
    } else {
      errs.required(ip, "one of fieldRef and resourceFieldRef is required");
    }
  });
}

function fileMode(mode: number | undefined, path: string, errs: FieldErrors) {
  if (mode !== undefined && mode !== null && (mode < 0 || mode > MAX_FILE_MODE)) {
    errs.invalid(path, mode, FILE_MODE_ERROR);
  }
}

/** A path inside a volume or the host: relative and without `..` elements. */
export function validateLocalDescendingPath(p: string, path: string, errs: FieldErrors): void {
  if (p.startsWith("/")) errs.invalid(path, p, "must be a relative path");
  validateNoBacksteps(p, path, errs);
}

export function validateNoBacksteps(p: string, path: string, errs: FieldErrors): void {
  if (p.split("/").includes("..")) errs.invalid(path, p, "must not contain '..'");
}
