import { createHash } from "node:crypto";

/** JSON with object keys sorted at every level, so equal objects serialize identically. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** Hex md5 of `parts` written in order (a content hash, not a security boundary). */
export function md5Hex(...parts: string[]): string {
  const h = createHash("md5");
  for (const p of parts) h.update(p);
  return h.digest("hex");
}
