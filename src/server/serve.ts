import type { Clock } from "../util/clock.ts";
import { DenoletError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import type { NodeApiHandler } from "./types.ts";

export interface ServeNodeApiOptions {
  /** Interface to bind, e.g. "0.0.0.0", "127.0.0.1" or "::". */
  address: string;
  /** TCP port; 0 picks a free one (tests). */
  port: number;
  logger: Logger;
  /** Aborting stops accepting, lets in-flight requests finish, then resolves `finished`. */
  signal: AbortSignal;
}

export interface NodeApiServer {
  /** The bound port (the picked one when asked for 0). */
  port: number;
  /** Resolves once the server has shut down after the signal aborted. */
  finished: Promise<void>;
}

/**
 * Serves `handler` over plain HTTP. Throws when the address cannot be bound, naming it.
 * Resolves once listening.
 */
export function serveNodeApi(
  handler: NodeApiHandler,
  opts: ServeNodeApiOptions,
): Promise<NodeApiServer> {
  const log = opts.logger.child({ component: "node-api" });
  const where = formatAddress(opts.address, opts.port);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: opts.address,
      port: opts.port,
      signal: opts.signal,
      onListen: () => {},
      onError: (err) => {
        // Only reached if the handler itself breaks its never-throw contract.
        log.error("node API handler threw", { err });
        return new Response("Internal server error\n", { status: 500 });
      },
    }, handler);
  } catch (err) {
    const message = `Cannot serve the node API on ${where}: ${errorMessage(err)}`;
    return Promise.reject(new DenoletError(message, { cause: err }));
  }
  const port = server.addr.port;
  log.info("node API listening", { address: formatAddress(server.addr.hostname, port) });
  const finished = server.finished.then(() => log.info("node API stopped"));
  return Promise.resolve({ port, finished });
}

/** How long a --healthz-port that could not be bound waits before the next try (upstream's). */
const HEALTHZ_RETRY_MS = 5_000;

/**
 * Serves `handler` (`createHealthzHandler`) on --healthz-port. As upstream, a port that cannot be
 * bound is logged and tried again every 5 s instead of failing the start: the port is for a
 * supervisor's checks, and the pods must not wait on it. `finished` resolves after the signal
 * aborted and the server (if it ever listened) shut down.
 */
export function serveHealthz(
  handler: NodeApiHandler,
  opts: ServeNodeApiOptions & { clock: Clock },
): { finished: Promise<void> } {
  const log = opts.logger.child({ component: "healthz" });
  const finished = (async () => {
    while (!opts.signal.aborted) {
      let server: NodeApiServer;
      try {
        server = await serveNodeApi(handler, opts);
      } catch (err) {
        log.error("Failed to start the healthz server; trying again in 5 s", { err });
        await opts.clock.sleep(HEALTHZ_RETRY_MS, { signal: opts.signal }).catch(() => {});
        continue;
      }
      await server.finished;
      return;
    }
  })();
  return { finished };
}

function formatAddress(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
