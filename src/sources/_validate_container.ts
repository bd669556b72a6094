/**
 * Containers and init containers (validateContainers, validateInitContainers,
 * validateContainerCommon and what it calls), for the fields denolet acts on.
 */
import type { V1Container, V1PodSpec, V1Volume } from "@kubernetes/client-node";
import { dns1123Label, type FieldErrors, ipAddress, portName, portNumber } from "./_fields.ts";
import { validateEnv } from "./_validate_env.ts";
import { type ProbeKind, validateLifecycle, validateProbe } from "./_validate_handlers.ts";
import { validateRequirements } from "./_validate_resources.ts";
import { validateContainerSecurityContext } from "./_validate_security.ts";
import { validateLocalDescendingPath } from "./_validate_volumes.ts";

export const PULL_POLICIES = ["Always", "IfNotPresent", "Never"] as const;
const PROTOCOLS = ["SCTP", "TCP", "UDP"] as const;
const MESSAGE_POLICIES = ["FallbackToLogsOnError", "File"] as const;
const PROPAGATION_MODES = ["Bidirectional", "HostToContainer", "None"] as const;
const RRO_MODES = ["Disabled", "Enabled", "IfPossible"] as const;
const RESIZE_RESOURCES = ["cpu", "memory"] as const;
const RESIZE_POLICIES = ["NotRequired", "RestartContainer"] as const;
const PROBES: readonly ProbeKind[] = ["livenessProbe", "readinessProbe", "startupProbe"];

export interface ContainerContext {
  kind: "containers" | "initContainers";
  /** Container names seen so far across containers and init containers (names are pod-unique). */
  names: Set<string>;
  /** The volumes that validated, by name. */
  volumes: ReadonlyMap<string, V1Volume>;
  hostNetwork: boolean;
  /** spec.hostUsers, default true (no user namespace). */
  hostUsers: boolean;
  /** spec.terminationGracePeriodSeconds, or its default when unset. */
  gracePeriodSeconds: number;
  spec: V1PodSpec;
}

/** One list of containers (`spec.containers` or `spec.initContainers`). */
export function validateContainers(list: V1Container[], ctx: ContainerContext, errs: FieldErrors) {
  const hostPorts = new Set<string>();
  list.forEach((c, i) => {
    const path = `spec.${ctx.kind}[${i}]`;
    validateContainer(c, path, ctx, errs);
    // Init containers run one at a time, so only app containers compete for host ports.
    if (ctx.kind === "initContainers") hostPorts.clear();
    (c.ports ?? []).forEach((p, j) => {
      if (!p.hostPort) return;
      const key = `${p.protocol || "TCP"}/${p.hostIP ?? ""}/${p.hostPort}`;
      if (hostPorts.has(key)) errs.duplicate(`${path}.ports[${j}].hostPort`, key);
      hostPorts.add(key);
    });
  });
}

function validateContainer(c: V1Container, path: string, ctx: ContainerContext, errs: FieldErrors) {
  if (!c.name) errs.required(`${path}.name`);
  else {
    const why = dns1123Label(c.name);
    if (why) errs.invalid(`${path}.name`, c.name, why);
    else if (ctx.names.has(c.name)) errs.duplicate(`${path}.name`, c.name);
    ctx.names.add(c.name);
  }
  if (!c.image || c.image.trim() === "") errs.required(`${path}.image`);
  else if (c.image !== c.image.trim()) {
    errs.invalid(`${path}.image`, c.image, "must not have leading or trailing whitespace");
  }
  errs.oneOf(`${path}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES);
  errs.oneOf(`${path}.terminationMessagePolicy`, c.terminationMessagePolicy, MESSAGE_POLICIES);
  // Upstream leaves this to the runtime, which refuses a relative working directory.
  if (c.workingDir && !c.workingDir.startsWith("/")) {
    errs.invalid(`${path}.workingDir`, c.workingDir, "must be an absolute path");
  }
  validatePorts(c, path, ctx, errs);
  const containerNames = new Set(
    [...(ctx.spec.containers ?? []), ...(ctx.spec.initContainers ?? [])].map((x) => x.name),
  );
  validateEnv(c, path, { containerNames, volumes: ctx.volumes, errs });
  validateMounts(c, path, ctx, errs);
  (c.volumeDevices ?? []).forEach((d, i) => {
    const dp = `${path}.volumeDevices[${i}]`;
    if (!d.devicePath) errs.required(`${dp}.devicePath`);
    if (!d.name || !ctx.volumes.has(d.name)) errs.notFound(`${dp}.name`, d.name ?? "");
    else {
      errs.invalid(
        `${dp}.name`,
        d.name,
        "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode",
      );
    }
  });
  if (c.resources) validateRequirements(c.resources, `${path}.resources`, errs);
  validateResizePolicy(c, path, ctx, errs);
  if (c.securityContext) {
    validateContainerSecurityContext(c.securityContext, `${path}.securityContext`, {
      hostUsers: ctx.hostUsers,
      errs,
    });
  }
  validateRestartPolicyAndHooks(c, path, ctx, errs);
}

function validateRestartPolicyAndHooks(
  c: V1Container,
  path: string,
  ctx: ContainerContext,
  errs: FieldErrors,
) {
  const restart = c.restartPolicy;
  // ContainerRestartRules (beta, on since 1.35): any container may set its own policy and
  // rules; a sidecar (an init container with Always) may set none, as upstream validates.
  if (ctx.kind === "initContainers" && restart === "Always") {
    if ((c.restartPolicyRules ?? []).length > 0) {
      errs.forbidden(
        `${path}.restartPolicyRules`,
        "restartPolicyRules are not allowed for init containers with restart policy Always",
      );
    }
  } else validateContainerRestartPolicy(c, path, errs);
  const sidecar = ctx.kind === "initContainers" && restart === "Always";
  const opts = { container: c, gracePeriodSeconds: ctx.gracePeriodSeconds, errs };
  if (ctx.kind === "initContainers" && !sidecar) {
    for (const key of ["lifecycle", ...PROBES] as const) {
      if (c[key]) {
        errs.forbidden(
          `${path}.${key}`,
          "may not be set for init containers without restartPolicy=Always",
        );
      }
    }
    return;
  }
  if (c.lifecycle) validateLifecycle(c.lifecycle, `${path}.lifecycle`, opts);
  for (const kind of PROBES) {
    const p = c[kind];
    if (p) validateProbe(p, `${path}.${kind}`, { ...opts, kind });
  }
}

function validatePorts(c: V1Container, path: string, ctx: ContainerContext, errs: FieldErrors) {
  const names = new Set<string>();
  (c.ports ?? []).forEach((p, i) => {
    const pp = `${path}.ports[${i}]`;
    if (p.name) {
      const why = portName(p.name);
      if (why) errs.invalid(`${pp}.name`, p.name, why);
      else if (names.has(p.name)) errs.duplicate(`${pp}.name`, p.name);
      names.add(p.name);
    }
    if (!p.containerPort) errs.required(`${pp}.containerPort`);
    else {
      const why = portNumber(p.containerPort);
      if (why) errs.invalid(`${pp}.containerPort`, p.containerPort, why);
    }
    if (p.hostPort) {
      const why = portNumber(p.hostPort);
      if (why) errs.invalid(`${pp}.hostPort`, p.hostPort, why);
      else if (ctx.hostNetwork && p.containerPort && p.hostPort !== p.containerPort) {
        errs.invalid(
          `${pp}.hostPort`,
          p.hostPort,
          "must match `containerPort` when `hostNetwork` is true",
        );
      }
    }
    errs.oneOf(`${pp}.protocol`, p.protocol, PROTOCOLS);
    if (p.hostIP) {
      const why = ipAddress(p.hostIP);
      if (why) errs.invalid(`${pp}.hostIP`, p.hostIP, why);
    }
  });
}

function validateMounts(c: V1Container, path: string, ctx: ContainerContext, errs: FieldErrors) {
  const mountPaths = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const mp = `${path}.volumeMounts[${i}]`;
    if (!m.name) errs.required(`${mp}.name`);
    const volume = m.name ? ctx.volumes.get(m.name) : undefined;
    if (!volume) errs.notFound(`${mp}.name`, m.name ?? "");
    if (!m.mountPath) errs.required(`${mp}.mountPath`);
    else if (mountPaths.has(m.mountPath)) {
      errs.invalid(`${mp}.mountPath`, m.mountPath, "must be unique");
    }
    mountPaths.add(m.mountPath);
    if (volume?.image && (m.subPath || m.subPathExpr)) {
      const key = m.subPath ? "subPath" : "subPathExpr";
      errs.invalid(`${mp}.${key}`, m[key], "not allowed in image volume sources");
    }
    if (m.subPath) validateLocalDescendingPath(m.subPath, `${mp}.subPath`, errs);
    if (m.subPathExpr) {
      if (m.subPath) {
        errs.invalid(
          `${mp}.subPathExpr`,
          m.subPathExpr,
          "subPathExpr and subPath are mutually exclusive",
        );
      }
      validateLocalDescendingPath(m.subPathExpr, `${mp}.subPathExpr`, errs);
    }
    if (m.mountPropagation) {
      errs.oneOf(`${mp}.mountPropagation`, m.mountPropagation, PROPAGATION_MODES);
      if (m.mountPropagation === "Bidirectional" && c.securityContext?.privileged !== true) {
        errs.forbidden(
          `${mp}.mountPropagation`,
          "Bidirectional mount propagation is available only to privileged containers",
        );
      }
    }
    validateRecursiveReadOnly(m, mp, errs);
  });
}

function validateRecursiveReadOnly(
  m: NonNullable<V1Container["volumeMounts"]>[number],
  mp: string,
  errs: FieldErrors,
) {
  const rro = m.recursiveReadOnly;
  if (!rro) return;
  errs.oneOf(`${mp}.recursiveReadOnly`, rro, RRO_MODES);
  if (rro === "Disabled") return;
  if (m.readOnly !== true) {
    errs.forbidden(`${mp}.recursiveReadOnly`, "may only be specified when readOnly is true");
  }
  if (rro === "Enabled") {
    if (m.mountPropagation && m.mountPropagation !== "None") {
      errs.forbidden(
        `${mp}.recursiveReadOnly`,
        "may only be specified when mountPropagation is None or not specified",
      );
    }
  }
}

function validateResizePolicy(
  c: V1Container,
  path: string,
  ctx: ContainerContext,
  errs: FieldErrors,
) {
  const list = c.resizePolicy ?? [];
  // In-place resize (GA) lets init containers set it; only sidecars restart for a resize.
  if (ctx.kind === "initContainers" && c.restartPolicy !== "Always") {
    list.forEach((p, j) => {
      if (p.restartPolicy === "RestartContainer") {
        errs.invalid(
          `${path}.resizePolicy[${j}].restartPolicy`,
          p.restartPolicy,
          "must not be set to 'RestartContainer' for non-sidecar initContainers",
        );
      }
    });
  }
  const seen = new Set<string>();
  list.forEach((p, i) => {
    const rp = `${path}.resizePolicy`;
    if (seen.has(p.resourceName)) errs.duplicate(`${rp}[${i}]`, p.resourceName);
    seen.add(p.resourceName);
    if (!p.resourceName) errs.required(rp);
    else errs.oneOf(rp, p.resourceName, RESIZE_RESOURCES);
    if (!p.restartPolicy) errs.required(rp);
    else errs.oneOf(rp, p.restartPolicy, RESIZE_POLICIES);
    if (ctx.spec.restartPolicy === "Never" && p.restartPolicy !== "NotRequired") {
      errs.invalid(rp, p.restartPolicy, "must be 'NotRequired' when `restartPolicy` is 'Never'");
    }
  });
}

const CONTAINER_RESTART_POLICIES = ["Always", "Never", "OnFailure"] as const;
const RESTART_RULE_ACTIONS = ["Restart", "RestartAllContainers"] as const;
const EXIT_CODE_OPERATORS = ["In", "NotIn"] as const;

/** Upstream validateContainerRestartPolicy: the container's own policy and its exit-code rules. */
function validateContainerRestartPolicy(c: V1Container, path: string, errs: FieldErrors) {
  const rules = c.restartPolicyRules ?? [];
  if (c.restartPolicy === undefined || c.restartPolicy === null) {
    if (rules.length > 0) {
      errs.required(
        `${path}.restartPolicy`,
        "must specify restartPolicy when restart rules are used",
      );
    }
  } else errs.oneOf(`${path}.restartPolicy`, c.restartPolicy, CONTAINER_RESTART_POLICIES);
  if (rules.length > 20) {
    errs.add(`${path}.restartPolicyRules`, `Too many: ${rules.length}: must have at most 20 items`);
  }
  rules.forEach((rule, i) => {
    const rp = `${path}.restartPolicyRules[${i}]`;
    errs.oneOf(`${rp}.action`, rule.action, RESTART_RULE_ACTIONS);
    if (!rule.exitCodes) {
      errs.required(`${rp}.exitCodes`, "must be specified");
      return;
    }
    errs.oneOf(`${rp}.exitCodes.operator`, rule.exitCodes.operator, EXIT_CODE_OPERATORS);
    const n = rule.exitCodes.values?.length ?? 0;
    if (n > 255) errs.add(`${rp}.exitCodes.values`, `Too many: ${n}: must have at most 255 items`);
  });
}
