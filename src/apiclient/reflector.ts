/**
 * List, then watch from the list's resourceVersion (client-go's Reflector.ListAndWatch): one
 * loop that keeps a caller's store in step with a collection. Watches resume from the last
 * resourceVersion seen (bookmarks included); a 410 Gone, an ERROR event or a broken stream
 * re-lists; failures back off from 800 ms doubling to 30 s. A watch the server ends normally
 * (its timeout) is simply opened again; one that ends in under a second with no events at all
 * counts as a failure (client-go's "very short watch"), so a proxy that closes every watch at
 * once costs a back-off and a relist each time, not a tight loop.
 */
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import { type ApiClient, ApiError, type WatchEvent } from "./types.ts";

/** A watch closed sooner than this with no events is treated as broken (as client-go). */
const SHORT_WATCH_MS = 1_000;

interface Listed<T> {
  metadata?: { resourceVersion?: string };
  items?: T[];
}

interface Versioned {
  metadata?: { resourceVersion?: string };
}

export interface ReflectorOptions<T> {
  client: ApiClient;
  /** The collection's path, e.g. `/api/v1/pods`. */
  path: string;
  fieldSelector?: string;
  labelSelector?: string;
  clock: Clock;
  logger: Logger;
  /** Every successful (re)list: the complete current set, which replaces the store. */
  onList(items: T[], resourceVersion: string): void;
  /** Each change seen by the watch, in order. */
  onEvent(type: "ADDED" | "MODIFIED" | "DELETED", object: T): void;
  /** A list failed (the loop retries it after its back-off); lets callers fall back early. */
  onListError?(err: unknown): void;
  /** Server-side watch timeout; default a random 5–10 min as client-go's. */
  watchTimeoutSeconds?: () => number;
  /** First back-off; default 800 ms (client-go), doubling to `maxBackoffMs` (30 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** Runs until the signal aborts; never rejects. */
export async function runReflector<T extends Versioned>(
  opts: ReflectorOptions<T>,
  run: { signal: AbortSignal },
): Promise<void> {
  const { signal } = run;
  const log = opts.logger.child({ reflector: opts.path });
  const failures = new RepeatedFailures(log, { clock: opts.clock });
  const firstBackoff = opts.backoffMs ?? 800;
  const maxBackoff = opts.maxBackoffMs ?? 30_000;
  let backoff = firstBackoff;
  // "0": the first list may come from the API server's watch cache, as client-go's does.
  let listFrom = "0";
  const pause = async () => {
    try {
      await opts.clock.sleep(backoff * (1 + Math.random() * 0.1), { signal });
    } catch {
      return; // aborted: the loop condition ends it
    }
    backoff = Math.min(backoff * 2, maxBackoff);
  };

  while (!signal.aborted) {
    let rv: string;
    try {
      const list = await opts.client.request<Listed<T>>({
        method: "GET",
        path: opts.path,
        query: {
          fieldSelector: opts.fieldSelector,
          labelSelector: opts.labelSelector,
          resourceVersion: listFrom,
        },
      }, { signal, timeoutMs: 60_000 });
      rv = list.metadata?.resourceVersion ?? "";
      opts.onList(list.items ?? [], rv);
      failures.clear("list");
    } catch (err) {
      if (signal.aborted) return;
      failures.warn("list", "Cannot list; will retry", { err });
      opts.onListError?.(err);
      // A stale cached RV can be refused: ask for a consistent read next time.
      listFrom = "";
      await pause();
      continue;
    }
    for (;;) {
      const end = await watchOnce(opts, { rv, signal, log }).catch((err) => {
        if (!signal.aborted) failures.warn("watch", "Watch failed; listing again", { err });
        return { kind: "relist" as const };
      });
      if (signal.aborted) return;
      if (end.kind === "closed") {
        rv = end.rv;
        failures.clear("watch");
        continue;
      }
      break;
    }
    listFrom = "";
    await pause();
  }

  async function watchOnce(
    o: ReflectorOptions<T>,
    ctx: { rv: string; signal: AbortSignal; log: Logger },
  ): Promise<{ kind: "closed"; rv: string } | { kind: "relist" }> {
    let rv = ctx.rv;
    const startedAt = o.clock.monotonic();
    let seen = 0;
    // Only a watch that worked resets the back-off: a proxy that closes every watch at once
    // must not get a fresh LIST every 800 ms (client-go's back-off keeps growing too).
    const worked = () => seen > 0 || o.clock.monotonic() - startedAt >= SHORT_WATCH_MS;
    const timeout = o.watchTimeoutSeconds?.() ?? Math.floor(300 + Math.random() * 300);
    const events = o.client.watch<T>(o.path, {
      query: {
        fieldSelector: o.fieldSelector,
        labelSelector: o.labelSelector,
        resourceVersion: rv,
        allowWatchBookmarks: true,
        timeoutSeconds: timeout,
      },
      signal: ctx.signal,
    });
    try {
      for await (const ev of events as AsyncIterable<WatchEvent<T>>) {
        if (ev.type === "ERROR") {
          const status = ev.object as { code?: number; message?: string };
          ctx.log.debug(2, "Watch ended with an error event; listing again", {
            code: status.code,
            message: status.message,
          });
          return { kind: "relist" };
        }
        seen++;
        const next = ev.object.metadata?.resourceVersion;
        if (next) rv = next;
        if (ev.type !== "BOOKMARK") o.onEvent(ev.type, ev.object);
      }
    } catch (err) {
      if (err instanceof ApiError && err.status === 410) return { kind: "relist" };
      throw err;
    } finally {
      if (worked()) backoff = firstBackoff;
    }
    if (!worked()) {
      // No duration in the text: the repeated-failure log folds identical messages.
      throw new Error(`Very short watch of ${o.path}: closed in under 1 s with no events`);
    }
    return { kind: "closed", rv };
  }
}
