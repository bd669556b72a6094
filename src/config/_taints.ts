/** Node taints for --register-with-taints and registerWithTaints (upstream pkg/util/taints). */
import { isLabelValue, isQualifiedName } from "./_labels.ts";
import type { Taint } from "./types.ts";

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/**
 * `--register-with-taints` syntax (upstream ParseTaints): comma-separated `key=value:Effect` or
 * `key:Effect`, with exactly one ':' and at most one '='.
 */
export function parseTaints(raw: string): Taint[] {
  const out: Taint[] = [];
  for (const item of raw.split(",")) {
    if (item.trim() === "") continue;
    const parts = item.split(":");
    if (parts.length !== 2) {
      throw new Error(`invalid taint spec ${JSON.stringify(item)}: expect key=value:Effect`);
    }
    const kv = parts[0].trim().split("=");
    if (kv.length > 2) {
      throw new Error(`invalid taint spec ${JSON.stringify(item)}: more than one '='`);
    }
    out.push(checkTaint({ key: kv[0], value: kv[1], effect: parts[1].trim() }));
  }
  return out;
}

/** Throws unless the key is a qualified name, the value a label value and the effect known. */
export function checkTaint(t: Taint): Taint {
  if (!t.key) throw new Error("a taint needs a key");
  if (!isQualifiedName(t.key)) {
    throw new Error(
      `invalid taint key ${JSON.stringify(t.key)}: must be a qualified name ` +
        "([prefix/]name: alphanumerics, '-', '_' or '.', at most 63 characters)",
    );
  }
  if (t.value !== undefined && !isLabelValue(t.value)) {
    throw new Error(
      `invalid taint value ${JSON.stringify(t.value)} for ${t.key}: must be a label value ` +
        "(alphanumerics, '-', '_' or '.', at most 63 characters)",
    );
  }
  if (!TAINT_EFFECTS.includes(t.effect)) {
    throw new Error(
      `invalid taint effect ${JSON.stringify(t.effect)}: must be one of ${
        TAINT_EFFECTS.join(", ")
      }`,
    );
  }
  return t.value === undefined || t.value === "" ? { key: t.key, effect: t.effect } : t;
}
