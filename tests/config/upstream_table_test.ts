/**
 * The upstream-settings table against the v1.37 kubelet (`_upstream_v1_37.json`, written by
 * tests/support/upstream_config_names.ts): every field and flag upstream has is implemented or
 * has exactly one decision, and every decision does what it says for every entry: its accepted
 * values load from the file and from the flag, another value is refused naming the flag or
 * `file: field` and the value.
 */
import assert from "node:assert/strict";
import { FLAGS } from "../../src/config/_flag_table.ts";
import { UPSTREAM_FLAGS } from "../../src/config/_upstream_flags.ts";
import { UPSTREAM_FIELDS } from "../../src/config/_upstream_fields.ts";
import { IMPLEMENTED_FIELDS } from "../../src/config/_file.ts";
import { SETTINGS } from "../../src/config/_upstream_check.ts";
import { type FileType, type Setting, show, zeroOf } from "../../src/config/_upstream_rules.ts";
import { formatDuration } from "../../src/config/mod.ts";
import upstream from "./_upstream_v1_37.json" with { type: "json" };
import { fails, run } from "./_helpers.ts";

const PATH = "/etc/kubernetes/kubelet.yaml";
const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const CONFIG = ["--config", PATH];
/** Flags denolet has that upstream does not. */
const DENOLET_ONLY = [
  "api-checkpoint",
  "api-checkpoint-secrets",
  "evict-static-pods",
  "image-minimum-gc-age",
  "pod-infra-container-image",
];

/** The upstream fields denolet does not implement. */
const NOT_IMPLEMENTED = [...UPSTREAM_FIELDS].filter((f) => !IMPLEMENTED_FIELDS.includes(f));

Deno.test("the upstream field list is v1.37's, and every field denolet reads is on it", () => {
  assert.deepEqual([...UPSTREAM_FIELDS].sort(), [...upstream.fields].sort());
  assert.deepEqual(IMPLEMENTED_FIELDS.filter((f) => !UPSTREAM_FIELDS.has(f)), []);
});

Deno.test("every v1.37 flag is implemented or in the upstream list", () => {
  const implemented = FLAGS.map((f) => f.name).filter((n) => !DENOLET_ONLY.includes(n));
  const ours = [...implemented, ...UPSTREAM_FLAGS.keys()].sort();
  assert.deepEqual(ours, [...upstream.flags].sort());
});

Deno.test("every upstream field and flag denolet does not implement has exactly one decision", () => {
  const fields = NOT_IMPLEMENTED;
  const flags = [...UPSTREAM_FLAGS.keys()];
  for (const f of fields) {
    assert.equal(SETTINGS.filter((s) => s.field === f).length, 1, `field ${f}`);
  }
  for (const f of flags) assert.equal(SETTINGS.filter((s) => s.flag === f).length, 1, `--${f}`);
  for (const s of SETTINGS) {
    const name = s.field ?? `--${s.flag}`;
    assert.ok(s.field || s.flag, "a decision names a field or a flag");
    if (s.field) {
      assert.ok(NOT_IMPLEMENTED.includes(s.field), `${name}: not implemented upstream field`);
    }
    if (s.flag) assert.ok(UPSTREAM_FLAGS.has(s.flag), `--${s.flag} is an upstream flag`);
    assert.ok(s.upstream.length > 0 && s.why.length > 10, `${name} says its default and why`);
    if (s.rule.kind === "only") assert.ok(s.rule.what.length > 0, `${name} says what`);
  }
});

/** A value of `type` that no decision accepts by default. */
function other(type: FileType): unknown {
  if (typeof type === "object") {
    const [k, t] = Object.entries(type.struct)[0];
    return { [k]: other(t) };
  }
  return {
    bool: undefined,
    int32: 12345,
    int64: 12345,
    float: 0.5,
    string: "not-a-default",
    duration: 7 * 60_000,
    strings: ["x"],
    int32s: [23],
    map: { a: "b" },
    objects: [{ priority: 1 }],
  }[type];
}

/** A value as the file writes it (YAML flow style is JSON, durations are strings). */
function yaml(type: FileType, v: unknown): string {
  if (type === "duration") return JSON.stringify(formatDuration(v as number));
  if (typeof type === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.entries(o).map(([k, x]) => `${k}: ${yaml(type.struct[k], x)}`).join(", ")}}`;
  }
  return JSON.stringify(v);
}

/** A value as the flag writes it; undefined when the flag cannot say it. */
function flagText(s: Setting, v: unknown): string | undefined {
  if (s.flagValue) {
    if (Array.isArray(v) || (typeof v === "object" && v !== null)) {
      return Object.keys(v).length === 0 ? "" : undefined;
    }
    return String(v);
  }
  if (s.type === "duration") return formatDuration(v as number);
  if (typeof v === "object") return undefined;
  return String(v);
}

const decided = SETTINGS.filter((s) => !(s.rule.kind === "only" && s.rule.node));

Deno.test("table: every accepted value loads from the file and from the flag, silently", async () => {
  for (const s of decided) {
    const rule = s.rule;
    const values = rule.kind === "only"
      ? [...rule.values]
      : rule.kind === "observability"
      ? [...rule.defaults]
      : [];
    if (s.zeroIsDefault) values.push(zeroOf(s.type));
    for (const v of values) {
      if (s.field) {
        const r = await run(CONFIG, { [PATH]: `${HEAD}${s.field}: ${yaml(s.type, v)}\n` });
        assert.deepEqual(r.warnings, [], `${s.field}: ${yaml(s.type, v)}`);
      }
      const text = s.flag && !(s.zeroIsDefault && v === zeroOf(s.type))
        ? flagText(s, v)
        : undefined;
      if (s.flag && text !== undefined) {
        const r = await run([`--${s.flag}=${text}`]);
        assert.deepEqual(r.warnings, [], `--${s.flag}=${text}`);
      }
    }
  }
});

Deno.test("table: another value is refused (or, for logging, warned), naming where and what", async () => {
  let checked = 0;
  for (const s of decided) {
    const v = other(s.type);
    if (v === undefined || s.rule.kind === "inert") continue;
    const shown = show(s.type, v).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (s.field) {
      const files = { [PATH]: `${HEAD}${s.field}: ${yaml(s.type, v)}\n` };
      if (s.rule.kind === "observability") {
        const { warnings } = await run(CONFIG, files);
        assert.match(warnings.join("\n"), new RegExp(`^${PATH}: ${s.field}: ${shown}: `));
      } else {
        await fails(
          CONFIG,
          `${PATH}: ${s.field}`,
          new RegExp(`${shown}: denolet does not implement`),
          files,
        );
      }
      checked++;
    }
    const text = s.flag ? flagText(s, v) : undefined;
    if (s.flag && text !== undefined) {
      const argv = [`--${s.flag}=${text}`];
      if (s.rule.kind === "observability") {
        const { warnings } = await run(argv);
        assert.match(warnings.join("\n"), new RegExp(`^--${s.flag}: `), argv[0]);
      } else {
        await fails(argv, `--${s.flag}`, /denolet does not implement/);
      }
      checked++;
    }
  }
  assert.ok(checked > 45, `only ${checked} values checked`);
});

Deno.test("table: booleans accepted at one value only are refused at the other", async () => {
  for (const s of decided) {
    if (s.type !== "bool" || s.rule.kind !== "only" || s.rule.values.length !== 1) continue;
    const v = !s.rule.values[0];
    if (s.field) {
      await fails(
        CONFIG,
        `${PATH}: ${s.field}`,
        new RegExp(`^${PATH}: ${s.field}: ${v}: denolet does not implement .*; only`),
        {
          [PATH]: `${HEAD}${s.field}: ${v}\n`,
        },
      );
    }
    if (s.flag) await fails([`--${s.flag}=${v}`], `--${s.flag}`, /denolet does not implement/);
  }
});
