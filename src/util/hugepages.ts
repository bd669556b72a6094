/**
 * Huge page sizes in the forms the kernel's hugetlb cgroup files and the CRI use ("2MB",
 * "1GB": runc's and upstream's HugePageUnitSizeFromByteSize) and the resource names pods use
 * ("hugepages-2Mi").
 */
import { tryIntegerQuantity } from "./quantity.ts";

export const HUGEPAGES_PREFIX = "hugepages-";
const UNITS = ["B", "KB", "MB", "GB", "TB", "PB"];

/** 2097152 -> "2MB"; undefined when the size does not divide into its largest unit. */
export function hugePageSizeName(bytes: number): string | undefined {
  if (!Number.isSafeInteger(bytes) || bytes <= 0) return undefined;
  let size = bytes;
  let i = 0;
  while (size % 1024 === 0 && i < UNITS.length - 1) {
    size /= 1024;
    i++;
  }
  if (size > 1024 && i < UNITS.length - 1) return undefined;
  return `${size}${UNITS[i]}`;
}

/** "hugepages-2Mi" -> 2097152 bytes; undefined for other names or a size that does not parse. */
export function hugePageSizeOf(resource: string): number | undefined {
  if (!resource.startsWith(HUGEPAGES_PREFIX)) return undefined;
  const q = tryIntegerQuantity(resource.slice(HUGEPAGES_PREFIX.length));
  return q && q.value > 0 ? q.value : undefined;
}

/**
 * Huge page limits by cgroup size name from a resource list's hugepages-<size> entries, added
 * up when two names mean one size (upstream HugePageLimits).
 */
export function hugePageLimits(list: Record<string, unknown> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, raw] of Object.entries(list ?? {})) {
    const size = hugePageSizeOf(name);
    const key = size === undefined ? undefined : hugePageSizeName(size);
    const value = tryIntegerQuantity(raw)?.value;
    if (key === undefined || value === undefined) continue;
    out[key] = (out[key] ?? 0) + value;
  }
  return out;
}
