/**
 * Unary gRPC calls to a plugin's unix socket (a CSI driver, a registration socket), with a
 * deadline and cancellation; a failure reads as Go's gRPC error text, which upstream's
 * messages quote: `rpc error: code = Internal desc = ...`.
 */
import * as grpc from "@grpc/grpc-js";
import type { Clock } from "../util/clock.ts";
import { DenoletError } from "../util/errors.ts";

type MethodDef = grpc.MethodDefinition<unknown, unknown>;

/** A plugin's RPC failed; `code` is the gRPC status name ("Internal", "Unavailable", ...). */
export class PluginCallError extends DenoletError {
  constructor(readonly code: string, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

const CODE_NAMES: Record<number, string> = {
  1: "Canceled",
  2: "Unknown",
  3: "InvalidArgument",
  4: "DeadlineExceeded",
  5: "NotFound",
  6: "AlreadyExists",
  7: "PermissionDenied",
  8: "ResourceExhausted",
  9: "FailedPrecondition",
  10: "Aborted",
  11: "OutOfRange",
  12: "Unimplemented",
  13: "Internal",
  14: "Unavailable",
  15: "DataLoss",
  16: "Unauthenticated",
};

/** A channel to the unix socket at `path`. */
export function openSocket(path: string): grpc.Client {
  return new grpc.Client(`unix:${path}`, grpc.credentials.createInsecure(), {
    "grpc.enable_retries": 0,
  });
}

/**
 * One unary call; resolves with the decoded response. Rejects with PluginCallError (Go's
 * text), or the signal's reason when it aborted the call. After `timeoutMs` on `clock` the call
 * is cancelled and fails as DeadlineExceeded.
 */
export function callPlugin<Res>(
  client: grpc.Client,
  def: MethodDef,
  request: unknown,
  opts: { timeoutMs: number; clock: Clock; signal?: AbortSignal },
): Promise<Res> {
  const { signal } = opts;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const timer = new AbortController();
  let timedOut = false;
  return new Promise<Res>((resolve, reject) => {
    const call = client.makeUnaryRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      request,
      new grpc.Metadata(),
      {},
      (err, response) => {
        signal?.removeEventListener("abort", onAbort);
        timer.abort();
        if (!err) return resolve(response as Res);
        if (signal?.aborted) return reject(signal.reason);
        const code = timedOut ? "DeadlineExceeded" : CODE_NAMES[err.code] ?? String(err.code);
        reject(
          new PluginCallError(code, `rpc error: code = ${code} desc = ${err.details}`, {
            cause: err,
          }),
        );
      },
    );
    const onAbort = () => call.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    opts.clock.sleep(opts.timeoutMs, { signal: timer.signal }).then(() => {
      timedOut = true;
      call.cancel();
    }, () => undefined); // the call ended first
  });
}
