/**
 * The API server's defaulting for a v1 Pod (pkg/apis/core/v1/defaults.go), which the kubelet's
 * file and http sources get for free from the scheme's decoder. Runs on a validated pod, so the
 * shapes are known; it only fills absent or empty fields.
 */
import { isObj, type Obj } from "./_fields.ts";
import { VOLUME_SOURCES } from "./_validate.ts";

const PROBE_DEFAULTS = {
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
};
const FILE_MODE_0644 = 0o644;

/**
 * Built-in priority classes. Upstream the Priority admission plugin resolves
 * priorityClassName on the API server; a standalone kubelet has no API server, so the two
 * system classes are resolved here and everything else gets the global default, 0.
 */
const SYSTEM_PRIORITIES: Record<string, number> = {
  "system-node-critical": 2000001000,
  "system-cluster-critical": 2000000000,
};

export function applyApiDefaults(pod: Obj): void {
  const spec = pod.spec as Obj;
  setIfEmpty(spec, "dnsPolicy", "ClusterFirst");
  setIfEmpty(spec, "restartPolicy", "Always");
  setIfEmpty(spec, "terminationGracePeriodSeconds", 30);
  setIfEmpty(spec, "schedulerName", "default-scheduler");
  setIfEmpty(spec, "securityContext", {});
  setIfEmpty(spec, "enableServiceLinks", true);
  const className = typeof spec.priorityClassName === "string" ? spec.priorityClassName : "";
  setIfEmpty(spec, "priority", SYSTEM_PRIORITIES[className] ?? 0);
  setIfEmpty(spec, "preemptionPolicy", "PreemptLowerPriority");

  const hostNetwork = spec.hostNetwork === true;
  for (const key of ["containers", "initContainers"]) {
    for (const c of objects(spec[key])) defaultContainer(c, hostNetwork);
  }
  for (const v of objects(spec.volumes)) defaultVolume(v);
}

function defaultContainer(c: Obj, hostNetwork: boolean): void {
  setIfEmpty(c, "imagePullPolicy", defaultPullPolicy(String(c.image)));
  setIfEmpty(c, "terminationMessagePath", "/dev/termination-log");
  setIfEmpty(c, "terminationMessagePolicy", "File");
  for (const p of objects(c.ports)) {
    setIfEmpty(p, "protocol", "TCP");
    // Host networking shares the node's ports, so the container port is the host port.
    if (hostNetwork && !p.hostPort) p.hostPort = p.containerPort;
  }
  const resources = isObj(c.resources) ? c.resources : undefined;
  if (resources) {
    // The decoder turns quantities into resource.Quantity, which serializes as a string.
    for (const key of ["limits", "requests"]) {
      if (isObj(resources[key])) quantitiesToStrings(resources[key] as Obj);
    }
  }
  if (resources && isObj(resources.limits)) {
    // Requests default to limits per resource, so a limits-only container is Guaranteed.
    const requests = isObj(resources.requests) ? resources.requests : {};
    for (const [k, v] of Object.entries(resources.limits)) {
      if (!(k in requests)) requests[k] = v;
    }
    resources.requests = requests;
  }
  for (const e of objects(c.env)) {
    const from = isObj(e.valueFrom) ? e.valueFrom : undefined;
    if (from && isObj(from.fieldRef)) setIfEmpty(from.fieldRef, "apiVersion", "v1");
  }
  for (const key of ["livenessProbe", "readinessProbe", "startupProbe"]) {
    if (!isObj(c[key])) continue;
    const probe = c[key] as Obj;
    for (const [k, v] of Object.entries(PROBE_DEFAULTS)) setIfEmpty(probe, k, v);
    defaultHandler(probe);
  }
  if (isObj(c.lifecycle)) {
    for (const hook of ["postStart", "preStop"]) {
      if (isObj(c.lifecycle[hook])) defaultHandler(c.lifecycle[hook] as Obj);
    }
  }
}

function defaultHandler(h: Obj): void {
  if (!isObj(h.httpGet)) return;
  setIfEmpty(h.httpGet, "path", "/");
  setIfEmpty(h.httpGet, "scheme", "HTTP");
}

/**
 * "Always" when the image has the `latest` tag or no tag and no digest, else "IfNotPresent"
 * (SetDefaults_Container via parsers.ParseImageName).
 */
export function defaultPullPolicy(image: string): "Always" | "IfNotPresent" {
  const at = image.indexOf("@");
  const hasDigest = at >= 0;
  const name = hasDigest ? image.slice(0, at) : image;
  const lastSegment = name.slice(name.lastIndexOf("/") + 1);
  const colon = lastSegment.indexOf(":");
  const tag = colon >= 0 ? lastSegment.slice(colon + 1) : undefined;
  if (tag === "latest" || (tag === undefined && !hasDigest)) return "Always";
  return "IfNotPresent";
}

function defaultVolume(v: Obj): void {
  const hasSource = Object.keys(VOLUME_SOURCES).some((k) => v[k] !== undefined && v[k] !== null);
  if (!hasSource) v.emptyDir = {};
  if (isObj(v.hostPath)) setIfEmpty(v.hostPath, "type", "");
  if (isObj(v.emptyDir) && typeof v.emptyDir.sizeLimit === "number") {
    v.emptyDir.sizeLimit = String(v.emptyDir.sizeLimit);
  }
  for (const key of ["secret", "configMap", "downwardAPI", "projected"]) {
    if (isObj(v[key])) setIfEmpty(v[key] as Obj, "defaultMode", FILE_MODE_0644);
  }
  if (isObj(v.downwardAPI)) defaultDownwardItems(v.downwardAPI);
  if (isObj(v.projected)) {
    for (const s of objects(v.projected.sources)) {
      if (isObj(s.downwardAPI)) defaultDownwardItems(s.downwardAPI);
    }
  }
}

function defaultDownwardItems(d: Obj): void {
  for (const item of objects(d.items)) {
    if (isObj(item.fieldRef)) setIfEmpty(item.fieldRef, "apiVersion", "v1");
  }
}

function quantitiesToStrings(list: Obj): void {
  for (const [k, v] of Object.entries(list)) if (typeof v === "number") list[k] = String(v);
}

function setIfEmpty(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null || o[key] === "") o[key] = value;
}

function objects(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}
