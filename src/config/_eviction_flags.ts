/**
 * The eviction flags (kept apart from the main table to keep it short). Map flags follow
 * pflag/cliflag: the first occurrence on the command line replaces the default or file value,
 * later ones add to it; `--eviction-hard`/`--eviction-soft` pairs are `signal<value`
 * (LangleSeparatedMapStringString), the others `signal=value` (MapStringString).
 */
import { parseDuration } from "./duration.ts";
import { parseBool, parseInt32 } from "./_values.ts";
import { type FlagDef, mapFlag, scalar } from "./_flag_kit.ts";

/** Splits `a<b,c<d` (sep "<") or `a=b,c=d` (sep "="); empty items are skipped, sides trimmed. */
export function parseSeparatedMap(raw: string, sep: "<" | "="): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of raw.split(",")) {
    if (item === "") continue;
    const at = item.indexOf(sep);
    if (at < 0) {
      throw new Error(`malformed pair ${JSON.stringify(item)}, expect string${sep}string`);
    }
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return out;
}

/** A map flag whose pairs are `key<value` or `key=value`. */
function separatedMap(
  name: string,
  key: Parameters<typeof mapFlag>[1],
  sep: "<" | "=",
  help: string,
): FlagDef {
  return mapFlag(name, key, help, (raw) => parseSeparatedMap(raw, sep));
}

/** In help order (alphabetical, like the main table). */
export const EVICTION_FLAGS: readonly FlagDef[] = [
  scalar(
    "evict-static-pods",
    "evictStaticPods",
    undefined,
    "denolet only: let the eviction manager evict (and refuse under pressure) static pods. " +
      "Upstream treats every static pod as critical, so a standalone node would never evict " +
      "one. Pods with a priority of 2000000000 or more stay critical.",
    parseBool,
  ),
  separatedMap(
    "eviction-hard",
    "evictionHard",
    "<",
    "Hard eviction thresholds as signal<value pairs, e.g. memory.available<100Mi,nodefs.available<10% " +
      "(default memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%," +
      "imagefs.available<15%). Setting it replaces all the defaults.",
  ),
  scalar(
    "eviction-max-pod-grace-period",
    "evictionMaxPodGracePeriod",
    "int32",
    "Longest termination grace period, in seconds, given to a pod evicted for a soft threshold.",
    parseInt32,
  ),
  separatedMap(
    "eviction-minimum-reclaim",
    "evictionMinimumReclaim",
    "=",
    "How much more than the threshold to reclaim once it is met, as signal=quantity pairs, " +
      "e.g. imagefs.available=2Gi.",
  ),
  scalar(
    "eviction-pressure-transition-period",
    "evictionPressureTransitionPeriodMs",
    "duration",
    "How long a pressure condition stays true after its signal recovers.",
    parseDuration,
  ),
  separatedMap(
    "eviction-soft",
    "evictionSoft",
    "<",
    "Soft eviction thresholds as signal<value pairs, acted on once they have held for their " +
      "grace period.",
  ),
  separatedMap(
    "eviction-soft-grace-period",
    "evictionSoftGracePeriod",
    "=",
    "Grace period of each soft threshold, as signal=duration pairs, e.g. memory.available=1m30s.",
  ),
];
