/**
 * A unix socket through libc (Deno FFI), for the one thing Deno's sockets cannot do: receive
 * (and send) file descriptors as SCM_RIGHTS ancillary data. logind hands out a delay inhibitor
 * as a file descriptor, held for as long as it stays open; a plain read(2) would discard it and
 * so release the lock at once.
 *
 * The socket is non-blocking: sendmsg/recvmsg run on the JS thread (so errno is theirs to read)
 * and only poll(2) waits, on Deno's blocking pool, for at most a second at a time so that a
 * closed transport never leaves a thread behind for long. Loaded only when an fd must travel.
 */
import { DBusConnectionError } from "./_errors.ts";
import type { Transport } from "./_transport.ts";

const SYMBOLS = {
  socket: { parameters: ["i32", "i32", "i32"], result: "i32" },
  connect: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  sendmsg: { parameters: ["i32", "buffer", "i32"], result: "isize" },
  recvmsg: { parameters: ["i32", "buffer", "i32"], result: "isize" },
  poll: { parameters: ["buffer", "u64", "i32"], result: "i32", nonblocking: true },
  close: { parameters: ["i32"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SOCK_NONBLOCK = 0o4000;
const SOCK_CLOEXEC = 0o2000000;
const SOL_SOCKET = 1;
const SCM_RIGHTS = 1;
const MSG_DONTWAIT = 0x40;
const MSG_NOSIGNAL = 0x4000;
const MSG_CTRUNC = 0x8;
const MSG_CMSG_CLOEXEC = 0x40000000;
const POLLIN = 0x1;
const POLLOUT = 0x4;
const EINTR = 4;
const EAGAIN = 11;
/** Room for this many descriptors per read; D-Bus allows 16 per message by default. */
const MAX_FDS = 32;
const POLL_SLICE_MS = 1_000;

let libc: Libc | undefined;

/** libc through FFI; throws DBusConnectionError when it cannot be loaded. */
export function loadLibc(): Libc {
  if (libc) return libc;
  try {
    libc = Deno.dlopen("libc.so.6", SYMBOLS).symbols;
  } catch (err) {
    throw new DBusConnectionError("Cannot load libc.so.6 to pass file descriptors", {
      cause: err,
    });
  }
  return libc;
}

function errno(c: Libc): number {
  const p = c.__errno_location();
  return p === null ? 0 : new Deno.UnsafePointerView(p).getInt32();
}

/** Closes a descriptor received over D-Bus (an inhibitor lock, say). */
export function closeFd(fd: number): void {
  if (loadLibc().close(fd) < 0) {
    throw new DBusConnectionError(`Cannot close file descriptor ${fd}: errno ${errno(loadLibc())}`);
  }
}

/** Connects to the unix socket at `path` through libc. */
export function fdUnixTransport(path: string): Promise<Transport> {
  const c = loadLibc();
  const fd = c.socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new DBusConnectionError(`socket(AF_UNIX): errno ${errno(c)}`);
  // struct sockaddr_un: sa_family_t (u16), then sun_path[108].
  const addr = new Uint8Array(110);
  new DataView(addr.buffer).setUint16(0, AF_UNIX, true);
  const name = new TextEncoder().encode(path);
  if (name.length >= 108) throw new DBusConnectionError(`socket path too long: ${path}`);
  addr.set(name, 2);
  // A unix stream connect completes at once, or fails (EAGAIN only when the backlog is full).
  if (c.connect(fd, addr, 2 + name.length + 1) < 0) {
    const e = errno(c);
    c.close(fd);
    throw new DBusConnectionError(`Cannot connect to the bus at ${path}: errno ${e}`);
  }
  return Promise.resolve(new FdTransport(c, fd, path));
}

class FdTransport implements Transport {
  readonly passesFds = true;
  #closed = false;
  #fdClosed = false;
  #busy = 0;
  // msghdr (56 bytes), one iovec (16), the data buffer and the control buffer are reused;
  // their addresses are written into msghdr once, since V8 never moves a backing store.
  #data = new Uint8Array(64 * 1024);
  #control = new Uint8Array(16 + 4 * MAX_FDS);
  #iov = new Uint8Array(16);
  #msg = new Uint8Array(56);
  #pollfd = new Uint8Array(8);

  constructor(
    private readonly c: Libc,
    private readonly fd: number,
    private readonly path: string,
  ) {
    new DataView(this.#pollfd.buffer).setInt32(0, fd, true);
  }

  #prepare(data: Uint8Array, controlLen: number): void {
    const iov = new DataView(this.#iov.buffer);
    iov.setBigUint64(0, ptr(data), true);
    iov.setBigUint64(8, BigInt(data.length), true);
    const msg = new DataView(this.#msg.buffer);
    msg.setBigUint64(0, 0n, true); // msg_name
    msg.setUint32(8, 0, true); // msg_namelen
    msg.setBigUint64(16, ptr(this.#iov), true); // msg_iov
    msg.setBigUint64(24, 1n, true); // msg_iovlen
    msg.setBigUint64(32, controlLen ? ptr(this.#control) : 0n, true); // msg_control
    msg.setBigUint64(40, BigInt(controlLen), true); // msg_controllen
    msg.setInt32(48, 0, true); // msg_flags
  }

  /** Waits until the socket is ready for `events`; false once closed. */
  async #wait(events: number): Promise<boolean> {
    const view = new DataView(this.#pollfd.buffer);
    while (!this.#closed) {
      view.setInt16(4, events, true);
      view.setInt16(6, 0, true);
      const n = await this.c.poll(this.#pollfd, 1n, POLL_SLICE_MS);
      if (n > 0) return true;
    }
    return false;
  }

  async write(data: Uint8Array, fds: readonly number[] = []): Promise<void> {
    this.#busy++;
    try {
      let off = 0;
      let pending = [...fds];
      while (off < data.length) {
        if (this.#closed) {
          throw new DBusConnectionError(`The bus connection to ${this.path} is closed`);
        }
        // A copy: its own buffer, whose address is the data's first byte.
        const chunk = data.slice(off);
        let controlLen = 0;
        if (pending.length) {
          controlLen = 16 + 4 * pending.length;
          const cv = new DataView(this.#control.buffer);
          cv.setBigUint64(0, BigInt(controlLen), true); // cmsg_len
          cv.setInt32(8, SOL_SOCKET, true);
          cv.setInt32(12, SCM_RIGHTS, true);
          pending.forEach((f, i) => cv.setInt32(16 + 4 * i, f, true));
        }
        this.#prepare(chunk, controlLen);
        const n = Number(this.c.sendmsg(this.fd, this.#msg, MSG_NOSIGNAL | MSG_DONTWAIT));
        if (n < 0) {
          const e = errno(this.c);
          if (e === EINTR) continue;
          if (e === EAGAIN && (await this.#wait(POLLOUT))) continue;
          throw new DBusConnectionError(`Cannot write to the bus at ${this.path}: errno ${e}`);
        }
        off += n;
        pending = [];
      }
    } finally {
      this.#done();
    }
  }

  async read(): Promise<{ data: Uint8Array; fds: number[] } | null> {
    this.#busy++;
    try {
      for (;;) {
        if (this.#closed) return null;
        this.#prepare(this.#data, this.#control.length);
        const n = Number(
          this.c.recvmsg(this.fd, this.#msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC),
        );
        if (n < 0) {
          const e = errno(this.c);
          if (e === EINTR) continue;
          if (e === EAGAIN && (await this.#wait(POLLIN))) continue;
          if (this.#closed) return null;
          throw new DBusConnectionError(`Cannot read from the bus at ${this.path}: errno ${e}`);
        }
        if (n === 0) return null;
        return { data: this.#data.slice(0, n), fds: this.#fds() };
      }
    } finally {
      this.#done();
    }
  }

  /** The descriptors in the control buffer recvmsg filled. */
  #fds(): number[] {
    const msg = new DataView(this.#msg.buffer);
    const len = Number(msg.getBigUint64(40, true));
    if (msg.getInt32(48, true) & MSG_CTRUNC) {
      throw new DBusConnectionError("More file descriptors arrived than there was room for");
    }
    const out: number[] = [];
    const cv = new DataView(this.#control.buffer);
    let off = 0;
    while (off + 16 <= len) {
      const cmsgLen = Number(cv.getBigUint64(off, true));
      if (cmsgLen < 16) break;
      if (cv.getInt32(off + 8, true) === SOL_SOCKET && cv.getInt32(off + 12, true) === SCM_RIGHTS) {
        for (let p = off + 16; p + 4 <= off + cmsgLen; p += 4) out.push(cv.getInt32(p, true));
      }
      off += (cmsgLen + 7) & ~7;
    }
    return out;
  }

  closeFd(fd: number): void {
    this.c.close(fd);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    // A read or write in flight sees the flag within a poll slice; the fd is closed after it.
    this.#closeFd();
  }

  #done(): void {
    this.#busy--;
    this.#closeFd();
  }

  #closeFd(): void {
    if (!this.#closed || this.#busy > 0 || this.#fdClosed) return;
    this.#fdClosed = true;
    this.c.close(this.fd);
  }
}

function ptr(buf: Uint8Array): bigint {
  return BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(buf as Uint8Array<ArrayBuffer>)));
}
