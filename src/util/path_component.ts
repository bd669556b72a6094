/**
 * The last line of defence where a name from a pod (uid, namespace, name, container name)
 * becomes one component of a host path. Manifest validation refuses such names long before;
 * this guard exists so that a name from elsewhere (a runtime label, a future source, a bug)
 * can never turn a join into `..`, an absolute path or a different directory, because some of
 * these paths are created and later removed recursively as root.
 */
import { ConfigError } from "./errors.ts";

/**
 * Why `value` cannot be used as a single path component, or undefined when it can: it must be
 * non-empty, neither `.` nor `..`, and contain no `/` and no NUL.
 */
export function pathComponentProblem(value: string): string | undefined {
  if (value === "") return "must not be empty";
  if (value === "." || value === "..") return "must not be '.' or '..'";
  if (value.includes("/")) return "must not contain '/'";
  if (value.includes("\0")) return "must not contain NUL";
  return undefined;
}

/**
 * Returns `value` when it is a safe single path component; otherwise throws ConfigError
 * naming `field` (what the value is, e.g. `metadata.uid`) and the reason.
 */
export function pathComponent(value: string, field: string): string {
  const why = pathComponentProblem(value);
  if (why !== undefined) {
    throw new ConfigError(
      field,
      `${JSON.stringify(value)} cannot name a directory: a path component ${why}`,
    );
  }
  return value;
}
