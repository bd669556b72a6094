/**
 * JSON encoding as the Kubernetes API writes it: `metav1.Time` is RFC 3339 with seconds
 * precision in UTC (`2026-11-22T02:13:24Z`), not JavaScript's millisecond ISO form.
 */
export function toKubeJson(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
    // JSON.stringify has already applied Date#toJSON to `v`; the holder still has the Date.
    const raw = this[key];
    return raw instanceof Date ? rfc3339(raw) : v;
  });
}

/** `2026-11-22T02:13:24Z`; sub-second digits are dropped like metav1.Time does. */
export function rfc3339(d: Date | number): string {
  const date = typeof d === "number" ? new Date(d) : d;
  if (Number.isNaN(date.getTime())) return "";
  return date.toISOString().replace(/\.\d+Z$/, "Z");
}
