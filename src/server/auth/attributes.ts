/**
 * Upstream's mapping of a node API request to SubjectAccessReview attributes
 * (pkg/kubelet/server/auth.go): resource `nodes`, name = the node, the verb from the HTTP method
 * (`create` for exec, attach, run and port-forward whatever the method),
 * and the subresource from the path. With fine-grained authorization (upstream's default since
 * 1.33), /pods, /runningpods, /healthz and /configz first ask for their own subresource and fall
 * back to `proxy`; a request is allowed when any of its attribute sets is.
 */
import type { Attributes, UserInfo } from "./types.ts";

const VERBS: Record<string, string> = {
  POST: "create",
  GET: "get",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** `path` is `base` or below it (upstream isSubpath: `/statsfoo` is not under `/stats/`). */
export function isSubpath(path: string, base: string): boolean {
  const b = base.endsWith("/") ? base.slice(0, -1) : base;
  return path === b || (path.startsWith(b) && path[b.length] === "/");
}

/** Checked in order; the first matching prefix decides. */
const FINE_GRAINED: ReadonlyArray<[string, string]> = [
  ["/pods", "pods"],
  ["/healthz", "healthz"],
  ["/configz", "configz"],
  ["/statusz", "statusz"],
  ["/runningpods/", "pods"],
];

const COARSE: ReadonlyArray<[string, string]> = [
  ["/stats/", "stats"],
  ["/metrics", "metrics"],
  ["/logs/", "log"],
  ["/spec/", "spec"],
  ["/checkpoint/", "checkpoint"],
];

/** The subresources a request is authorized against, most specific first. */
export function subresourcesFor(path: string): string[] {
  const out: string[] = [];
  const fine = FINE_GRAINED.find(([base]) => isSubpath(path, base));
  if (fine) out.push(fine[1]);
  const coarse = COARSE.find(([base]) => isSubpath(path, base));
  out.push(coarse ? coarse[1] : "proxy");
  return out;
}

/**
 * Paths that run something in a container or reach into its network. A WebSocket client opens
 * them with GET, which would otherwise need only `get`: they always ask for `create`, as
 * upstream's proposed fix does (kubernetes/kubernetes#136550), so read-only `nodes/proxy`
 * access (monitoring) cannot exec into containers.
 */
const ALWAYS_CREATE = ["/exec", "/attach", "/run", "/portForward"];

/** The attribute sets for `method` on `path` by `user` against node `nodeName`. */
export function requestAttributes(
  user: UserInfo,
  req: { method: string; path: string },
  nodeName: string,
): Attributes[] {
  // Upstream leaves the verb empty for methods it does not map (HEAD, OPTIONS): such requests
  // are only allowed by an authorizer that allows everything.
  // Matched on the path as the router reads it: `/%65xec/...` is an exec too.
  const decoded = decodePath(req.path);
  const verb = ALWAYS_CREATE.some((base) => isSubpath(decoded, base))
    ? "create"
    : VERBS[req.method] ?? "";
  return subresourcesFor(req.path).map((subresource) => ({
    user,
    verb,
    resource: "nodes",
    subresource,
    name: nodeName,
    apiVersion: "v1",
    path: req.path,
  }));
}

/** Each segment decoded as the router decodes it (one that is not valid stays as written). */
function decodePath(path: string): string {
  return path.split("/").map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  }).join("/");
}
