/**
 * A minimal D-Bus client over the system bus's unix socket: authentication (EXTERNAL), the
 * wire format, method calls, signals, and descriptors where a reply carries one. Enough for
 * systemd's manager (the systemd cgroup driver) and logind (graceful node shutdown); loaded only
 * by those, through dynamic imports, so a cgroupfs node without a shutdown grace period never
 * loads it.
 */
export { DBusCallError, DBusConnectionError, DBusProtocolError } from "./_errors.ts";
export { type DBusValue, marshal, parseSignature, unmarshal, Variant } from "./_marshal.ts";
export {
  type DBusMessage,
  decodeMessage,
  encodeMessage,
  Flags,
  messageLength,
  MessageType,
} from "./_message.ts";
export { authExternalLine } from "./_auth.ts";
export { denoUnixTransport, type Transport } from "./_transport.ts";
export {
  type CallRequest,
  connectBus,
  type ConnectOptions,
  DBusConnection,
  DEFAULT_CALL_TIMEOUT_MS,
  type ReceivedMessage,
  type ReplyBody,
  SYSTEM_BUS_SOCKET,
  systemBusPath,
} from "./connection.ts";
export { closeFd, fdUnixTransport } from "./_fd_transport.ts";
export {
  isUnitExists,
  JOB_TIMEOUT_MS,
  prop,
  SystemdJobError,
  type SystemdManager,
  systemdManager,
  type UnitProperty,
} from "./systemd.ts";
export {
  inhibitDelay,
  inhibitDelayMaxMs,
  type InhibitLock,
  watchPrepareForShutdown,
} from "./logind.ts";
