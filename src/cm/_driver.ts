/**
 * Which cgroup driver the pods' cgroups use (upstream getCgroupDriverFromCRI, since 1.34): the
 * runtime's, when it says through CRI RuntimeConfig (containerd 2.x), so the kubelet and the
 * runtime can never disagree; the configured --cgroup-driver when it does not serve the call
 * (containerd 1.x).
 */
import type { Clock } from "../util/clock.ts";
import { ConfigError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import type { CgroupDriver } from "./_tree.ts";

/** The part of a CRI RuntimeConfig answer that matters here; undefined: Unimplemented. */
export type RuntimeDriverAnswer = { linux?: { cgroupDriver?: string } } | undefined;

/** upstream: three attempts, two seconds apart, for a runtime that is still starting. */
const ATTEMPTS = 3;
const RETRY_MS = 2_000;

export async function resolveCgroupDriver(
  configured: CgroupDriver,
  deps: {
    /** CRI RuntimeConfig; resolves undefined when the runtime answers Unimplemented. */
    runtimeConfig: (opts: { signal?: AbortSignal }) => Promise<RuntimeDriverAnswer>;
    logger: Logger;
    clock: Clock;
    signal?: AbortSignal;
  },
): Promise<CgroupDriver> {
  let answer: RuntimeDriverAnswer;
  let lastError: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      answer = await deps.runtimeConfig({ signal: deps.signal });
      lastError = undefined;
      break;
    } catch (err) {
      if (deps.signal?.aborted) throw err;
      lastError = err;
      if (attempt < ATTEMPTS) await deps.clock.sleep(RETRY_MS, { signal: deps.signal });
    }
  }
  if (lastError !== undefined) {
    // Upstream stops here; an edge node whose runtime starts late should still come up, with
    // the driver its configuration names.
    deps.logger.warn(
      "Cannot read the cgroup driver from the CRI runtime; using cgroupDriver from the config",
      { cgroupDriver: configured, err: errorMessage(lastError) },
    );
    return configured;
  }
  if (answer === undefined) {
    deps.logger.info(
      "CRI implementation should be updated to support RuntimeConfig. Falling back to using " +
        "cgroupDriver from kubelet config.",
      { cgroupDriver: configured },
    );
    return configured;
  }
  const d = answer.linux?.cgroupDriver;
  // An answer without its linux part says nothing (upstream: "not intended").
  if (d === undefined) return configured;
  const driver = d === "SYSTEMD" ? "systemd" : d === "CGROUPFS" ? "cgroupfs" : undefined;
  if (driver === undefined) {
    throw new ConfigError("cgroupDriver", `runtime returned an unknown cgroup driver ${d}`);
  }
  deps.logger.info("Using cgroup driver setting received from the CRI runtime", {
    cgroupDriver: driver,
  });
  return driver;
}
