/**
 * Pod and container security contexts (validatePodSpecSecurityContext, ValidateSecurityContext,
 * validateSysctls, the seccomp and AppArmor profile fields).
 */
import type {
  V1AppArmorProfile,
  V1PodSpec,
  V1SeccompProfile,
  V1SecurityContext,
} from "@kubernetes/client-node";
import type { FieldErrors } from "./_fields.ts";
import { linuxId } from "./_fields.ts";
import { validateLocalDescendingPath } from "./_validate_volumes.ts";

const PROFILE_TYPES = ["Localhost", "RuntimeDefault", "Unconfined"] as const;
const PROC_MOUNT_TYPES = ["Default", "Unmasked"] as const;
const FS_GROUP_CHANGE_POLICIES = ["Always", "OnRootMismatch"] as const;
const SUPPLEMENTAL_GROUPS_POLICIES = ["Merge", "Strict"] as const;
const SELINUX_CHANGE_POLICIES = ["MountOption", "Recursive"] as const;
const SYSCTL_NAME = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;
const SYSCTL_MAX_LENGTH = 253;
/** Sysctls of the IPC namespace (utilsysctl.GetNamespace); net.* belong to the network one. */
const IPC_SYSCTLS = /^(kernel\.shm|kernel\.msg|kernel\.sem$|fs\.mqueue\.)/;

/** spec.securityContext and the host-namespace flags that interact with it. */
export function validatePodSecurityContext(spec: V1PodSpec, errs: FieldErrors): void {
  const sc = spec.securityContext;
  if (!sc) return;
  const path = "spec.securityContext";
  for (const key of ["runAsUser", "runAsGroup", "fsGroup"] as const) {
    const v = sc[key];
    const why = v === undefined || v === null ? undefined : linuxId(v);
    if (why) errs.invalid(`${path}.${key}`, v, why);
  }
  (sc.supplementalGroups ?? []).forEach((g, i) => {
    const why = linuxId(g);
    if (why) errs.invalid(`${path}.supplementalGroups[${i}]`, g, why);
  });
  if (spec.shareProcessNamespace && spec.hostPID) {
    errs.invalid(
      "spec.shareProcessNamespace",
      true,
      "ShareProcessNamespace and HostPID cannot both be enabled",
    );
  }
  const names = new Set<string>();
  (sc.sysctls ?? []).forEach((s, i) => {
    const field = `${path}.sysctls[${i}].name`;
    const name = s.name ?? "";
    if (!name) errs.required(field);
    else if (name.length > SYSCTL_MAX_LENGTH || !SYSCTL_NAME.test(name)) {
      errs.invalid(
        field,
        name,
        `must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${SYSCTL_NAME.source}`,
      );
    } else if (names.has(name)) errs.duplicate(field, name);
    names.add(name);
    const dotted = name.replaceAll("/", ".");
    if (spec.hostNetwork && dotted.startsWith("net.")) {
      errs.invalid(field, name, "may not be specified when 'hostNetwork' is true");
    } else if (spec.hostIPC && IPC_SYSCTLS.test(dotted)) {
      errs.invalid(field, name, "may not be specified when 'hostIPC' is true");
    }
  });
  errs.oneOf(`${path}.fsGroupChangePolicy`, sc.fsGroupChangePolicy, FS_GROUP_CHANGE_POLICIES);
  errs.oneOf(
    `${path}.supplementalGroupsPolicy`,
    sc.supplementalGroupsPolicy,
    SUPPLEMENTAL_GROUPS_POLICIES,
  );
  errs.oneOf(`${path}.seLinuxChangePolicy`, sc.seLinuxChangePolicy, SELINUX_CHANGE_POLICIES);
  validateSeccomp(sc.seccompProfile, `${path}.seccompProfile`, errs);
  validateAppArmor(sc.appArmorProfile, `${path}.appArmorProfile`, errs);
  if (spec.os?.name === "linux" && sc.windowsOptions) {
    errs.forbidden(`${path}.windowsOptions`, "windows options cannot be set for a linux pod");
  }
}

/**
 * spec.hostUsers: false asks for a user namespace, which cannot go with a host namespace.
 * Whether the node can create one is admission's question (the field table), not validation's.
 */
export function validateHostUsers(spec: V1PodSpec, errs: FieldErrors): void {
  if (spec.hostUsers !== false) return;
  const why = "when `hostUsers` is false";
  // Upstream's paths, its capitals included (fldPath.Child("HostPID")).
  if (spec.hostNetwork) errs.forbidden("spec.hostNetwork", why);
  if (spec.hostPID) errs.forbidden("spec.HostPID", why);
  if (spec.hostIPC) errs.forbidden("spec.HostIPC", why);
  // Raw block devices can be neither idmapped nor chowned into the pod's range.
  const lists = [
    ["containers", spec.containers],
    ["initContainers", spec.initContainers],
    ["ephemeralContainers", spec.ephemeralContainers],
  ] as const;
  for (const [field, list] of lists) {
    (list ?? []).forEach((c, i) => {
      if (c.volumeDevices?.length) errs.forbidden(`spec.${field}[${i}].volumeDevices`, why);
    });
  }
}

/** A container's securityContext at `path`; `hostUsers` is spec.hostUsers (default true). */
export function validateContainerSecurityContext(
  sc: V1SecurityContext,
  path: string,
  opts: { hostUsers: boolean; errs: FieldErrors },
): void {
  const { errs } = opts;
  for (const key of ["runAsUser", "runAsGroup"] as const) {
    const v = sc[key];
    const why = v === undefined || v === null ? undefined : linuxId(v);
    if (why) errs.invalid(`${path}.${key}`, v, why);
  }
  if (sc.procMount) {
    errs.oneOf(`${path}.procMount`, sc.procMount, PROC_MOUNT_TYPES);
    if (opts.hostUsers && sc.procMount === "Unmasked") {
      errs.invalid(
        `${path}.procMount`,
        sc.procMount,
        "`hostUsers` must be false to use `Unmasked`",
      );
    }
  }
  validateSeccomp(sc.seccompProfile, `${path}.seccompProfile`, errs);
  validateAppArmor(sc.appArmorProfile, `${path}.appArmorProfile`, errs);
  for (const key of ["add", "drop"] as const) {
    (sc.capabilities?.[key] ?? []).forEach((cap, i) => {
      if (cap === "") errs.required(`${path}.capabilities.${key}[${i}]`, "a capability name");
    });
  }
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) {
      errs.invalid(
        path,
        "privileged",
        "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
      );
    }
    if ((sc.capabilities?.add ?? []).includes("CAP_SYS_ADMIN")) {
      errs.invalid(
        path,
        "CAP_SYS_ADMIN",
        "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
      );
    }
  }
}

function validateSeccomp(p: V1SeccompProfile | undefined, path: string, errs: FieldErrors) {
  if (!p) return;
  if (!p.type) {
    errs.required(`${path}.type`, "type is required when seccompProfile is set");
    return;
  }
  errs.oneOf(`${path}.type`, p.type, PROFILE_TYPES);
  if (p.type === "Localhost") {
    if (!p.localhostProfile) {
      errs.required(`${path}.localhostProfile`, "must be set when seccomp type is Localhost");
    } else {
      validateLocalDescendingPath(p.localhostProfile, `${path}.localhostProfile`, errs);
    }
  } else if (p.localhostProfile !== undefined && p.localhostProfile !== null) {
    errs.invalid(
      `${path}.localhostProfile`,
      p.localhostProfile,
      "can only be set when seccomp type is Localhost",
    );
  }
}

function validateAppArmor(p: V1AppArmorProfile | undefined, path: string, errs: FieldErrors) {
  if (!p) return;
  if (!p.type) {
    errs.required(`${path}.type`, "type is required when appArmorProfile is set");
    return;
  }
  errs.oneOf(`${path}.type`, p.type, PROFILE_TYPES);
  if (p.type === "Localhost") {
    const profile = p.localhostProfile ?? "";
    if (profile.trim() === "") {
      errs.required(`${path}.localhostProfile`, "must be set when AppArmor type is Localhost");
    } else if (profile !== profile.trim()) {
      errs.invalid(`${path}.localhostProfile`, profile, "must not be padded with whitespace");
    }
  } else if (p.localhostProfile !== undefined && p.localhostProfile !== null) {
    errs.invalid(
      `${path}.localhostProfile`,
      p.localhostProfile,
      "can only be set when AppArmor type is Localhost",
    );
  }
}
