/**
 * An in-process gRPC server speaking denolet's CRI proto on a temporary unix socket, for
 * client tests. Handlers are set per test; unset methods answer UNIMPLEMENTED.
 */
import * as grpc from "@grpc/grpc-js";
import { criServices } from "../../src/cri/_proto.ts";

export type Handler = (
  request: Record<string, unknown>,
  call: grpc.ServerUnaryCall<unknown, unknown>,
) => unknown | Promise<unknown>;

export interface TestServer {
  endpoint: string;
  socket: string;
  /** Handlers by RPC name ("Version", "ImageStatus", ...). */
  handlers: Record<string, Handler>;
  /** Server-streaming handlers by RPC name ("GetContainerEvents"): write, end or emit "error". */
  streams: Record<string, (call: grpc.ServerWritableStream<unknown, unknown>) => void>;
  /** Requests seen, by RPC name, with the server-side deadline. */
  seen: { rpc: string; request: Record<string, unknown>; deadline: Date | number }[];
  close(): Promise<void>;
}

/** A gRPC error as a runtime would send it. */
export function grpcError(code: grpc.status, details: string): Partial<grpc.ServiceError> {
  return { code, details, message: details };
}

/**
 * Starts a server on a new temporary socket, or on `opts.socket` (then the caller owns the
 * directory, and a stale socket file there is replaced: a runtime restarting).
 */
export async function startTestServer(opts: { socket?: string } = {}): Promise<TestServer> {
  const dir = opts.socket ? undefined : await Deno.makeTempDir({ prefix: "denolet-cri-" });
  const socket = opts.socket ?? `${dir}/cri.sock`;
  if (opts.socket) {
    await Deno.remove(socket).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
  const server = new grpc.Server();
  const t: TestServer = {
    endpoint: `unix://${socket}`,
    socket,
    handlers: {},
    streams: {},
    seen: [],
    close() {
      // Like a runtime that exits: open connections are cut, not drained.
      server.forceShutdown();
      return dir ? Deno.remove(dir, { recursive: true }) : Promise.resolve();
    },
  };
  for (const service of [criServices().runtime, criServices().image]) {
    const impl: grpc.UntypedServiceImplementation = {};
    for (const rpc of Object.keys(service)) {
      if (service[rpc].responseStream) {
        impl[rpc] = (call: grpc.ServerWritableStream<unknown, unknown>) => {
          t.seen.push({
            rpc,
            request: call.request as Record<string, unknown>,
            deadline: call.getDeadline(),
          });
          const h = t.streams[rpc];
          if (h) h(call);
          else {call.emit("error", {
              code: grpc.status.UNIMPLEMENTED,
              details: `${rpc} not implemented`,
            });}
        };
        continue;
      }
      impl[rpc] = (
        call: grpc.ServerUnaryCall<unknown, unknown>,
        cb: grpc.sendUnaryData<unknown>,
      ) => {
        const request = call.request as Record<string, unknown>;
        t.seen.push({ rpc, request, deadline: call.getDeadline() });
        const h = t.handlers[rpc];
        if (!h) {
          cb({ code: grpc.status.UNIMPLEMENTED, details: `${rpc} not implemented` });
          return;
        }
        Promise.resolve()
          .then(() => h(request, call))
          .then((res) => cb(null, res), (err) => cb(err));
      };
    }
    server.addService(service, impl);
  }
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(t.endpoint, grpc.ServerCredentials.createInsecure(), (err) => {
      if (err) reject(err);
      else resolve();
    })
  );
  return t;
}
