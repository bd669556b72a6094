/**
 * libc's pipe and poll, for the tests that play logind: an inhibitor lock is a descriptor whose
 * far end logind watches, and the lock is released when every writer has closed it.
 */
import assert from "node:assert/strict";

export interface LibcPipes {
  /** A new pipe: [read end, write end]. */
  pipe(): [number, number];
  /** Whether every writer of the pipe has closed its end (POLLHUP on the read end). */
  hungUp(readFd: number): boolean;
  close(fd: number): void;
  /** Unloads libc; call last. */
  unload(): void;
}

export function libcPipes(): LibcPipes {
  const libc = Deno.dlopen("libc.so.6", {
    pipe: { parameters: ["buffer"], result: "i32" },
    poll: { parameters: ["buffer", "u64", "i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
  });
  return {
    pipe() {
      const fds = new Int32Array(2);
      assert.equal(libc.symbols.pipe(new Uint8Array(fds.buffer)), 0);
      return [fds[0], fds[1]];
    },
    hungUp(readFd) {
      // struct pollfd { int fd; short events; short revents; }
      const p = new Uint8Array(8);
      const v = new DataView(p.buffer);
      v.setInt32(0, readFd, true);
      v.setInt16(4, 0x1, true); // POLLIN
      assert.ok(libc.symbols.poll(p, 1n, 0) >= 0);
      return (v.getInt16(6, true) & 0x10) !== 0; // POLLHUP
    },
    close: (fd) => void libc.symbols.close(fd),
    unload: () => libc.close(),
  };
}
