/**
 * Writes `tests/admission/_pod_schema.json`: every field of every core/v1 type reachable from
 * Pod, read from the upstream OpenAPI document of the release the test control plane builds.
 * The admission field-walk test checks the field table against it, so that a field the API
 * gains is never run without a rule.
 *
 *   deno run -A tests/support/pod_schema.ts [path/to/api__v1_openapi.json]
 *
 * Without an argument it reads the Kubernetes module the control plane build downloaded under
 * the dev directory (run the cluster tests or `deno task demo:cluster` once first).
 */
import { devDir } from "./containerd.ts";
import { KUBERNETES_VERSION } from "./_control_plane_build.ts";

const OUT = new URL("../admission/_pod_schema.json", import.meta.url);
const CORE = "io.k8s.api.core.v1.";

interface Prop {
  $ref?: string;
  allOf?: Prop[];
  type?: string;
  items?: Prop;
  additionalProperties?: Prop;
}

/** A field's kind: a scalar type, or `Type` / `[Type]` / `{Type}` for an object, list or map. */
function kindOf(p: Prop): string {
  if (p.$ref) return p.$ref.split("/").at(-1)!.replace(CORE, "");
  if (p.allOf?.length) return kindOf(p.allOf[0]);
  if (p.type === "array" && p.items) return `[${kindOf(p.items)}]`;
  if (p.type === "object" && p.additionalProperties) return `{${kindOf(p.additionalProperties)}}`;
  return p.type ?? "any";
}

export function podSchema(
  schemas: Record<string, { properties?: Record<string, Prop> }>,
): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  const queue = ["Pod"];
  while (queue.length > 0) {
    const t = queue.shift()!;
    if (out[t]) continue;
    const fields: Record<string, string> = {};
    for (const [name, p] of Object.entries(schemas[CORE + t]?.properties ?? {})) {
      const kind = kindOf(p);
      fields[name] = kind;
      const inner = kind.replace(/^[[{]|[\]}]$/g, "");
      if (schemas[CORE + inner] && !out[inner]) queue.push(inner);
    }
    out[t] = Object.fromEntries(Object.entries(fields).sort(([a], [b]) => a.localeCompare(b)));
  }
  return out;
}

if (import.meta.main) {
  const src = Deno.args[0] ??
    `${devDir()}/control-plane/go/mod/k8s.io/kubernetes@${KUBERNETES_VERSION}` +
      "/api/openapi-spec/v3/api__v1_openapi.json";
  const doc = JSON.parse(await Deno.readTextFile(src));
  const schema = { version: KUBERNETES_VERSION, types: podSchema(doc.components.schemas) };
  await Deno.writeTextFile(OUT, JSON.stringify(schema, null, 1) + "\n");
  console.log(`wrote ${OUT.pathname}: ${Object.keys(schema.types).length} types`);
}
