/**
 * The client side of D-Bus authentication ("Authentication Protocol" in the specification): a
 * NUL byte, `AUTH EXTERNAL <hex of the uid's decimal digits>` (the bus checks the uid against
 * the socket's peer credentials), optionally `NEGOTIATE_UNIX_FD`, then `BEGIN`, after which the
 * stream carries messages.
 */
import { DBusConnectionError, DBusProtocolError } from "./_errors.ts";
import type { Transport } from "./_transport.ts";

export interface AuthResult {
  /** The server's GUID from its OK line. */
  guid: string;
  /** Whether the server agreed to pass unix fds. */
  unixFds: boolean;
  /** Bytes read past the last line (the start of the first message, if the server hurried). */
  rest: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `AUTH EXTERNAL` with `uid` as the authorization identity, hex-encoded as the spec asks. */
export function authExternalLine(uid: number): string {
  const hex = [...`${uid}`].map((ch) => ch.charCodeAt(0).toString(16).padStart(2, "0")).join("");
  return `AUTH EXTERNAL ${hex}\r\n`;
}

/** Runs the exchange; throws DBusConnectionError when the server rejects us. */
export async function authenticate(
  transport: Transport,
  opts: { uid: number; negotiateFds: boolean },
): Promise<AuthResult> {
  let buffered: Uint8Array = new Uint8Array(0);
  const line = async (): Promise<string> => {
    for (;;) {
      const end = buffered.indexOf(0x0a);
      if (end >= 0) {
        const text = decoder.decode(buffered.subarray(0, end)).replace(/\r$/, "");
        buffered = buffered.slice(end + 1);
        return text;
      }
      if (buffered.length > 16 * 1024) throw new DBusProtocolError("authentication line too long");
      const chunk = await transport.read();
      if (chunk === null) {
        throw new DBusConnectionError("The bus closed the connection during authentication");
      }
      buffered = concat(buffered, chunk.data);
    }
  };
  await transport.write(encoder.encode(`\0${authExternalLine(opts.uid)}`));
  const ok = await line();
  if (!ok.startsWith("OK ")) {
    throw new DBusConnectionError(
      `The bus refused EXTERNAL authentication as uid ${opts.uid}: ${ok}`,
    );
  }
  let unixFds = false;
  if (opts.negotiateFds) {
    await transport.write(encoder.encode("NEGOTIATE_UNIX_FD\r\n"));
    const answer = await line();
    unixFds = answer === "AGREE_UNIX_FD";
  }
  await transport.write(encoder.encode("BEGIN\r\n"));
  return { guid: ok.slice(3).trim(), unixFds, rest: buffered };
}

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
