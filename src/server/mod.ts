/**
 * The read-only node API: `/healthz`, `/pods`, `/runningpods/`, `/sources`, `/metrics`.
 * `createNodeApiHandler` is socket-free (tests call it directly); `serveNodeApi` binds it.
 */
export { createNodeApiHandler } from "./handler.ts";
export { type NodeApiServer, serveNodeApi, type ServeNodeApiOptions } from "./serve.ts";
export type { HealthCheckResult, NodeApiDeps, NodeApiHandler } from "./types.ts";
