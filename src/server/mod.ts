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
export { type AuthenticatedApiDeps, serveAuthenticatedNodeApi } from "./node_api.ts";
export {
  type ConnectionInfo,
  createSecureNodeApiHandler,
  type SecureApiDeps,
  type SecureHandler,
} from "./secure_handler.ts";
// secure_serve.ts (node:https) is imported by serveAuthenticatedNodeApi only when --port is on.
export type { SecureServer, ServingCertificate } from "./secure_serve.ts";
export type {
  HealthCheckResult,
  NodeApiDeps,
  NodeApiHandler,
  UpgradedConnection,
} from "./types.ts";
