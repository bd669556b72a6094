/**
 * Resource requirements (validateResourceRequirements / ValidateResourceQuantityValue): names a
 * container may use, quantities that are not negative, integer extended resources, and
 * requests within limits. Quantities already parse: the type check refused those that do not.
 */
import type { V1Container, V1PodSpec } from "@kubernetes/client-node";
import { formatQuantity, tryParseQuantity } from "../util/quantity.ts";
import { aggregateContainers, isPodLevelResource } from "../util/pod_level.ts";
import { hugePageSizeOf } from "../util/hugepages.ts";
import { dns1123Subdomain, type FieldErrors, qualifiedName } from "./_fields.ts";

type ResourceList = { [name: string]: unknown };

const STANDARD = new Set(["cpu", "memory", "ephemeral-storage"]);
const HUGEPAGES = "hugepages-";
const NATIVE_PREFIX = "kubernetes.io/";

type Requirements = { limits?: ResourceList; requests?: ResourceList; claims?: unknown[] };

/** Validates a container's (or, with `podLevel`, the pod's) `resources` at `path`. */
export function validateRequirements(
  res: Requirements,
  path: string,
  errs: FieldErrors,
  opts: { podLevel?: boolean } = {},
): void {
  const limits = res.limits ?? {};
  const requests = res.requests ?? {};
  validateResourceList(limits, `${path}.limits`, errs, opts);
  validateResourceList(requests, `${path}.requests`, errs, opts);
  for (const [name, raw] of Object.entries(requests)) {
    const req = tryParseQuantity(raw);
    const limitRaw = limits[name];
    const limit = tryParseQuantity(limitRaw);
    const field = `${path}.requests[${name}]`;
    if (req === undefined) continue;
    if (limit !== undefined) {
      if (!overcommitAllowed(name) && req !== limit) {
        errs.invalid(field, raw, `must be equal to ${name} limit of ${String(limitRaw)}`);
      } else if (req > limit) {
        errs.invalid(
          field,
          raw,
          `must be less than or equal to ${name} limit of ${String(limitRaw)}`,
        );
      }
    } else if (!overcommitAllowed(name)) {
      errs.required(`${path}.limits`, "Limit must be set for non overcommitable resources");
    }
  }
  const names = [...Object.keys(limits), ...Object.keys(requests)];
  const hugePages = names.some((n) => n.startsWith(HUGEPAGES));
  if (hugePages && !names.some((n) => n === "cpu" || n === "memory")) {
    errs.forbidden(path, "HugePages require cpu or memory");
  }
  if (opts.podLevel) return;
  // Claims name entries of spec.resourceClaims, which a static pod may not have.
  (res.claims ?? []).forEach((_, i) => {
    errs.notFound(
      `${path}.claims[${i}]`,
      "",
      "must be one of the names in pod.spec.resourceClaims which is empty",
    );
  });
}

/** Names and quantities of one resource list (limits, requests or the pod overhead). */
export function validateResourceList(
  list: ResourceList,
  path: string,
  errs: FieldErrors,
  opts: { podLevel?: boolean } = {},
): void {
  for (const [name, raw] of Object.entries(list)) {
    const field = `${path}[${name}]`;
    const why = resourceNameProblem(name);
    if (why) errs.invalid(field, name, why);
    else if (opts.podLevel && !isPodLevelResource(name)) {
      errs.unsupported(field, name, ["cpu", "hugepages-", "memory"]);
    }
    const value = tryParseQuantity(raw);
    if (value === undefined) continue;
    const page = name.startsWith(HUGEPAGES) ? hugePageSizeOf(name) : undefined;
    if (name.startsWith(HUGEPAGES) && (page === undefined || value % page !== 0)) {
      errs.invalid(
        field,
        String(raw),
        `${String(raw)} is not positive integer multiple of ${name}`,
      );
    }
    if (value < 0) errs.invalid(field, raw, "must be greater than or equal to 0");
    else if (isExtended(name) && !Number.isInteger(value)) {
      errs.invalid(field, raw, "must be an integer");
    }
  }
}

function resourceNameProblem(name: string): string | undefined {
  const why = qualifiedName(name);
  if (why) return why;
  if (!name.includes("/")) {
    if (STANDARD.has(name) || name.startsWith(HUGEPAGES)) return undefined;
    return "must be a standard resource for containers";
  }
  if (isNative(name)) return undefined;
  const prefix = name.slice(0, name.indexOf("/"));
  if (name.startsWith("requests.") || dns1123Subdomain(prefix) !== undefined) {
    return "doesn't follow extended resource name standard";
  }
  return undefined;
}

function isNative(name: string): boolean {
  const prefix = name.includes("/") ? name.slice(0, name.indexOf("/") + 1) : "";
  return prefix === "" || prefix.endsWith(NATIVE_PREFIX);
}

/** Extended resources (device plugins) count whole devices and cannot be overcommitted. */
function isExtended(name: string): boolean {
  return !isNative(name) && !name.startsWith("requests.");
}

function overcommitAllowed(name: string): boolean {
  return isNative(name) && !name.startsWith(HUGEPAGES);
}

/**
 * Pod-level resources (validatePodResources): no claims, pod-level names only, and consistent
 * with the containers: pod requests at least the containers' aggregate, no container limit
 * above the pod's, pod hugepage limits at least the containers' aggregate.
 */
export function validatePodResources(spec: V1PodSpec, errs: FieldErrors): void {
  const res = spec.resources as Requirements | undefined;
  if (!res) return;
  const path = "spec.resources";
  if (res.claims !== undefined) {
    errs.forbidden(`${path}.claims`, "claims may not be set for Resources at pod-level");
  }
  validateRequirements(res, path, errs, { podLevel: true });
  const requests = res.requests ?? {};
  const limits = res.limits ?? {};
  const of = (kind: "requests" | "limits", name: string) => (c: V1Container) =>
    tryParseQuantity((c.resources?.[kind] as ResourceList | undefined)?.[name]) ?? 0;
  const names = (kind: "requests" | "limits") =>
    new Set(
      [...(spec.containers ?? []), ...(spec.initContainers ?? [])].flatMap((c) =>
        Object.keys(c.resources?.[kind] ?? {})
      ),
    );
  for (const name of names("requests")) {
    const pod = tryParseQuantity(requests[name]);
    if (pod === undefined) continue;
    const sum = aggregateContainers({ spec }, of("requests", name));
    if (sum > pod) {
      errs.invalid(
        `${path}.requests[${name}]`,
        String(requests[name]),
        `must be greater than or equal to aggregate container requests of ${show(name, sum)}`,
      );
    }
  }
  for (const name of names("limits")) {
    if (!name.startsWith(HUGEPAGES)) continue;
    const pod = tryParseQuantity(limits[name]);
    if (pod === undefined) continue;
    const sum = aggregateContainers({ spec }, of("limits", name));
    if (sum > pod) {
      errs.invalid(
        `${path}.limits[${name}]`,
        String(limits[name]),
        `must be greater than or equal to aggregate container limits of ${show(name, sum)}`,
      );
    }
  }
  (spec.containers ?? []).forEach((c, i) => {
    for (const [name, raw] of Object.entries(c.resources?.limits ?? {})) {
      const pod = tryParseQuantity(limits[name]);
      const own = tryParseQuantity(raw);
      if (pod === undefined || own === undefined || own <= pod) continue;
      errs.invalid(
        `${path}.containers[${i}][${name}].limits`,
        String(raw),
        `must be less than or equal to pod limits of ${String(limits[name])}`,
      );
    }
  });
}

/** A summed amount as Quantity.String() would print it. */
function show(name: string, value: number): string {
  if (name === "cpu" && !Number.isInteger(value)) return `${Math.round(value * 1000)}m`;
  return formatQuantity(value, name === "cpu" ? "DecimalSI" : "BinarySI");
}
