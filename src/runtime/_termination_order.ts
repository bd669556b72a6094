/**
 * The order in which a pod with sidecars stops (upstream `terminationOrdering`): app
 * containers first, then the sidecars from the last in the spec to the first, so each sidecar
 * outlives the containers that may depend on it. Every container still gets its preStop hook
 * at once; only the stop signal waits for its turn, and never past the grace period.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";

export class TerminationOrder {
  /** Settles when the container of that name has stopped (at once for one not running). */
  readonly #stopped = new Map<string, PromiseWithResolvers<void>>();
  /** What each sidecar waits for before its stop signal. */
  readonly #after = new Map<string, Promise<void>[]>();

  /** `running`: names of the containers being stopped; the others count as stopped. */
  constructor(pod: V1Pod, running: string[]) {
    const live = new Set(running);
    const track = (name: string) => {
      const done = Promise.withResolvers<void>();
      if (!live.has(name)) done.resolve();
      this.#stopped.set(name, done);
      return done.promise;
    };
    const apps = (pod.spec?.containers ?? []).map((c) => track(c.name));
    let later: Promise<void> | undefined;
    for (const c of [...(pod.spec?.initContainers ?? [])].reverse()) {
      const stopped = track(c.name);
      if (c.restartPolicy !== "Always") continue;
      this.#after.set(c.name, later ? [...apps, later] : apps);
      later = stopped;
    }
  }

  /** Whether the pod has sidecars, so its stops need ordering at all. */
  static needed(pod: V1Pod | undefined): pod is V1Pod {
    return (pod?.spec?.initContainers ?? []).some((c) => c.restartPolicy === "Always");
  }

  /**
   * Waits until every container `name` must outlive has stopped, for at most `graceSeconds`
   * (0 or less: no wait). Resolves the whole seconds waited, which the caller takes off the
   * grace period. Rejects with the signal's reason when aborted.
   */
  async waitForTurn(
    name: string,
    graceSeconds: number,
    opts: { clock: Clock; signal?: AbortSignal },
  ): Promise<number> {
    const before = this.#after.get(name);
    if (!before || graceSeconds <= 0) return 0;
    const { clock, signal } = opts;
    const start = clock.monotonic();
    const done = new AbortController();
    const deadline = clock.sleep(graceSeconds * 1000, {
      signal: signal ? AbortSignal.any([signal, done.signal]) : done.signal,
    });
    try {
      await Promise.race([Promise.all(before), deadline]);
    } catch (err) {
      // The deadline rejects only when aborted; the turn itself never rejects.
      if (signal?.aborted) throw signal.reason;
      throw err;
    } finally {
      done.abort();
      // The cancelled sleep rejects; it has nothing more to say.
      await deadline.catch(() => undefined);
    }
    return Math.floor((clock.monotonic() - start) / 1000);
  }

  /** Records that `name` stopped (or will not be waited for any longer), freeing its followers. */
  stopped(name: string): void {
    this.#stopped.get(name)?.resolve();
  }
}
