/**
 * The field table against the v1.37 Pod schema (`_pod_schema.json`, written by
 * tests/support/pod_schema.ts): every field reachable from Pod has a rule, every rule names a
 * real field, every refusing rule refuses a pod that sets its field, and every honoured field's
 * sample passes. A field the API gains fails here until someone decides what the node does.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { createPodAdmission, FIELD_TABLE, type Rule } from "../../src/admission/mod.ts";
import type { RuntimeCapabilities } from "../../src/kubelet/mod.ts";
import schema from "./_pod_schema.json" with { type: "json" };

const TYPES = schema.types as Record<string, Record<string, string>>;

/** What a field holds: `Type`, `[Type]` (list) or `{Type}` (map). */
function parseKind(kind: string): { inner: string; list: boolean; map: boolean } {
  if (kind.startsWith("[")) return { inner: kind.slice(1, -1), list: true, map: false };
  if (kind.startsWith("{")) return { inner: kind.slice(1, -1), list: false, map: true };
  return { inner: kind, list: false, map: false };
}

interface Visit {
  type: string;
  field: string;
  kind: string;
  rule: Rule;
  /** Path from the Pod, lists entered at [0]: `spec.containers[0].env[0].valueFrom`. */
  path: string;
}

/** Every (type, field) reachable from Pod through `{ type }` rules, first path found. */
function reachable(): { visits: Visit[]; missing: string[] } {
  const visits: Visit[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  const queue: Array<{ type: string; path: string }> = [{ type: "Pod", path: "" }];
  while (queue.length > 0) {
    const { type, path } = queue.shift()!;
    if (seen.has(type)) continue;
    seen.add(type);
    for (const [field, kind] of Object.entries(TYPES[type] ?? {})) {
      const rule = FIELD_TABLE[type]?.[field];
      if (rule === undefined) {
        missing.push(`${type}.${field}`);
        continue;
      }
      const { inner, list } = parseKind(kind);
      const here = `${path ? `${path}.` : ""}${field}${list ? "[0]" : ""}`;
      visits.push({ type, field, kind, rule, path: here });
      if (typeof rule === "object" && rule.type !== undefined) {
        assert.equal(rule.type, inner, `${type}.${field} walks as ${rule.type} but holds ${kind}`);
        queue.push({ type: inner, path: here });
      }
    }
  }
  return { visits, missing };
}

const FULL_RUNTIME: RuntimeCapabilities = {
  handlers: new Map([["", { recursiveReadOnlyMounts: true, userNamespaces: true }]]),
  handlersReported: true,
  features: { supplementalGroupsPolicy: true, userNamespacesHostNetwork: true, mountOptions: true },
  conditions: [],
};

/** The most capable node, in API mode and standalone: a refusal here is the table's own. */
const admitters = [true, false].map((apiMode) =>
  createPodAdmission({
    apiMode,
    runtime: () => FULL_RUNTIME,
    allowedUnsafeSysctls: ["net.*", "kernel.msg*"],
    kernelRelease: "6.18.0",
    appArmorEnabled: true,
  })
);

function basePod(): V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "default", uid: "u1" },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  };
}

/** Sets `value` at a path like `spec.containers[0].env[0].name`, creating what is missing. */
function setPath(root: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.replace(/\[(\d+)\]/g, ".$1").split(".");
  let cur: Record<string, unknown> = root;
  parts.slice(0, -1).forEach((k, i) => {
    const nextIsIndex = /^\d+$/.test(parts[i + 1]);
    if (cur[k] === undefined || cur[k] === null) cur[k] = nextIsIndex ? [] : {};
    cur = cur[k] as Record<string, unknown>;
  });
  cur[parts.at(-1)!] = value;
}

/** Values a refusing rule looks for that the generic samples cannot guess. */
const RESTART_ALL = [[{
  action: "RestartAllContainers",
  exitCodes: { operator: "In", values: [1] },
}]];
const SPECIAL_SAMPLES: Record<string, unknown[]> = {
  "Container.restartPolicyRules": RESTART_ALL,
  "EphemeralContainer.restartPolicyRules": RESTART_ALL,
};

/** Sample values a field of `kind` might hold; a refusing rule must refuse one of them. */
function samples(kind: string, at?: string): unknown[] {
  if (at && SPECIAL_SAMPLES[at]) return SPECIAL_SAMPLES[at];
  const { inner, list, map } = parseKind(kind);
  if (list) return samples(inner).map((s) => [s]);
  if (map) {
    return [{ "hugepages-2Mi": "2Mi" }, { "ephemeral-storage": "1Gi" }, { x: sampleScalar(inner) }];
  }
  if (TYPES[inner]) return [{}, sampleObject(inner, 0)];
  return [sampleScalar(inner), ...(inner === "boolean" ? [false] : [])].concat(
    inner === "string" ? ["TLS", "HTTP2", "HugePages", "Enabled"] : [],
  );
}

function sampleScalar(kind: string): unknown {
  if (kind === "boolean") return true;
  if (kind === "integer" || kind === "number") return 1;
  return "x";
}

/** An object with every scalar field set (nested objects one level deep). */
function sampleObject(type: string, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(TYPES[type] ?? {})) {
    const { inner, list } = parseKind(kind);
    if (TYPES[inner]) {
      if (depth < 1) out[field] = list ? [sampleObject(inner, depth + 1)] : sampleObject(inner, 1);
    } else if (!kind.startsWith("{")) {
      out[field] = list ? [sampleScalar(inner)] : sampleScalar(inner);
    }
  }
  return out;
}

Deno.test("field table: every field of the v1.37 Pod types has a rule", () => {
  const { missing } = reachable();
  assert.deepEqual(missing, [], "fields without a rule in src/admission/_table*.ts");
});

Deno.test("field table: every rule names a field of the v1.37 schema", () => {
  const stale: string[] = [];
  for (const [type, rules] of Object.entries(FIELD_TABLE)) {
    if (!TYPES[type]) stale.push(`${type} (no such type)`);
    for (const field of Object.keys(rules)) {
      if (TYPES[type] && !(field in TYPES[type])) stale.push(`${type}.${field}`);
    }
  }
  assert.deepEqual(stale, []);
});

Deno.test("field table: every refusing rule refuses its field, naming it", () => {
  const { visits } = reachable();
  const refusing = visits.filter((v) => typeof v.rule === "object" && v.rule.refuse);
  assert.ok(refusing.length > 10, `only ${refusing.length} refusing rules found`);
  for (const v of refusing) {
    const field = v.path.replace(/\[0\]$/, "");
    const refused = samples(v.kind, `${v.type}.${v.field}`).some((value) => {
      const pod = basePod();
      setPath(pod as Record<string, unknown>, field, value);
      return admitters.some((admit) => {
        const verdict = admit(pod);
        return !verdict.admit && verdict.reason === "PodFeatureUnsupported" &&
          verdict.message!.includes(field);
      });
    });
    assert.ok(refused, `${v.type}.${v.field} at ${field}: no sample value was refused`);
  }
});

Deno.test("field table: honoured fields' samples are not refused for themselves", () => {
  const { visits } = reachable();
  const honoured = visits.filter((v) => v.rule === "ok" || v.rule === "inert");
  for (const v of honoured) {
    const field = v.path.replace(/\[0\]$/, "");
    for (const value of samples(v.kind)) {
      const pod = basePod();
      setPath(pod as Record<string, unknown>, field, value);
      const verdict = admitters[0](pod);
      if (verdict.admit || verdict.reason !== "PodFeatureUnsupported") continue;
      // Only a refusal of this very field counts against the rule; a sample object may set
      // a refused field deeper down.
      assert.ok(
        !new RegExp(`(^|: |, )${escape(field)} \\(`).test(verdict.message!),
        `${v.type}.${v.field} is "${v.rule}" but ${JSON.stringify(value)} was refused: ` +
          verdict.message,
      );
    }
  }
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
