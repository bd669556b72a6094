/**
 * Polling and port helpers for end-to-end tests.
 */
import { type Clock, realClock } from "../../src/util/clock.ts";
import { DenoletError } from "../../src/util/errors.ts";

/** A `waitFor` condition did not hold in time. `cause` is the condition's last error, if any. */
export class WaitTimeoutError extends DenoletError {}

export interface WaitOptions {
  /** Give up after this long; default 30 s. */
  timeoutMs?: number;
  /** Pause between attempts; default 250 ms. */
  intervalMs?: number;
  /** What is awaited, for the failure message: "pod web to be Running". */
  what?: string;
  signal?: AbortSignal;
  /** Tests of this helper pass a FakeClock. */
  clock?: Clock;
}

/** Falsy results mean "not yet"; anything else ends the wait and is returned. */
export type Condition<T> = () =>
  | T
  | undefined
  | null
  | false
  | Promise<T | undefined | null | false>;

/**
 * Calls `fn` until it returns a truthy value, which is returned. A throw counts as "not yet"
 * and is kept: on timeout the error message names `what`, the attempts made, and the last
 * error or last value seen, so a failing e2e test says what it was waiting for.
 */
export async function waitFor<T>(fn: Condition<T>, opts: WaitOptions = {}): Promise<T> {
  const clock = opts.clock ?? realClock;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const intervalMs = opts.intervalMs ?? 250;
  const what = opts.what ?? "condition";
  const deadline = clock.now() + timeoutMs;
  let lastError: unknown;
  let lastValue: unknown;
  let attempts = 0;
  for (;;) {
    opts.signal?.throwIfAborted();
    attempts++;
    try {
      const value = await fn();
      if (value) return value;
      lastValue = value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (clock.now() + intervalMs > deadline) break;
    await clock.sleep(intervalMs, { signal: opts.signal });
  }
  const last = lastError !== undefined
    ? `last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`
    : `last result: ${String(lastValue)}`;
  throw new WaitTimeoutError(
    `Timed out after ${timeoutMs}ms waiting for ${what} (${attempts} attempts; ${last})`,
    lastError !== undefined ? { cause: lastError } : undefined,
  );
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the usual bind-then-release race applies),
 * and not one of `avoid`: ports already handed out but not yet bound, which the kernel may
 * give out again.
 */
export function freePort(avoid: Iterable<number> = []): number {
  return pickAvoiding(avoid, () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    return port;
  });
}

/** The first port `next` gives that is not in `avoid` (100 tries). Exported for its test. */
export function pickAvoiding(avoid: Iterable<number>, next: () => number): number {
  const taken = new Set(avoid);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = next();
    if (!taken.has(port)) return port;
  }
  throw new Error(`no free port outside ${[...taken].join(", ")}`);
}
