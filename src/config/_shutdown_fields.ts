/**
 * Graceful node shutdown's configuration fields (KubeletConfiguration only; upstream has no
 * flags for them): shutdownGracePeriod, shutdownGracePeriodCriticalPods and
 * shutdownGracePeriodByPodPriority, with upstream's validation messages.
 */
import { ConfigError } from "../util/errors.ts";
import { formatDuration } from "./duration.ts";
import { featureEnabled } from "./_feature_gates.ts";
import { checkInt32 } from "./_values.ts";
import type { AgentConfig, ShutdownGracePeriodByPodPriority } from "./types.ts";

type Key =
  | "shutdownGracePeriodMs"
  | "shutdownGracePeriodCriticalPodsMs"
  | "shutdownGracePeriodByPodPriority";

/** A value that does not fit its field; `at` is the field's path within the file. */
export class FieldProblem extends Error {
  constructor(readonly at: string, message: string) {
    super(message);
  }
}

/**
 * The list as written: each entry a map with an int32 `priority` and an int64
 * `shutdownGracePeriodSeconds`. Throws FieldProblem naming the entry.
 */
export function parseByPodPriority(
  value: unknown,
  path: string,
): ShutdownGracePeriodByPodPriority[] {
  if (!Array.isArray(value)) {
    throw new FieldProblem(path, "expected a list of {priority, shutdownGracePeriodSeconds}");
  }
  return value.map((item, i) => {
    const at = `${path}[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw new FieldProblem(at, "expected a map {priority, shutdownGracePeriodSeconds}");
    }
    const entry = item as Record<string, unknown>;
    for (const k of Object.keys(entry)) {
      if (k !== "priority" && k !== "shutdownGracePeriodSeconds") {
        throw new FieldProblem(at, `unknown field "${k}"`);
      }
    }
    const priority = entry.priority ?? 0;
    const seconds = entry.shutdownGracePeriodSeconds ?? 0;
    if (typeof priority !== "number" || !Number.isInteger(priority)) {
      throw new FieldProblem(`${at}.priority`, "expected an integer");
    }
    if (typeof seconds !== "number" || !Number.isSafeInteger(seconds)) {
      throw new FieldProblem(`${at}.shutdownGracePeriodSeconds`, "expected an integer");
    }
    try {
      checkInt32(priority);
    } catch (e) {
      throw new FieldProblem(`${at}.priority`, (e as Error).message);
    }
    return { priority, shutdownGracePeriodSeconds: seconds };
  });
}

/** upstream ValidateKubeletConfiguration's graceful shutdown checks, in its words. */
export function validateShutdown(cfg: AgentConfig, where: (key: Key) => string): void {
  const period = cfg.shutdownGracePeriodMs;
  const critical = cfg.shutdownGracePeriodCriticalPodsMs;
  const fmt = (ms: number) => formatDuration(ms);
  const bad = (key: Key, message: string): never => {
    throw new ConfigError(where(key), `invalid configuration: ${message}`);
  };
  const gate = featureEnabled(cfg, "GracefulNodeShutdown");
  if (gate) {
    if (critical > period) {
      bad(
        "shutdownGracePeriodCriticalPodsMs",
        `shutdownGracePeriodCriticalPods ${fmt(critical)} must be <= shutdownGracePeriod ${
          fmt(period)
        }`,
      );
    }
    if (period < 0 || (period > 0 && period < 1000)) {
      bad(
        "shutdownGracePeriodMs",
        `shutdownGracePeriod ${fmt(period)} must be either zero or otherwise >= 1 sec`,
      );
    }
    if (critical < 0 || (critical > 0 && critical < 1000)) {
      bad(
        "shutdownGracePeriodCriticalPodsMs",
        `shutdownGracePeriodCriticalPods ${
          fmt(critical)
        } must be either zero or otherwise >= 1 sec`,
      );
    }
  } else if (period > 0 || critical > 0) {
    bad(
      "shutdownGracePeriodMs",
      "specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate " +
        "GracefulNodeShutdown",
    );
  }
  const byPriority = cfg.shutdownGracePeriodByPodPriority.length > 0;
  if (featureEnabled(cfg, "GracefulNodeShutdownBasedOnPodPriority")) {
    if (byPriority && (period > 0 || critical > 0)) {
      bad(
        "shutdownGracePeriodByPodPriority",
        "Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time",
      );
    }
  } else if (byPriority) {
    bad(
      "shutdownGracePeriodByPodPriority",
      "Specifying shutdownGracePeriodByPodPriority requires feature gate " +
        "GracefulNodeShutdownBasedOnPodPriority",
    );
  }
}

/** Whether the configuration asks for graceful node shutdown at all (upstream NewManager). */
export function gracefulShutdownConfigured(cfg: AgentConfig): boolean {
  if (!featureEnabled(cfg, "GracefulNodeShutdown")) return false;
  const byPriority = featureEnabled(cfg, "GracefulNodeShutdownBasedOnPodPriority") &&
    cfg.shutdownGracePeriodByPodPriority.length > 0;
  return byPriority || (cfg.shutdownGracePeriodMs > 0 &&
    cfg.shutdownGracePeriodMs >= cfg.shutdownGracePeriodCriticalPodsMs);
}
