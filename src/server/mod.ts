/**
 * The node API: the read-only port (plain HTTP, `createNodeApiHandler`/`serveNodeApi`) and the
 * authenticated HTTPS port with logs and streaming (`serveAuthenticatedNodeApi`). Handlers are
 * socket-free (tests call them directly); the serve functions bind them.
 */
export { createHealthzHandler, createNodeApiHandler } from "./handler.ts";
export {
  type NodeApiServer,
  serveHealthz,
  serveNodeApi,
  type ServeNodeApiOptions,
} from "./serve.ts";
import type { AuthenticatedApiDeps } from "./node_api.ts";
import type { SecureServer } from "./secure_serve.ts";
export type { AuthenticatedApiDeps } from "./node_api.ts";
export type { ConnectionInfo, SecureApiDeps, SecureHandler } from "./secure_handler.ts";
export type { SecureServer, ServingCertificate } from "./secure_serve.ts";

/**
 * Serves the authenticated node API on --port (see node_api.ts). Its TLS, authenticators,
 * authorizer and handler (and node:https) are loaded only when --port is on: an agent without
 * it keeps none of them in memory.
 */
export async function serveAuthenticatedNodeApi(deps: AuthenticatedApiDeps): Promise<SecureServer> {
  const { serveAuthenticatedNodeApi: serve } = await import("./node_api.ts");
  return await serve(deps);
}
export type {
  HealthCheckResult,
  NodeApiDeps,
  NodeApiHandler,
  UpgradedConnection,
} from "./types.ts";
