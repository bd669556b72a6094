/** What can go wrong talking D-Bus, by kind. */
import { DenoletError } from "../util/errors.ts";

/** Bytes that break the wire format or the authentication exchange. */
export class DBusProtocolError extends DenoletError {}

/** The bus cannot be reached, refused us, or the connection ended. */
export class DBusConnectionError extends DenoletError {}

/**
 * The peer answered a call with an error message: `name` is the D-Bus error name
 * (`org.freedesktop.systemd1.NoSuchUnit`), the message its first string argument.
 */
export class DBusCallError extends DenoletError {
  constructor(readonly errorName: string, message: string, options?: ErrorOptions) {
    super(`${errorName}: ${message}`, options);
  }
}
