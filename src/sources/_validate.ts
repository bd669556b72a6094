/**
 * Manifest validation as the API server does it for a static pod: first the JSON types (the
 * typed decoder), then ValidatePodCreate's checks on every field denolet acts on, plus
 * PreventStaticPodAPIReferences, so a malformed field is refused here with its path instead of
 * failing later in the runtime.
 */
import type {
  V1HostAlias,
  V1ObjectMeta,
  V1PodDNSConfig,
  V1PodSpec,
  V1Toleration,
} from "@kubernetes/client-node";
import { pathComponentProblem } from "../util/path_component.ts";
import {
  dns1123Label,
  dns1123Subdomain,
  FieldErrors,
  ipAddress,
  labelValue,
  type Obj,
  qualifiedName,
} from "./_fields.ts";
import { type ContainerContext, validateContainers } from "./_validate_container.ts";
import { validatePodResources, validateResourceList } from "./_validate_resources.ts";
import { validateHostUsers, validatePodSecurityContext } from "./_validate_security.ts";
import { checkPodTypes } from "./_validate_types.ts";
import { validateVolumes } from "./_validate_volumes.ts";

export { VOLUME_SOURCES } from "./_validate_volumes.ts";

const RESTART_POLICIES = ["Always", "OnFailure", "Never"] as const;
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"] as const;
const PREEMPTION_POLICIES = ["PreemptLowerPriority", "PreemptNever"] as const;
const TOLERATION_OPERATORS = ["Equal", "Exists"] as const;
const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
const OS_NAMES = ["linux", "windows"] as const;
const MAX_ANNOTATIONS_BYTES = 256 * 1024;
const MAX_UID_LENGTH = 253;
const MAX_INT32 = 2147483647;
const MAX_DNS_NAMESERVERS = 3;
const MAX_DNS_SEARCH_PATHS = 32;
const MAX_DNS_SEARCH_LIST_CHARS = 2048;
/** What an unset grace period is defaulted to; preStop sleeps are held to it. */
const DEFAULT_GRACE_PERIOD_SECONDS = 30;

/**
 * Validates a decoded Pod object (before API defaults are applied, so empty enum values are
 * fine) and returns the field errors, empty when valid. The first wrong JSON type is reported
 * alone, as the decoder fails before validation runs; unknown fields are ignored.
 */
export function validatePod(pod: Obj): string[] {
  const errs = new FieldErrors();
  checkPodTypes(pod, errs);
  if (errs.count > 0) return errs.list;
  validateMeta((pod.metadata ?? {}) as V1ObjectMeta, errs);
  if (pod.spec === undefined || pod.spec === null) errs.required("spec");
  else validateSpec(pod.spec as V1PodSpec, errs);
  return errs.list;
}

function validateMeta(meta: V1ObjectMeta, errs: FieldErrors) {
  // Only presence here: as upstream, the name is validated once the node name is appended, so
  // `web-` is fine (it becomes `web--node1`).
  if (!meta.name) errs.required("metadata.name", "name or generateName is required");
  if (meta.namespace) {
    const why = dns1123Label(meta.namespace);
    if (why) errs.invalid("metadata.namespace", meta.namespace, why);
  }
  if (meta.uid) {
    const why = uidProblem(meta.uid);
    if (why) errs.invalid("metadata.uid", meta.uid, why);
  }
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    const why = qualifiedName(k);
    if (why) errs.invalid("metadata.labels", k, why);
    const valueWhy = labelValue(v);
    if (valueWhy) errs.invalid(`metadata.labels[${k}]`, v, valueWhy);
  }
  let size = 0;
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    const why = qualifiedName(k.toLowerCase());
    if (why) errs.invalid("metadata.annotations", k, why);
    size += k.length + v.length;
  }
  if (size > MAX_ANNOTATIONS_BYTES) {
    errs.add("metadata.annotations", `Too long: must have at most ${MAX_ANNOTATIONS_BYTES} bytes`);
  }
  const deletionGrace = meta.deletionGracePeriodSeconds;
  if (deletionGrace !== undefined && deletionGrace !== null && deletionGrace < 0) {
    errs.invalid("metadata.deletionGracePeriodSeconds", deletionGrace, "must be >= 0");
  }
}

/**
 * A manifest may carry its own UID (kept as upstream does). It names the pod directory, the
 * pod log directory `<ns>_<name>_<uid>` (removed recursively with the pod, and parsed back by
 * splitting on `_`) and the pod cgroup, so it must be one harmless path component.
 */
function uidProblem(uid: string): string | undefined {
  const why = pathComponentProblem(uid);
  if (why) return `must be a single path component: it ${why}`;
  if (uid.length > MAX_UID_LENGTH) return `must be no more than ${MAX_UID_LENGTH} characters`;
  if (uid.includes("_")) {
    return "must not contain '_' (the pod log directory <namespace>_<name>_<uid> is split on it)";
  }
  if ([...uid].some((ch) => ch < " " || ch === "\x7f")) {
    return "must not contain control characters";
  }
  return undefined;
}

function validateSpec(spec: V1PodSpec, errs: FieldErrors) {
  errs.oneOf("spec.restartPolicy", spec.restartPolicy, RESTART_POLICIES);
  errs.oneOf("spec.dnsPolicy", spec.dnsPolicy, DNS_POLICIES);
  errs.oneOf("spec.preemptionPolicy", spec.preemptionPolicy, PREEMPTION_POLICIES);
  const grace = spec.terminationGracePeriodSeconds;
  if (grace !== undefined && grace !== null && grace < 0) {
    errs.invalid("spec.terminationGracePeriodSeconds", grace, "must be greater than or equal to 0");
  }
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && deadline !== null && (deadline < 1 || deadline > MAX_INT32)) {
    errs.invalid(
      "spec.activeDeadlineSeconds",
      deadline,
      `must be between 1 and ${MAX_INT32}, inclusive`,
    );
  }
  for (const key of ["hostname", "subdomain"] as const) {
    const v = spec[key];
    const why = v ? dns1123Label(v) : undefined;
    if (why) errs.invalid(`spec.${key}`, v, why);
  }
  for (const key of ["priorityClassName", "runtimeClassName"] as const) {
    const v = spec[key];
    const why = v ? dns1123Subdomain(v) : undefined;
    if (why) errs.invalid(`spec.${key}`, v, why);
  }
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) {
    const why = qualifiedName(k) ?? labelValue(v);
    if (why) errs.invalid(`spec.nodeSelector[${k}]`, v, why);
  }
  if (spec.os) {
    if (!spec.os.name) errs.required("spec.os.name", "cannot be empty");
    else errs.oneOf("spec.os", spec.os.name, OS_NAMES);
    // The kubelet refuses to admit a pod for another OS; this node runs Linux.
    if (spec.os.name === "windows") errs.forbidden("spec.os.name", "this node runs linux");
  }
  if (spec.overhead) validateResourceList(spec.overhead, "spec.overhead", errs);
  validatePodResources(spec, errs);
  validateDNS(spec, errs);
  validateHostAliases(spec.hostAliases ?? [], errs);
  validateTolerations(spec.tolerations ?? [], errs);
  (spec.readinessGates ?? []).forEach((g, i) => {
    const path = `spec.readinessGates[${i}].conditionType`;
    const why = qualifiedName(g.conditionType ?? "");
    if (why) errs.invalid(path, g.conditionType ?? "", why);
  });
  validateApiReferences(spec, errs);
  validatePodSecurityContext(spec, errs);
  validateHostUsers(spec, errs);

  const volumes = validateVolumes(spec.volumes ?? [], errs);
  const ctx: Omit<ContainerContext, "kind"> = {
    names: new Set<string>(),
    volumes,
    hostNetwork: spec.hostNetwork === true,
    hostUsers: spec.hostUsers !== false,
    gracePeriodSeconds: grace ?? DEFAULT_GRACE_PERIOD_SECONDS,
    spec,
  };
  if ((spec.containers ?? []).length === 0) errs.required("spec.containers");
  validateContainers(spec.containers ?? [], { ...ctx, kind: "containers" }, errs);
  validateContainers(spec.initContainers ?? [], { ...ctx, kind: "initContainers" }, errs);
  if ((spec.ephemeralContainers ?? []).length > 0) {
    errs.forbidden("spec.ephemeralContainers", "cannot be set on create");
  }
}

/** A static pod has no API server to resolve references to other objects. */
function validateApiReferences(spec: V1PodSpec, errs: FieldErrors) {
  if (spec.serviceAccountName || spec.serviceAccount) {
    errs.forbidden("spec.serviceAccountName", "static pods may not reference serviceaccounts");
  }
  if ((spec.imagePullSecrets ?? []).length > 0) {
    errs.forbidden("spec.imagePullSecrets", "static pods may not reference secrets");
  }
  if ((spec.resourceClaims ?? []).length > 0) {
    errs.forbidden("spec.resourceClaims", "static pods may not reference resourceclaims");
  }
}

function validateDNS(spec: V1PodSpec, errs: FieldErrors) {
  const config: V1PodDNSConfig | undefined = spec.dnsConfig ?? undefined;
  if (spec.dnsPolicy === "None") {
    if (!config) {
      errs.required("spec.dnsConfig", "must provide `dnsConfig` when `dnsPolicy` is None");
      return;
    }
    if ((config.nameservers ?? []).length === 0) {
      errs.required(
        "spec.dnsConfig.nameservers",
        "must provide at least one DNS nameserver when `dnsPolicy` is None",
      );
      return;
    }
  }
  if (!config) return;
  const path = "spec.dnsConfig";
  const servers = config.nameservers ?? [];
  if (servers.length > MAX_DNS_NAMESERVERS) {
    errs.invalid(
      `${path}.nameservers`,
      servers,
      `must not have more than ${MAX_DNS_NAMESERVERS} nameservers`,
    );
  }
  servers.forEach((ip, i) => {
    const why = ipAddress(ip);
    if (why) errs.invalid(`${path}.nameservers[${i}]`, ip, why);
  });
  const searches = config.searches ?? [];
  if (searches.length > MAX_DNS_SEARCH_PATHS) {
    errs.invalid(
      `${path}.searches`,
      searches,
      `must not have more than ${MAX_DNS_SEARCH_PATHS} search paths`,
    );
  }
  if (searches.join(" ").length > MAX_DNS_SEARCH_LIST_CHARS) {
    errs.invalid(
      `${path}.searches`,
      searches,
      `must not have more than ${MAX_DNS_SEARCH_LIST_CHARS} characters (including spaces) in the search list`,
    );
  }
  searches.forEach((s, i) => {
    if (s === ".") return;
    const trimmed = s.replace(/\.$/, "");
    // RelaxedDNSSearchValidation: underscores are allowed.
    const why = dns1123Subdomain(trimmed.replaceAll("_", "a"));
    if (why) errs.invalid(`${path}.searches[${i}]`, trimmed, why);
  });
  (config.options ?? []).forEach((o, i) => {
    if (!o.name) errs.required(`${path}.options[${i}]`, "must not be empty");
  });
}

function validateHostAliases(aliases: V1HostAlias[], errs: FieldErrors) {
  aliases.forEach((a, i) => {
    const path = `spec.hostAliases[${i}]`;
    const why = ipAddress(a.ip ?? "");
    if (why) errs.invalid(`${path}.ip`, a.ip ?? "", why);
    (a.hostnames ?? []).forEach((h, j) => {
      const hostWhy = dns1123Subdomain(h);
      if (hostWhy) errs.invalid(`${path}.hostnames[${j}]`, h, hostWhy);
    });
  });
}

function validateTolerations(tolerations: V1Toleration[], errs: FieldErrors) {
  tolerations.forEach((t, i) => {
    const path = `spec.tolerations[${i}]`;
    if (t.key) {
      const why = qualifiedName(t.key);
      if (why) errs.invalid(`${path}.key`, t.key, why);
    }
    if (!t.key && t.operator !== "Exists") {
      errs.invalid(
        `${path}.operator`,
        t.operator ?? "",
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      );
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null) {
      if (t.effect !== "NoExecute") {
        errs.invalid(
          `${path}.effect`,
          t.effect ?? "",
          "effect must be 'NoExecute' when `tolerationSeconds` is set",
        );
      }
    }
    if (!t.operator || t.operator === "Equal") {
      const why = labelValue(t.value ?? "");
      if (why) errs.invalid(`${path}.operator`, t.value, why);
    } else if (t.operator === "Exists") {
      if (t.value) {
        errs.invalid(
          `${path}.operator`,
          t.value,
          "value must be empty when `operator` is 'Exists'",
        );
      }
    } else {
      errs.unsupported(`${path}.operator`, t.operator, TOLERATION_OPERATORS);
    }
    errs.oneOf(`${path}.effect`, t.effect, TAINT_EFFECTS);
  });
}
