/**
 * Web streams over node:net sockets for the HTTPS node API (secure_serve.ts): a socket's bytes
 * as a ReadableStream with back-pressure, a WritableStream that waits for the socket to drain,
 * and the wait on a ServerResponse's drain.
 */
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { DenoletError } from "../util/errors.ts";

/**
 * Writes `chunk` and resolves once it went to the socket (its write callback) or `res` closed.
 * Waiting for each chunk keeps the end of a chunked body out of the data's write: a Go client
 * reads data and a buffered terminating chunk in one Read that also returns EOF, and the API
 * server's websocket log stream (k8s.io/streaming wsstream messageCopy) drops the bytes of such
 * a read, so a short log written at once with its end reached websocket clients empty. The
 * kubelet flushes every write, which sends its end apart in the same way.
 *
 * An empty chunk is not written: Deno's node:https writes nothing for it and never calls back,
 * so a stream's empty chunk (journalctl's empty stderr after its output) left the response
 * waiting, never ended.
 */
export function writeFlushed(res: ServerResponse, chunk: Uint8Array): Promise<void> {
  if (chunk.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off("close", done);
      resolve();
    };
    res.on("close", done);
    // An error here also closes `res`; the caller sees that as the client going away.
    res.write(chunk, () => done());
  });
}

/** Resolves once `res` drained its buffer or closed. */
export function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** A socket's incoming bytes as a stream, paused while the consumer is behind. */
export function readableOf(socket: Socket): ReadableStream<Uint8Array> {
  let closed = false;
  return new ReadableStream<Uint8Array>({
    start(c) {
      socket.on("data", (d: Uint8Array) => {
        if (closed) return;
        c.enqueue(new Uint8Array(d));
        if ((c.desiredSize ?? 1) <= 0) socket.pause();
      });
      socket.once("end", () => {
        if (!closed) {
          closed = true;
          c.close();
        }
      });
      socket.once("error", (err: Error) => {
        if (!closed) {
          closed = true;
          c.error(err);
        }
      });
      socket.once("close", () => {
        if (!closed) {
          closed = true;
          c.close();
        }
      });
    },
    pull() {
      socket.resume();
    },
    cancel() {
      closed = true;
      socket.destroy();
    },
  }, { highWaterMark: 4 });
}

/** Writes into a socket, waiting for it to drain; closing ends it, aborting destroys it. */
export function writableOf(socket: Socket): WritableStream<Uint8Array> {
  return new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise((resolve, reject) => {
        if (socket.destroyed) {
          reject(new DenoletError("connection closed"));
          return;
        }
        if (socket.write(chunk)) {
          resolve();
          return;
        }
        const done = () => {
          socket.off("drain", done);
          socket.off("close", done);
          if (socket.destroyed) reject(new DenoletError("connection closed"));
          else resolve();
        };
        socket.on("drain", done);
        socket.on("close", done);
      });
    },
    close() {
      socket.end();
    },
    abort() {
      socket.destroy();
    },
  });
}
