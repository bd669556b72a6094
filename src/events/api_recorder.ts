/**
 * Events to the API server, as the kubelet's recorder sends them: source `kubelet` on this
 * host, correlated (spam filter, aggregation, count bumps) and written in the background from a
 * bounded queue, so a slow or absent API server costs events, never the caller's time.
 */
import type { CoreV1Event } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/types.ts";
import { isApiStatus } from "../apiclient/types.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import { type Correlated, EventCorrelator, type EventInput } from "./_correlator.ts";
import type { EventRecorder } from "./types.ts";

/** upstream maxQueuedEvents: beyond it new events are dropped. */
const MAX_QUEUED = 1000;

export interface ApiEventRecorder extends EventRecorder {
  /** Writes queued events until the signal aborts. Never rejects. */
  run(opts: { signal: AbortSignal }): Promise<void>;
}

export function createApiEventRecorder(deps: {
  client: ApiClient;
  nodeName: string;
  clock: Clock;
  logger: Logger;
}): ApiEventRecorder {
  const correlator = new EventCorrelator(deps.clock);
  const failures = new RepeatedFailures(deps.logger, { clock: deps.clock });
  const queue: Array<
    { input: EventInput; c: Exclude<Correlated, { action: "drop" }>; at: number }
  > = [];
  let wake: (() => void) | undefined;
  // Events of one object in the same millisecond (a Node's three conditions) would share a
  // name and all but the first be refused; upstream's nanoseconds rarely collide, so each name
  // takes the next nanosecond when its millisecond was used already.
  let lastNanos = 0n;

  const toEvent = (input: EventInput, message: string, at: number): CoreV1Event => {
    const ns = input.ref.namespace || "default";
    const time = new Date(at);
    const nanos = BigInt(at) * 1_000_000n;
    lastNanos = nanos > lastNanos ? nanos : lastNanos + 1n;
    return {
      apiVersion: "v1",
      kind: "Event",
      metadata: {
        // upstream: the object's name and the time in nanoseconds, hex.
        name: `${input.ref.name}.${lastNanos.toString(16)}`,
        namespace: ns,
      },
      involvedObject: { ...input.ref },
      reason: input.reason,
      message,
      type: input.type,
      source: { component: "kubelet", host: deps.nodeName },
      reportingComponent: "kubelet",
      reportingInstance: deps.nodeName,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    };
  };

  async function write(item: (typeof queue)[number], signal: AbortSignal): Promise<void> {
    const { input, c, at } = item;
    const ns = input.ref.namespace || "default";
    if (c.action === "patch") {
      try {
        await deps.client.request({
          method: "PATCH",
          path: `/api/v1/namespaces/${ns}/events/${c.name}`,
          patchType: "application/strategic-merge-patch+json",
          body: { count: c.count, lastTimestamp: new Date(at), message: c.message },
          metadataOnly: true,
        }, { signal });
        return;
      } catch (err) {
        if (!isApiStatus(err, 404)) throw err;
        correlator.forget(c.key); // expired in the API (1 h TTL): create it again
      }
    }
    const event = toEvent(input, c.message, at);
    await deps.client.request({
      method: "POST",
      path: `/api/v1/namespaces/${ns}/events`,
      body: event,
      // Nothing of the answer is read: its metadata alone is ~300 B instead of the whole Event.
      metadataOnly: true,
    }, { signal });
    correlator.created(c.key, event.metadata!.name!);
  }

  return {
    event(ref, type, reason, message) {
      deps.logger.debug(3, "Event", {
        object: `${ref.kind}/${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`,
        type,
        reason,
        message,
      });
      const input = { ref, type, reason, message };
      const c = correlator.correlate(input);
      if (c.action === "drop") return;
      if (queue.length >= MAX_QUEUED) return;
      queue.push({ input, c, at: deps.clock.now() });
      wake?.();
    },
    async run({ signal }) {
      while (!signal.aborted) {
        const item = queue.shift();
        if (!item) {
          await new Promise<void>((resolve) => {
            // The signal outlives the agent's every wait: a listener left on it after a wake-up
            // stays for good, and each one makes every later add/remove on it slower.
            const onAbort = () => resolve();
            signal.addEventListener("abort", onAbort, { once: true });
            wake = () => {
              signal.removeEventListener("abort", onAbort);
              resolve();
            };
          });
          wake = undefined;
          continue;
        }
        try {
          await write(item, signal);
          failures.clear("write");
        } catch (err) {
          if (signal.aborted) return;
          // upstream retries a few times, then drops: events are best effort.
          failures.warn("write", "Cannot write event; dropping it", {
            reason: item.input.reason,
            err,
          });
        }
      }
    },
  };
}
