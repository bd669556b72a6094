/**
 * Walking paths by file descriptor, one component at a time, for subPath mounts that a symlink
 * swap cannot redirect (pkg/volume/util/subpath/subpath_linux.go doSafeOpen, doSafeMakeDir).
 * Deno's file API looks every path up by name again, so it cannot hold on to a directory while
 * checking it; openat(2) with O_NOFOLLOW can. The real implementation calls libc through FFI,
 * loaded on first use so an agent without subPath mounts never loads native code; unit tests
 * pass a fake.
 */
import { DenoletError } from "../util/errors.ts";

/** A file-system call that failed; `code` is the errno name ("ENOENT", "ELOOP", ...). */
export class FsCallError extends DenoletError {
  constructor(readonly code: string, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

export type FileKind = "directory" | "file" | "symlink" | "other";

/** What an open descriptor refers to. */
export interface FdInfo {
  kind: FileKind;
  /** Permission bits, with setuid, setgid and sticky. */
  mode: number;
  /** Device and inode number: two descriptors with the same id hold the same file. */
  id: string;
}

/**
 * Path-only descriptors (O_PATH): they pin a file without reading it, so a FIFO put in the way
 * cannot block the agent. Every method is synchronous and fast on local file systems. Failures
 * throw FsCallError with the errno name.
 */
export interface FdFs {
  /**
   * Opens the absolute `path`. Symlinks in its directories are followed, the last component's
   * is not: a symlink there yields a descriptor of the link itself (stat says "symlink").
   */
  openRoot(path: string): number;
  /**
   * Opens the single component `name` inside the directory `dirFd` without following a symlink
   * (as openRoot). ENOENT when it does not exist, ENOTDIR when `dirFd` is not a directory.
   */
  openAt(dirFd: number, name: string): number;
  /** Creates the directory `name` inside `dirFd` (the umask applies). EEXIST when present. */
  mkdirAt(dirFd: number, name: string, mode: number): void;
  /** What `fd` refers to; never follows it. */
  stat(fd: number): FdInfo;
  /** Sets the permission bits of the file `fd` holds (not of a path looked up again). */
  chmod(fd: number, mode: number): void;
  close(fd: number): void;
  /**
   * A path naming exactly the file `fd` holds, usable by other processes (mount(8)) while the
   * descriptor stays open: /proc/<agent pid>/fd/<fd>.
   */
  procPath(fd: number): string;
}

const ERRNO_NAMES: Record<number, string> = {
  1: "EPERM",
  2: "ENOENT",
  9: "EBADF",
  13: "EACCES",
  17: "EEXIST",
  20: "ENOTDIR",
  21: "EISDIR",
  22: "EINVAL",
  24: "EMFILE",
  28: "ENOSPC",
  30: "EROFS",
  36: "ENAMETOOLONG",
  38: "ENOSYS",
  40: "ELOOP",
};

const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_EMPTY_PATH = 0x1000;
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;
// arm64 keeps 32-bit ARM's values for these two; everything else uses asm-generic's.
const O_NOFOLLOW = Deno.build.arch === "aarch64" ? 0o100000 : 0o400000;
const OPEN_FLAGS = O_PATH | O_NOFOLLOW | O_CLOEXEC;

const STATX_TYPE = 0x1;
const STATX_MODE = 0x2;
const STATX_INO = 0x100;
/** struct statx is 256 bytes with the same layout on every architecture. */
const STATX_SIZE = 256;
const S_IFMT = 0o170000;
const KINDS: Record<number, FileKind> = {
  0o040000: "directory",
  0o100000: "file",
  0o120000: "symlink",
};

const SYMBOLS = {
  // openat is variadic in C; the mode argument is only read with O_CREAT, which is never passed.
  openat: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  mkdirat: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

function cString(s: string): Uint8Array<ArrayBuffer> {
  if (s.includes("\0")) throw new FsCallError("EINVAL", `path ${JSON.stringify(s)} contains NUL`);
  return new TextEncoder().encode(s + "\0");
}

/** The FdFs of this Linux host: libc's openat, mkdirat and statx through Deno FFI. */
export function libcFdFs(): FdFs {
  let libc: Libc | undefined;
  const sym = (): Libc => {
    if (!libc) {
      try {
        libc = Deno.dlopen("libc.so.6", SYMBOLS).symbols;
      } catch (err) {
        throw new FsCallError("ENOSYS", "Cannot load libc.so.6 for subPath mounts", {
          cause: err,
        });
      }
    }
    return libc;
  };
  // Calls are synchronous on the JS thread, so errno is still the failed call's when read.
  const fail = (what: string): FsCallError => {
    const ptr = sym().__errno_location();
    const errno = ptr === null ? 0 : new Deno.UnsafePointerView(ptr).getInt32();
    const code = ERRNO_NAMES[errno] ?? `errno ${errno}`;
    return new FsCallError(code, `${what}: ${code}`);
  };
  const open = (dirFd: number, path: string, what: string): number => {
    const fd = sym().openat(dirFd, cString(path), OPEN_FLAGS);
    if (fd < 0) throw fail(what);
    return fd;
  };
  return {
    openRoot: (path) => open(AT_FDCWD, path, `open ${path}`),
    openAt: (dirFd, name) => open(dirFd, name, `openat ${name}`),
    mkdirAt(dirFd, name, mode) {
      if (sym().mkdirat(dirFd, cString(name), mode) < 0) throw fail(`mkdirat ${name}`);
    },
    stat(fd) {
      const buf = new Uint8Array(STATX_SIZE);
      const mask = STATX_TYPE | STATX_MODE | STATX_INO;
      const rc = sym().statx(fd, cString(""), AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, mask, buf);
      if (rc < 0) throw fail(`statx fd ${fd}`);
      const view = new DataView(buf.buffer);
      if ((view.getUint32(0, true) & mask) !== mask) {
        throw new FsCallError("ENOSYS", `statx fd ${fd}: type, mode or inode not reported`);
      }
      const mode = view.getUint16(28, true);
      const ino = view.getBigUint64(32, true);
      const devMajor = view.getUint32(136, true);
      const devMinor = view.getUint32(140, true);
      return {
        kind: KINDS[mode & S_IFMT] ?? "other",
        mode: mode & 0o7777,
        id: `${devMajor}:${devMinor}:${ino}`,
      };
    },
    chmod(fd, mode) {
      // fchmod refuses O_PATH descriptors; the /proc link reaches the very file they hold.
      try {
        Deno.chmodSync(`/proc/self/fd/${fd}`, mode);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        throw new FsCallError(typeof code === "string" ? code : "EIO", `chmod fd ${fd}`, {
          cause: err,
        });
      }
    },
    close(fd) {
      if (sym().close(fd) < 0) throw fail(`close fd ${fd}`);
    },
    procPath: (fd) => `/proc/${Deno.pid}/fd/${fd}`,
  };
}
