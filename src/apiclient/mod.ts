/**
 * The Kubernetes API client of the API-server mode: kubeconfig loading and a lean fetch-based
 * client with watches, rate limiting and credential refresh. Loaded only with --kubeconfig.
 */
export type {
  ApiClient,
  ApiRequest,
  HttpMethod,
  PatchType,
  RequestOptions,
  WatchEvent,
  WatchOptions,
} from "./types.ts";
export { ApiError, ApiUnavailableError, isApiStatus, KubeconfigError } from "./types.ts";
export {
  type Connection,
  type ExecPlugin,
  loadKubeconfig,
  resolveKubeconfig,
} from "./_kubeconfig.ts";
export { type ApiClientOptions, createApiClient, type RequestRecord } from "./client.ts";
export { requestMetrics, resourceOf, verbOf } from "./request_metrics.ts";
export { type ReflectorOptions, runReflector } from "./reflector.ts";
