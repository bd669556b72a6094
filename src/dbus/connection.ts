/**
 * A D-Bus connection: authentication, `Hello`, method calls matched to their replies by
 * serial, signals delivered to listeners, and (for test doubles of system services) method
 * calls answered by a handler. One read loop per connection; it ends when the bus closes the
 * stream, and every call still waiting then fails with DBusConnectionError.
 */
import { errorMessage } from "../util/log.ts";
import { authenticate, concat } from "./_auth.ts";
import { DBusCallError, DBusConnectionError, DBusProtocolError } from "./_errors.ts";
import type { DBusValue } from "./_marshal.ts";
import {
  type DBusMessage,
  decodeMessage,
  encodeMessage,
  Flags,
  messageLength,
  MessageType,
} from "./_message.ts";
import { denoUnixTransport, type Transport } from "./_transport.ts";

export const SYSTEM_BUS_SOCKET = "/run/dbus/system_bus_socket";
/** The reference implementation's default reply timeout. */
export const DEFAULT_CALL_TIMEOUT_MS = 25_000;

export interface CallRequest {
  destination?: string;
  path: string;
  interface?: string;
  member: string;
  /** The body's signature; "" or absent for none. */
  signature?: string;
  body?: DBusValue[];
  /** Descriptors the `h` values of the body index. */
  fds?: number[];
  /** Flags such as Flags.ALLOW_INTERACTIVE_AUTHORIZATION. */
  flags?: number;
}

/** A received message with the descriptors that came with it. */
export interface ReceivedMessage extends DBusMessage {
  fds: number[];
}

/** What a method call handler answers: a body, or it throws DBusCallError. */
export interface ReplyBody {
  signature?: string;
  body?: DBusValue[];
  fds?: number[];
  /** Called once the reply is written (a sender closes its copies of `fds` then). */
  onSent?: () => void;
}

export interface ConnectOptions {
  /** Default: the system bus socket (systemBusPath). Ignored when `transport` is given. */
  path?: string;
  /** A ready stream (the libc one, for fds); default Deno's unix socket to `path`. */
  transport?: Transport;
  /** Bounds connecting, authenticating and Hello. */
  signal?: AbortSignal;
}

/**
 * The system bus's socket: $DBUS_SYSTEM_BUS_ADDRESS's first `unix:path=` address when set (as
 * libdbus and godbus honour it), else the well-known path.
 */
export function systemBusPath(): string {
  const addr = Deno.env.get("DBUS_SYSTEM_BUS_ADDRESS");
  for (const entry of addr?.split(";") ?? []) {
    if (!entry.startsWith("unix:")) continue;
    for (const kv of entry.slice("unix:".length).split(",")) {
      // Values escape bytes as %xx.
      if (kv.startsWith("path=")) return decodeURIComponent(kv.slice("path=".length));
    }
  }
  return SYSTEM_BUS_SOCKET;
}

/** Connects, authenticates as this process's uid and says Hello. */
export async function connectBus(opts: ConnectOptions = {}): Promise<DBusConnection> {
  const path = opts.path ?? systemBusPath();
  const transport = opts.transport ?? await denoUnixTransport(path);
  const onAbort = () => transport.close();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const auth = await authenticate(transport, {
      uid: Deno.uid() ?? 0,
      negotiateFds: transport.passesFds,
    });
    const conn = new DBusConnection(transport, auth.rest, auth.unixFds);
    const reply = await conn.call({
      destination: "org.freedesktop.DBus",
      path: "/org/freedesktop/DBus",
      interface: "org.freedesktop.DBus",
      member: "Hello",
    }, { signal: opts.signal });
    conn.uniqueName = String(reply.body[0]);
    return conn;
  } catch (err) {
    transport.close();
    if (opts.signal?.aborted) {
      throw new DBusConnectionError(`Connecting to the bus at ${path} was aborted`, { cause: err });
    }
    throw err;
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

interface Pending {
  resolve(m: ReceivedMessage): void;
  reject(err: Error): void;
}

export class DBusConnection {
  /** The name the bus gave us (":1.42"); set by connectBus. */
  uniqueName = "";
  /** Resolves when the connection has ended (closed by either side); never rejects. */
  readonly closed: Promise<void>;
  #transport: Transport;
  #serial = 0;
  #pending = new Map<number, Pending>();
  #signalListeners = new Set<(m: ReceivedMessage) => void>();
  #callHandler?: (m: ReceivedMessage) => ReplyBody | undefined | Promise<ReplyBody | undefined>;
  #fdQueue: number[] = [];
  #ended?: Error;
  /** Writes go one after another: a message's bytes must not interleave with another's. */
  #writes: Promise<void> = Promise.resolve();

  constructor(transport: Transport, initial: Uint8Array, readonly unixFds: boolean) {
    this.#transport = transport;
    this.closed = this.#readLoop(initial).catch((err) => {
      this.#end(err instanceof Error ? err : new Error(String(err)));
    });
  }

  /**
   * Calls a method and resolves with its reply; rejects with DBusCallError for an error reply,
   * DBusConnectionError when the connection ends first, or the abort reason / a timeout error
   * after `timeoutMs` (default 25 s). The call itself cannot be withdrawn once sent.
   */
  async call(
    req: CallRequest,
    opts: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<ReceivedMessage> {
    if (this.#ended) {
      throw new DBusConnectionError("The bus connection has ended", { cause: this.#ended });
    }
    const serial = this.#nextSerial();
    const bytes = encodeMessage({
      type: MessageType.METHOD_CALL,
      flags: req.flags,
      serial,
      destination: req.destination,
      path: req.path,
      interface: req.interface,
      member: req.member,
      signature: req.signature ?? "",
      body: req.body ?? [],
      unixFds: req.fds?.length || undefined,
    });
    const deadline = AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
    const reply = new Promise<ReceivedMessage>((resolve, reject) => {
      const onAbort = () => {
        this.#pending.delete(serial);
        reject(
          signal.reason instanceof Error && signal.reason.name === "TimeoutError"
            ? new DBusConnectionError(`No reply to ${req.interface}.${req.member} in time`, {
              cause: signal.reason,
            })
            : signal.reason,
        );
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(serial, {
        resolve: (m) => {
          signal.removeEventListener("abort", onAbort);
          resolve(m);
        },
        reject: (err) => {
          signal.removeEventListener("abort", onAbort);
          reject(err);
        },
      });
    });
    // Awaited below; the connection may end while the request is still being written.
    reply.catch(() => undefined);
    try {
      await this.#write(bytes, req.fds);
    } catch (err) {
      this.#pending.get(serial)?.reject(err as Error);
    }
    const m = await reply;
    if (m.type === MessageType.ERROR) {
      const text = typeof m.body[0] === "string" ? m.body[0] : "";
      throw new DBusCallError(m.errorName ?? "org.freedesktop.DBus.Error.Failed", text);
    }
    return m;
  }

  /** Asks the bus to route signals matching `rule` (match rule syntax) to us. */
  async addMatch(rule: string, opts: { signal?: AbortSignal } = {}): Promise<void> {
    await this.call({
      destination: "org.freedesktop.DBus",
      path: "/org/freedesktop/DBus",
      interface: "org.freedesktop.DBus",
      member: "AddMatch",
      signature: "s",
      body: [rule],
    }, opts);
  }

  /** Calls `fn` for every signal received; returns a function that removes it. */
  onSignal(fn: (m: ReceivedMessage) => void): () => void {
    this.#signalListeners.add(fn);
    return () => this.#signalListeners.delete(fn);
  }

  /**
   * Answers incoming method calls (test doubles of system services): the handler's body is
   * the reply, a DBusCallError becomes an error reply, undefined means UnknownMethod.
   */
  handleCalls(
    fn: (m: ReceivedMessage) => ReplyBody | undefined | Promise<ReplyBody | undefined>,
  ): void {
    this.#callHandler = fn;
  }

  /** Sends a signal (test doubles of system services). */
  async emitSignal(
    s: { path: string; interface: string; member: string; signature?: string; body?: DBusValue[] },
  ): Promise<void> {
    await this.#write(encodeMessage({
      type: MessageType.SIGNAL,
      serial: this.#nextSerial(),
      path: s.path,
      interface: s.interface,
      member: s.member,
      signature: s.signature ?? "",
      body: s.body ?? [],
    }));
  }

  /** Ends the connection; calls still waiting fail. Idempotent. */
  close(): void {
    this.#end(new DBusConnectionError("The bus connection was closed"));
  }

  #write(bytes: Uint8Array, fds?: readonly number[]): Promise<void> {
    const next = this.#writes.then(() => this.#transport.write(bytes, fds));
    this.#writes = next.catch(() => undefined); // the failure is the caller's to see
    return next;
  }

  #nextSerial(): number {
    this.#serial = this.#serial >= 0xffffffff ? 1 : this.#serial + 1;
    return this.#serial;
  }

  async #readLoop(initial: Uint8Array): Promise<void> {
    let buf = initial;
    for (;;) {
      for (;;) {
        const len = messageLength(buf);
        if (len === 0 || buf.length < len) break;
        const m = decodeMessage(buf.subarray(0, len));
        buf = buf.slice(len);
        const fds = this.#fdQueue.splice(0, m.unixFds ?? 0);
        this.#dispatch({ ...m, fds });
      }
      const chunk = await this.#transport.read();
      if (chunk === null) {
        this.#end(new DBusConnectionError("The bus closed the connection"));
        return;
      }
      this.#fdQueue.push(...chunk.fds);
      buf = concat(buf, chunk.data);
    }
  }

  #dispatch(m: ReceivedMessage): void {
    switch (m.type) {
      case MessageType.METHOD_RETURN:
      case MessageType.ERROR: {
        const p = this.#pending.get(m.replySerial!);
        this.#pending.delete(m.replySerial!);
        // The caller owns the descriptors of its reply; nobody would close those of a late one.
        if (p) p.resolve(m);
        else this.#closeFds(m.fds);
        return;
      }
      case MessageType.SIGNAL:
        for (const fn of this.#signalListeners) fn(m);
        this.#closeFds(m.fds);
        return;
      case MessageType.METHOD_CALL:
        // Only a write can fail here: the stream is broken, so the connection ends.
        this.#answer(m).catch((err) => this.#end(err instanceof Error ? err : new Error(`${err}`)));
        return;
    }
  }

  async #answer(m: ReceivedMessage): Promise<void> {
    if ((m.flags ?? 0) & Flags.NO_REPLY_EXPECTED) {
      await this.#callHandler?.(m);
      return;
    }
    let reply: DBusMessage;
    try {
      const isPing = m.interface === "org.freedesktop.DBus.Peer" && m.member === "Ping";
      const out = isPing ? {} : await this.#callHandler?.(m);
      if (out === undefined) {
        throw new DBusCallError(
          "org.freedesktop.DBus.Error.UnknownMethod",
          `No such method ${m.interface}.${m.member}`,
        );
      }
      reply = {
        type: MessageType.METHOD_RETURN,
        serial: this.#nextSerial(),
        replySerial: m.serial,
        destination: m.sender,
        signature: out.signature ?? "",
        body: out.body ?? [],
        unixFds: out.fds?.length || undefined,
      };
      await this.#write(encodeMessage(reply), out.fds);
      out.onSent?.();
      return;
    } catch (err) {
      const name = err instanceof DBusCallError
        ? err.errorName
        : "org.freedesktop.DBus.Error.Failed";
      const text = err instanceof DBusCallError
        ? err.message.slice(name.length + 2)
        : errorMessage(err);
      reply = {
        type: MessageType.ERROR,
        serial: this.#nextSerial(),
        replySerial: m.serial,
        destination: m.sender,
        errorName: name,
        signature: "s",
        body: [text],
      };
    }
    await this.#write(encodeMessage(reply));
  }

  #closeFds(fds: number[]): void {
    for (const fd of fds) this.#transport.closeFd?.(fd);
  }

  #end(reason: Error): void {
    if (this.#ended) return;
    this.#ended = reason;
    this.#transport.close();
    for (const p of this.#pending.values()) {
      p.reject(
        new DBusConnectionError("The bus connection ended before the reply", { cause: reason }),
      );
    }
    this.#pending.clear();
  }
}

export { DBusCallError, DBusConnectionError, DBusProtocolError };
