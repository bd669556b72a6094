/**
 * The one place CRI RPCs are made: deadline, cancellation, error kinds and latency hook. The
 * generated decoders already give the plain shapes of types.ts.
 */
import * as grpc from "@grpc/grpc-js";
import type { Buffer } from "node:buffer";
import type { Clock } from "../util/clock.ts";
import { DenoletError, NotFoundError, RuntimeUnavailableError } from "../util/errors.ts";
import type { Logger } from "../util/log.ts";
import type { MethodDef } from "./_proto.ts";

/** Called once per RPC with its proto name ("RunPodSandbox"), latency and error if it failed. */
export type OnCall = (method: string, ms: number, err?: unknown) => void;

export interface UnaryDeps {
  clock: Clock;
  logger: Logger;
  onCall?: OnCall;
}

export interface UnaryOptions {
  /** Relative deadline in ms; undefined means none (only cancellation ends the call). */
  timeoutMs: number | undefined;
  signal?: AbortSignal;
}

/** The RPC name of a method definition: "/runtime.v1.RuntimeService/Version" → "Version". */
export function rpcName(def: MethodDef): string {
  return def.path.slice(def.path.lastIndexOf("/") + 1);
}

/**
 * Makes one unary call. Resolves with the decoded response; rejects with a
 * CRI error (see `toCriError`), or with the signal's reason when `signal` aborted the call.
 */
export function unary<Res>(
  channel: grpc.Client,
  def: MethodDef,
  request: unknown,
  opts: UnaryOptions & { deps: UnaryDeps },
): Promise<Res> {
  const { deps, signal, timeoutMs } = opts;
  const rpc = rpcName(def);
  if (signal?.aborted) return Promise.reject(signal.reason);
  const start = deps.clock.monotonic();
  const callOptions: grpc.CallOptions = {};
  if (timeoutMs !== undefined) callOptions.deadline = start + timeoutMs;
  return new Promise<Res>((resolve, reject) => {
    const finish = (err: unknown, value?: Res) => {
      signal?.removeEventListener("abort", onAbort);
      const ms = deps.clock.monotonic() - start;
      deps.onCall?.(rpc, ms, err ?? undefined);
      if (err === undefined) {
        deps.logger.debug(6, "CRI call", { method: rpc, ms });
        resolve(value as Res);
      } else {
        deps.logger.debug(4, "CRI call failed", { method: rpc, ms, err });
        reject(err);
      }
    };
    let call: grpc.ClientUnaryCall;
    try {
      call = channel.makeUnaryRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        request,
        new grpc.Metadata({ waitForReady: false }),
        callOptions,
        (err, response) => {
          if (err) finish(signal?.aborted ? signal.reason : toCriError(rpc, err));
          else finish(undefined, response as Res);
        },
      );
    } catch (err) {
      // grpc-js throws synchronously on a closed channel: the runtime is out of reach for good,
      // which callers must treat like an unreachable runtime, not like a failed request.
      finish(
        new RuntimeUnavailableError(`CRI ${rpc} failed: ${errorText(err)}`, { cause: err }),
      );
      return;
    }
    const onAbort = () => call.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Maps a gRPC failure to an error kind: NOT_FOUND → NotFoundError; UNAVAILABLE (socket
 * missing, connection refused, runtime restarting) → RuntimeUnavailableError; anything else
 * → DenoletError. The gRPC error is the `cause`.
 */
export function toCriError(rpc: string, err: unknown): DenoletError {
  const e = err as Partial<grpc.ServiceError> | undefined;
  const details = e?.details || errorText(err);
  const message = `CRI ${rpc} failed: ${details}`;
  if (e?.code === grpc.status.NOT_FOUND) return new NotFoundError(message, { cause: err });
  if (
    e?.code === grpc.status.UNAVAILABLE ||
    /\b(ECONNREFUSED|ENOENT|ECONNRESET|EPIPE)\b/.test(details)
  ) {
    return new RuntimeUnavailableError(message, { cause: err });
  }
  return new DenoletError(message, { cause: err });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** gRPC UNIMPLEMENTED: the runtime does not serve this RPC. */
const UNIMPLEMENTED = 12;

/** True when `err` (or an error in its cause chain) is gRPC UNIMPLEMENTED. */
export function isUnimplemented(err: unknown): boolean {
  let cur: unknown = err;
  for (let i = 0; cur !== null && typeof cur === "object" && i < 16; i++) {
    if ((cur as { code?: unknown }).code === UNIMPLEMENTED) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

const CODE_NAMES = [
  "OK",
  "Canceled",
  "Unknown",
  "InvalidArgument",
  "DeadlineExceeded",
  "NotFound",
  "AlreadyExists",
  "PermissionDenied",
  "ResourceExhausted",
  "FailedPrecondition",
  "Aborted",
  "OutOfRange",
  "Unimplemented",
  "Internal",
  "Unavailable",
  "DataLoss",
  "Unauthenticated",
];

/**
 * The runtime's error as the upstream kubelet prints it (Go's gRPC status error:
 * `rpc error: code = NotFound desc = ...`), or the error's own message when it did not come
 * from the runtime. Upstream shows this text in ErrImagePull messages and events.
 */
export function runtimeErrorText(err: unknown): string {
  let cur: unknown = err;
  for (let i = 0; cur !== null && typeof cur === "object" && i < 16; i++) {
    const e = cur as { code?: unknown; details?: unknown };
    if (typeof e.code === "number" && typeof e.details === "string") {
      return `rpc error: code = ${CODE_NAMES[e.code] ?? `Code(${e.code})`} desc = ${e.details}`;
    }
    cur = (cur as { cause?: unknown }).cause;
  }
  return errorText(err);
}

/** How long a server stream must stay open, silent and unfailed, to count as served. */
export const STREAM_READY_AFTER_MS = 1_000;

/**
 * Reads a server stream: each message goes to `onMessage` (a throwing handler is logged, the
 * stream goes on), `onReady` is called once the runtime has accepted the stream (headers, a
 * message, or `STREAM_READY_AFTER_MS` open without an error). Resolves when `signal` aborts (the
 * call is cancelled); rejects with a CRI error (see `toCriError`) when the stream fails or the
 * runtime ends it.
 */
export function serverStream<Msg>(
  channel: grpc.Client,
  def: MethodDef,
  request: unknown,
  opts: {
    deps: UnaryDeps;
    signal: AbortSignal;
    onMessage: (m: Msg) => void;
    onReady?: () => void;
  },
): Promise<void> {
  const { deps, signal } = opts;
  const rpc = rpcName(def);
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    let call: grpc.ClientReadableStream<Msg>;
    try {
      call = channel.makeServerStreamRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize as (b: Buffer) => Msg,
        request,
        new grpc.Metadata({ waitForReady: false }),
        {},
      );
    } catch (err) {
      reject(new RuntimeUnavailableError(`CRI ${rpc} failed: ${errorText(err)}`, { cause: err }));
      return;
    }
    let settled = false;
    let ready = false;
    // grpc-go (containerd, CRI-O) sends a stream's headers only with its first message, so a
    // quiet stream shows nothing. A runtime without the RPC answers at once with Unimplemented:
    // a stream still open after STREAM_READY_AFTER_MS is taken as served.
    const quiet = new AbortController();
    const markReady = () => {
      if (ready || settled || signal.aborted) return;
      ready = true;
      quiet.abort();
      try {
        opts.onReady?.();
      } catch (err) {
        deps.logger.error("CRI stream ready handler failed", { method: rpc, err });
      }
    };
    const settle = (err?: unknown) => {
      if (settled) return;
      settled = true;
      quiet.abort();
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted) resolve();
      else reject(err);
    };
    const onAbort = () => {
      quiet.abort();
      call.cancel();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    // The sleep rejects only when `quiet` aborts: the stream was ready or over by then.
    deps.clock.sleep(STREAM_READY_AFTER_MS, { signal: quiet.signal }).then(markReady, () => {
      /* nothing left to mark */
    });
    call.on("metadata", markReady);
    call.on("data", (m: Msg) => {
      markReady();
      try {
        opts.onMessage(m);
      } catch (err) {
        deps.logger.error("CRI stream handler failed", { method: rpc, err });
      }
    });
    call.on("error", (err) => settle(toCriError(rpc, err)));
    call.on(
      "end",
      () => settle(new RuntimeUnavailableError(`CRI ${rpc} failed: the runtime ended the stream`)),
    );
  });
}
