/**
 * The JSON types of a v1 Pod, checked the way the API server's typed decoder checks them before
 * any validation runs: a string where an object belongs, an object as a port, a null inside a
 * list or a fraction as an integer is refused with the field path, so later code can trust the
 * shapes. Unknown fields are ignored, as the non-strict decoder does; a null field counts as
 * absent, as a nil pointer does in Go. Stricter than Go in one way: a null list item or map
 * value is refused instead of silently becoming "" or an empty object.
 */
import { tryParseQuantity } from "../util/quantity.ts";
import { type FieldErrors, isObj, type Obj } from "./_fields.ts";
import { POD_SHAPE, type Scalar, type Shape } from "./_validate_shape.ts";

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * Records the first field of `pod` whose JSON type does not match its shape, and stops there as
 * the typed decoder does: a list of thousands of wrong items gives one error, not thousands.
 */
export function checkPodTypes(pod: Obj, errs: FieldErrors): void {
  check(pod, POD_SHAPE, "", errs);
}

/** False once an error is recorded, so callers stop walking. */
function check(v: unknown, shape: Shape, path: string, errs: FieldErrors): boolean {
  if (typeof shape === "string") return checkScalar(v, shape, path, errs);
  if ("list" in shape) {
    if (!Array.isArray(v)) return typeError(errs, path, "a list", v);
    for (let i = 0; i < v.length; i++) {
      if (!checkItem(v[i], shape.list, `${path}[${i}]`, errs)) return false;
    }
    return true;
  }
  if ("map" in shape) {
    if (!isObj(v)) return typeError(errs, path, "a map", v);
    for (const [k, item] of Object.entries(v)) {
      if (!checkItem(item, shape.map, `${path}[${k}]`, errs)) return false;
    }
    return true;
  }
  if (!isObj(v)) return typeError(errs, path, "an object", v);
  for (const [k, fieldShape] of Object.entries(shape.obj)) {
    const child = v[k];
    // A null field is an unset pointer, as in Go.
    if (child === undefined || child === null) continue;
    if (!check(child, fieldShape, path === "" ? k : `${path}.${k}`, errs)) return false;
  }
  return true;
}

/** A list item or map value: here null is refused, it would only fail later. */
function checkItem(v: unknown, shape: Shape, path: string, errs: FieldErrors): boolean {
  if (v === null || v === undefined) return typeError(errs, path, expected(shape), v);
  return check(v, shape, path, errs);
}

function checkScalar(v: unknown, kind: Scalar, path: string, errs: FieldErrors): boolean {
  switch (kind) {
    case "any":
      return true;
    case "string":
      return typeof v === "string" || typeError(errs, path, "a string", v);
    case "bool":
      return typeof v === "boolean" || typeError(errs, path, "a boolean", v);
    case "int32":
    case "int64":
      return checkInteger(v, kind, path, errs);
    case "intOrString":
      if (typeof v === "string") return true;
      if (typeof v === "number") return checkInteger(v, "int32", path, errs);
      return typeError(errs, path, "an integer or a string", v);
    case "quantity":
      if (typeof v !== "string" && typeof v !== "number") {
        return typeError(errs, path, "a quantity (a string or a number)", v);
      }
      if (tryParseQuantity(v) === undefined) {
        errs.invalid(path, v, "quantities must match the regular expression " + QUANTITY_PATTERN);
        return false;
      }
      return true;
  }
}

function typeError(errs: FieldErrors, path: string, expected: string, got: unknown): false {
  errs.type(path, expected, got);
  return false;
}

/** Upstream's wording for an unparsable quantity. */
const QUANTITY_PATTERN = "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function checkInteger(
  v: unknown,
  kind: "int32" | "int64",
  path: string,
  errs: FieldErrors,
): boolean {
  if (typeof v !== "number" || !Number.isInteger(v)) {
    return typeError(errs, path, "an integer", v);
  }
  if (kind === "int32" && (v < INT32_MIN || v > INT32_MAX)) {
    errs.invalid(path, v, "must fit in a 32-bit integer");
    return false;
  }
  if (!Number.isSafeInteger(v)) {
    errs.invalid(path, v, "must be an integer between -(2^53-1) and 2^53-1");
    return false;
  }
  return true;
}

function expected(shape: Shape): string {
  if (typeof shape !== "string") {
    return "list" in shape ? "a list" : "map" in shape ? "a map" : "an object";
  }
  switch (shape) {
    case "string":
      return "a string";
    case "bool":
      return "a boolean";
    case "int32":
    case "int64":
      return "an integer";
    case "intOrString":
      return "an integer or a string";
    case "quantity":
      return "a quantity (a string or a number)";
    case "any":
      return "a value";
  }
}
