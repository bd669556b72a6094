/**
 * The flags and file fields of what pods may use beyond cpu and memory requests (kept apart from
 * the main table to keep it short), with their defaults and checks. Upstream: --pod-max-pids /
 * podPidsLimit.
 */
import { scalar } from "./_flag_kit.ts";
import type { FlagDef } from "./_flag_kit.ts";
import type { AgentConfig } from "./types.ts";

export type ResourceKey = "podPidsLimit";

/** The defaults (upstream's v1beta1 defaults; the flag defaults are the same). */
export function resourceDefaults(): Pick<AgentConfig, ResourceKey> {
  return { podPidsLimit: -1 };
}

/** Go's int64 flags: any decimal integer JS holds exactly. */
export function parseInt64(raw: string): number {
  if (!/^[+-]?\d+$/.test(raw)) throw new Error(`expected an integer, got ${JSON.stringify(raw)}`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${raw} is out of range`);
  return n;
}

/** In help order. */
export const RESOURCE_FLAGS: readonly FlagDef[] = [
  scalar(
    "pod-max-pids",
    "podPidsLimit",
    "int",
    "Maximum number of processes (pids.max) of each pod's cgroup; -1 leaves pods bounded by " +
      "the node's pid capacity only.",
    parseInt64,
  ),
];

export type FieldReader<Ctx> = (value: unknown, ctx: Ctx, path: string) => void;

type KeyOf<T> = { [K in ResourceKey]: AgentConfig[K] extends T ? K : never }[ResourceKey];

/** What the config-file reader lends to the readers below (no import cycle). */
export interface ResourceFileKit<Ctx> {
  int64(key: KeyOf<number>): FieldReader<Ctx>;
}

/** The KubeletConfiguration fields, by upstream JSON name. */
export function resourceFileFields<Ctx>(
  k: ResourceFileKit<Ctx>,
): Record<string, FieldReader<Ctx>> {
  return {
    // A pointer upstream: 0 is kept (and, as upstream, means no pod limit, like -1).
    podPidsLimit: k.int64("podPidsLimit"),
  };
}
