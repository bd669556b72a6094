import {
  dns1123Label,
  envVarName,
  type FieldErrors,
  type Obj,
  portName,
  Reader,
} from "./_fields.ts";
import { tryParseQuantity } from "../util/quantity.ts";

export const PULL_POLICIES = ["Always", "IfNotPresent", "Never"] as const;
const PROTOCOLS = ["TCP", "UDP", "SCTP"] as const;
const MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"] as const;
const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"] as const;

export interface ContainerContext {
  kind: "containers" | "initContainers";
  /** Container names seen so far across containers and init containers (names are pod-unique). */
  names: Set<string>;
  volumeNames: ReadonlySet<string>;
  hostNetwork: boolean;
}

/** Validates one container the way ValidatePodCreate does for the fields denolet acts on. */
export function validateContainer(c: Obj, path: string, ctx: ContainerContext, errs: FieldErrors) {
  const r = new Reader(errs);
  const name = r.str(c, "name", path);
  if (!name) errs.required(`${path}.name`);
  else {
    const why = dns1123Label(name);
    if (why) errs.invalid(`${path}.name`, name, why);
    else if (ctx.names.has(name)) errs.duplicate(`${path}.name`, name);
    ctx.names.add(name);
  }
  const image = r.str(c, "image", path);
  if (!image || image.trim() === "") errs.required(`${path}.image`);
  else if (image !== image.trim()) {
    errs.invalid(`${path}.image`, image, "must not have leading or trailing whitespace");
  }
  const pull = r.str(c, "imagePullPolicy", path);
  if (pull && !(PULL_POLICIES as readonly string[]).includes(pull)) {
    errs.unsupported(`${path}.imagePullPolicy`, pull, PULL_POLICIES);
  }
  const tmp = r.str(c, "terminationMessagePolicy", path);
  if (tmp && !(MESSAGE_POLICIES as readonly string[]).includes(tmp)) {
    errs.unsupported(`${path}.terminationMessagePolicy`, tmp, MESSAGE_POLICIES);
  }
  r.strings(c, "command", path);
  r.strings(c, "args", path);
  r.str(c, "workingDir", path);

  const restart = r.str(c, "restartPolicy", path);
  const sidecar = ctx.kind === "initContainers" && restart === "Always";
  if (restart !== undefined && ctx.kind === "containers") {
    errs.forbidden(`${path}.restartPolicy`, "may not be set for non-init containers");
  } else if (restart !== undefined && restart !== "Always") {
    errs.unsupported(`${path}.restartPolicy`, restart, ["Always"]);
  }
  for (const probe of PROBES) {
    const p = r.obj(c, probe, path);
    if (!p) continue;
    if (ctx.kind === "initContainers" && !sidecar) {
      errs.forbidden(
        `${path}.${probe}`,
        "may not be set for init containers without restartPolicy=Always",
      );
    }
    validateProbe(p, `${path}.${probe}`, r);
  }

  validatePorts(c, path, ctx, r);
  validateEnv(c, path, r);
  validateMounts(c, path, ctx, r);
  validateResources(c, path, r);
}

function validatePorts(c: Obj, path: string, ctx: ContainerContext, r: Reader) {
  const errs = r.errs;
  const names = new Set<string>();
  for (const [p, pp] of r.objs(c, "ports", path)) {
    const port = r.int(p, "containerPort", pp);
    if (port === undefined) {
      if (p.containerPort === undefined || p.containerPort === null) {
        errs.required(`${pp}.containerPort`);
      }
    } else if (port < 1 || port > 65535) {
      errs.invalid(`${pp}.containerPort`, port, "must be between 1 and 65535, inclusive");
    }
    const hostPort = r.int(p, "hostPort", pp);
    if (hostPort !== undefined && (hostPort < 0 || hostPort > 65535)) {
      errs.invalid(`${pp}.hostPort`, hostPort, "must be between 0 and 65535, inclusive");
    } else if (ctx.hostNetwork && hostPort && port !== undefined && hostPort !== port) {
      errs.invalid(
        `${pp}.hostPort`,
        hostPort,
        "must match `containerPort` when `hostNetwork` is true",
      );
    }
    const protocol = r.str(p, "protocol", pp);
    if (protocol && !(PROTOCOLS as readonly string[]).includes(protocol)) {
      errs.unsupported(`${pp}.protocol`, protocol, PROTOCOLS);
    }
    const name = r.str(p, "name", pp);
    if (name) {
      const why = portName(name);
      if (why) errs.invalid(`${pp}.name`, name, why);
      else if (names.has(name)) errs.duplicate(`${pp}.name`, name);
      names.add(name);
    }
    r.str(p, "hostIP", pp);
  }
}

function validateEnv(c: Obj, path: string, r: Reader) {
  const errs = r.errs;
  for (const [e, ep] of r.objs(c, "env", path)) {
    const name = r.str(e, "name", ep);
    if (!name) errs.required(`${ep}.name`);
    else {
      const why = envVarName(name);
      if (why) errs.invalid(`${ep}.name`, name, why);
    }
    r.str(e, "value", ep);
    const from = r.obj(e, "valueFrom", ep);
    if (from?.secretKeyRef) {
      errs.forbidden(`${ep}.valueFrom`, "static pods may not reference secrets");
    }
    if (from?.configMapKeyRef) {
      errs.forbidden(`${ep}.valueFrom`, "static pods may not reference configmaps");
    }
  }
  if (Array.isArray(c.envFrom) && c.envFrom.length > 0) {
    errs.forbidden(`${path}.envFrom`, "static pods may not reference secrets or configmaps");
  }
}

function validateMounts(c: Obj, path: string, ctx: ContainerContext, r: Reader) {
  const errs = r.errs;
  const mountPaths = new Set<string>();
  for (const [m, mp] of r.objs(c, "volumeMounts", path)) {
    const name = r.str(m, "name", mp);
    if (!name) errs.required(`${mp}.name`);
    else if (!ctx.volumeNames.has(name)) {
      errs.add(`${mp}.name`, `Not found: ${JSON.stringify(name)}`);
    }
    const mountPath = r.str(m, "mountPath", mp);
    if (!mountPath) errs.required(`${mp}.mountPath`);
    else if (mountPaths.has(mountPath)) {
      errs.invalid(`${mp}.mountPath`, mountPath, "must be unique");
    } else mountPaths.add(mountPath);
    r.bool(m, "readOnly", mp);
    const sub = r.str(m, "subPath", mp);
    if (sub && (sub.startsWith("/") || sub.split("/").includes(".."))) {
      errs.invalid(`${mp}.subPath`, sub, "must be a relative path without '..'");
    }
  }
}

function validateResources(c: Obj, path: string, r: Reader) {
  const errs = r.errs;
  const res = r.obj(c, "resources", path);
  if (!res) return;
  const rp = `${path}.resources`;
  const limits = r.obj(res, "limits", rp) ?? {};
  const requests = r.obj(res, "requests", rp) ?? {};
  const parsed = (m: Obj, kind: string) => {
    const out = new Map<string, number>();
    for (const [k, v] of Object.entries(m)) {
      const q = tryParseQuantity(v);
      if (q === undefined) errs.invalid(`${rp}.${kind}[${k}]`, v, "must be a valid quantity");
      else if (q < 0) errs.invalid(`${rp}.${kind}[${k}]`, v, "must be greater than or equal to 0");
      else out.set(k, q);
    }
    return out;
  };
  const lim = parsed(limits, "limits");
  const req = parsed(requests, "requests");
  for (const [k, v] of req) {
    const l = lim.get(k);
    if (l !== undefined && v > l) {
      errs.invalid(`${rp}.requests[${k}]`, requests[k], `must be less than or equal to ${k} limit`);
    }
  }
}

function validateProbe(p: Obj, path: string, r: Reader) {
  const mins: Record<string, number> = {
    initialDelaySeconds: 0,
    timeoutSeconds: 1,
    periodSeconds: 1,
    successThreshold: 1,
    failureThreshold: 1,
  };
  for (const [key, min] of Object.entries(mins)) {
    const v = r.int(p, key, path);
    if (v !== undefined && v !== 0 && v < min) {
      r.errs.invalid(`${path}.${key}`, v, `must be greater than or equal to ${min}`);
    }
  }
  const handlers = ["exec", "httpGet", "tcpSocket", "grpc"].filter((h) => p[h] !== undefined);
  if (handlers.length === 0) r.errs.required(`${path}`);
  if (handlers.length > 1) r.errs.forbidden(`${path}`, "may not specify more than 1 handler type");
}
