/**
 * Notices a connection that went silent: a NAT entry that timed out, an uplink that changed.
 * Nothing tells the agent: the socket stays open, requests on it wait for their deadline and the
 * next ones go on the same connection, and a watch waits for good. So while requests or watches
 * are under way and nothing has been read for `readIdleMs`, a ping goes out on the same client;
 * no answer within `pingTimeoutMs` closes the connections, which fails what waits on them and
 * makes the next request dial anew. This is golang.org/x/net/http2's health check with
 * client-go's settings (ReadIdleTimeout 30 s, PingTimeout 15 s); Deno's fetch sends no HTTP/2
 * PING frame, so the ping is a small request, multiplexed on the same HTTP/2 connection.
 */
import { type Clock, deadlineSignal } from "../util/clock.ts";

/** client-go's HTTP/2 read-idle timeout and ping timeout. */
export const READ_IDLE_MS = 30_000;
export const PING_TIMEOUT_MS = 15_000;

export interface IdleProbeDeps {
  clock: Clock;
  readIdleMs?: number;
  pingTimeoutMs?: number;
  /** A small request on the client's connection; resolves on any answer. Honours `signal`. */
  ping(signal: AbortSignal): Promise<void>;
  /** The ping went unanswered: close every connection (`reason` says why, for the log). */
  onSilent(reason: string): void;
}

export class IdleProbe {
  readonly #deps: IdleProbeDeps;
  readonly #readIdleMs: number;
  readonly #pingTimeoutMs: number;
  #lastRead: number;
  #busy = 0;
  /** Aborts the probe loop; set while it runs. */
  #loop?: AbortController;

  constructor(deps: IdleProbeDeps) {
    this.#deps = deps;
    this.#readIdleMs = deps.readIdleMs ?? READ_IDLE_MS;
    this.#pingTimeoutMs = deps.pingTimeoutMs ?? PING_TIMEOUT_MS;
    this.#lastRead = deps.clock.monotonic();
  }

  /** Bytes came in on the connection (an answer's head, a watch's chunk). */
  read(): void {
    this.#lastRead = this.#deps.clock.monotonic();
  }

  /**
   * A request or watch starts; call the returned function once when it ends. The probe runs
   * only while something is under way: an idle client costs no timer and no ping.
   */
  begin(): () => void {
    if (this.#busy++ === 0) {
      // A connection unused until now has read nothing because nothing was asked.
      this.read();
      const loop = this.#loop = new AbortController();
      this.#run(loop.signal).catch(() => undefined); // #run handles its own errors
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.#busy === 0) this.stop();
    };
  }

  /** Stops the probe loop (the client closes). */
  stop(): void {
    this.#loop?.abort();
    this.#loop = undefined;
  }

  async #run(stop: AbortSignal): Promise<void> {
    const { clock } = this.#deps;
    while (!stop.aborted) {
      const idle = clock.monotonic() - this.#lastRead;
      if (idle < this.#readIdleMs) {
        try {
          await clock.sleep(this.#readIdleMs - idle, { signal: stop });
        } catch {
          return; // stopped
        }
        continue;
      }
      const deadline = deadlineSignal(clock, this.#pingTimeoutMs, { parent: stop });
      try {
        await this.#deps.ping(deadline.signal);
        this.read();
      } catch {
        if (stop.aborted) return;
        this.#deps.onSilent(
          `nothing read for ${this.#readIdleMs} ms and no answer to a ping in ` +
            `${this.#pingTimeoutMs} ms`,
        );
        this.read(); // the next connection starts afresh
      } finally {
        deadline.cancel();
      }
    }
  }
}
