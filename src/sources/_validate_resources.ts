/**
 * Resource requirements (validateResourceRequirements / ValidateResourceQuantityValue): names a
 * container may use, quantities that are not negative, integer extended resources, and
 * requests within limits. Quantities already parse: the type check refused those that do not.
 */
import { tryParseQuantity } from "../util/quantity.ts";
import { dns1123Subdomain, type FieldErrors, qualifiedName } from "./_fields.ts";

type ResourceList = { [name: string]: unknown };

const STANDARD = new Set(["cpu", "memory", "ephemeral-storage"]);
const HUGEPAGES = "hugepages-";
const NATIVE_PREFIX = "kubernetes.io/";

/** Validates a container's (or the pod's) `resources` at `path`. */
export function validateRequirements(
  res: { limits?: ResourceList; requests?: ResourceList; claims?: unknown[] },
  path: string,
  errs: FieldErrors,
): void {
  const limits = res.limits ?? {};
  const requests = res.requests ?? {};
  validateResourceList(limits, `${path}.limits`, errs);
  validateResourceList(requests, `${path}.requests`, errs);
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
export function validateResourceList(list: ResourceList, path: string, errs: FieldErrors): void {
  for (const [name, raw] of Object.entries(list)) {
    const field = `${path}[${name}]`;
    const why = resourceNameProblem(name);
    if (why) errs.invalid(field, name, why);
    const value = tryParseQuantity(raw);
    if (value === undefined) continue;
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
