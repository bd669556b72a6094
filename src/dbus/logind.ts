/**
 * systemd-logind (org.freedesktop.login1) as the kubelet's shutdown manager uses it
 * (pkg/kubelet/nodeshutdown/systemd): the longest delay an inhibitor may hold a shutdown
 * (InhibitDelayMaxUSec), a "shutdown" delay inhibitor, and PrepareForShutdown signals.
 *
 * An inhibitor is a file descriptor in Inhibit's reply, held for as long as it stays open, so
 * taking one needs a connection that can receive descriptors: a short-lived one through libc
 * (`_fd_transport.ts`), loaded only here.
 */
import { DBusProtocolError } from "./_errors.ts";
import { Variant } from "./_marshal.ts";
import { connectBus, type DBusConnection, systemBusPath } from "./connection.ts";

const DEST = "org.freedesktop.login1";
const PATH = "/org/freedesktop/login1";
const MANAGER = "org.freedesktop.login1.Manager";

/** A held delay inhibitor; `release` closes its descriptor, which lets the shutdown go on. */
export interface InhibitLock {
  readonly fd: number;
  /** Idempotent. */
  release(): void;
}

/** logind's InhibitDelayMaxUSec, in milliseconds. */
export async function inhibitDelayMaxMs(
  conn: DBusConnection,
  opts: { signal?: AbortSignal } = {},
): Promise<number> {
  const reply = await conn.call({
    destination: DEST,
    path: PATH,
    interface: "org.freedesktop.DBus.Properties",
    member: "Get",
    signature: "ss",
    body: [MANAGER, "InhibitDelayMaxUSec"],
  }, opts);
  const v = reply.body[0];
  if (!(v instanceof Variant) || typeof v.value !== "bigint") {
    throw new DBusProtocolError("InhibitDelayMaxUSec from logind is not a uint64 as expected");
  }
  return Number(v.value / 1000n);
}

/**
 * Calls `fn` with PrepareForShutdown's argument (true: a shutdown is starting; false: it was
 * cancelled). Returns a function that stops the calls; the match stays on the connection.
 */
export async function watchPrepareForShutdown(
  conn: DBusConnection,
  fn: (active: boolean) => void,
  opts: { signal?: AbortSignal } = {},
): Promise<() => void> {
  const off = conn.onSignal((m) => {
    if (m.interface !== MANAGER || m.member !== "PrepareForShutdown" || m.path !== PATH) return;
    if (typeof m.body[0] === "boolean") fn(m.body[0]);
  });
  try {
    await conn.addMatch(
      `type='signal',interface='${MANAGER}',member='PrepareForShutdown',path='${PATH}'`,
      opts,
    );
  } catch (err) {
    off();
    throw err;
  }
  return off;
}

/**
 * Inhibit(what, who, why, "delay") on a connection of its own that can receive the lock's
 * descriptor; the connection is closed once the reply is in, the lock lives on.
 */
export async function inhibitDelay(
  req: { what: string; who: string; why: string },
  opts: { path?: string; signal?: AbortSignal } = {},
): Promise<InhibitLock> {
  const path = opts.path ?? systemBusPath();
  const { closeFd, fdUnixTransport } = await import("./_fd_transport.ts");
  const conn = await connectBus({ transport: await fdUnixTransport(path), signal: opts.signal });
  try {
    const reply = await conn.call({
      destination: DEST,
      path: PATH,
      interface: MANAGER,
      member: "Inhibit",
      signature: "ssss",
      body: [req.what, req.who, req.why, "delay"],
    }, opts);
    const index = reply.body[0];
    const fd = typeof index === "number" ? reply.fds[index] : undefined;
    for (const [i, other] of reply.fds.entries()) if (i !== index) closeFd(other);
    if (fd === undefined) {
      throw new DBusProtocolError(
        `Inhibit's reply carries no lock descriptor (${reply.fds.length} descriptors; the bus ` +
          `${conn.unixFds ? "agreed to" : "refused to"} pass them)`,
      );
    }
    let held = true;
    return {
      fd,
      release() {
        if (!held) return;
        held = false;
        closeFd(fd);
      },
    };
  } finally {
    conn.close();
  }
}
