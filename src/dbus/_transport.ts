/**
 * The byte stream under a D-Bus connection. Deno's own unix sockets carry everything but file
 * descriptors; a call whose reply holds one (logind's Inhibit) needs the libc transport
 * (`_fd_transport.ts`), loaded only then.
 */
import { DBusConnectionError } from "./_errors.ts";

export interface Transport {
  /** Whether file descriptors can travel (SCM_RIGHTS). */
  readonly passesFds: boolean;
  /**
   * Writes all of `data`, with `fds` attached to its first byte. Rejects with
   * DBusConnectionError when the stream is gone; a transport that cannot pass fds throws for any.
   */
  write(data: Uint8Array, fds?: readonly number[]): Promise<void>;
  /**
   * The next bytes, with the fds that came with them; null at the end of the stream or once
   * closed. One read at a time.
   */
  read(): Promise<{ data: Uint8Array; fds: number[] } | null>;
  /** Ends the stream; a pending read resolves null. Idempotent. */
  close(): void;
  /** Closes a descriptor that arrived over this stream (those nobody claimed). */
  closeFd?(fd: number): void;
}

/** Connects to a unix socket with Deno's networking. */
export async function denoUnixTransport(path: string): Promise<Transport> {
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path });
  } catch (err) {
    throw new DBusConnectionError(`Cannot connect to the bus at ${path}`, { cause: err });
  }
  const buf = new Uint8Array(64 * 1024);
  let closed = false;
  return {
    passesFds: false,
    async write(data, fds) {
      if (fds?.length) {
        throw new DBusConnectionError("This connection cannot pass file descriptors");
      }
      try {
        let off = 0;
        while (off < data.length) off += await conn.write(data.subarray(off));
      } catch (err) {
        throw new DBusConnectionError(`Cannot write to the bus at ${path}`, { cause: err });
      }
    },
    async read() {
      if (closed) return null;
      let n: number | null;
      try {
        n = await conn.read(buf);
      } catch (err) {
        if (closed) return null;
        throw new DBusConnectionError(`Cannot read from the bus at ${path}`, { cause: err });
      }
      return n === null ? null : { data: buf.slice(0, n), fds: [] };
    },
    close() {
      if (closed) return;
      closed = true;
      conn.close();
    },
  };
}
