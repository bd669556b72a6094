/** The Kubernetes API client's surface: requests, watches and the errors they end with. */
import type { ProtobufCodec } from "./protobuf.ts";
import { DenoletError } from "../util/errors.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Media types the API server takes for PATCH. */
export type PatchType =
  | "application/merge-patch+json"
  | "application/strategic-merge-patch+json"
  | "application/json-patch+json";

export interface ApiRequest {
  method: HttpMethod;
  /** Absolute API path, e.g. `/api/v1/namespaces/default/pods`. */
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON (content type `application/json`, or `patchType` for PATCH). */
  body?: unknown;
  patchType?: PatchType;
  /**
   * Speak the API server's protobuf form for this object kind: the body (not a patch) is sent
   * in it, and a protobuf answer decoded with it (a JSON answer is still understood).
   */
  protobuf?: ProtobufCodec<unknown>;
  /**
   * Ask for the answer's metadata alone (a meta.k8s.io/v1 PartialObjectMetadata in JSON): for a
   * write whose answer the caller does not read beyond that, which is most of its bytes.
   */
  metadataOnly?: boolean;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Per-request deadline; default the client's (10 s as upstream's client-go for kubelets). */
  timeoutMs?: number;
}

/** One event of a watch stream (`ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, `ERROR`). */
export interface WatchEvent<T = unknown> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

export interface ApiClient {
  /** The API server's URL (`https://host:port`). */
  readonly server: string;
  /**
   * One request, JSON in and out, after the client's rate limiter lets it through. Resolves
   * with the decoded body (undefined for an empty one); throws `ApiError` for a non-2xx answer
   * and `ApiUnavailableError` when the server cannot be reached. Abort cancels the request.
   */
  request<T>(req: ApiRequest, opts?: RequestOptions): Promise<T>;
  /**
   * Opens a watch (`watch=true` is added) and yields its events until the server ends the
   * stream or the signal aborts (then it returns quietly). Throws like `request` when the watch
   * cannot be opened; a broken stream ends iteration with `ApiUnavailableError`.
   */
  watch<T>(path: string, opts: WatchOptions): AsyncIterable<WatchEvent<T>>;
  /**
   * Closes every connection now (the kubelet's closeAllConns): requests and watches on them
   * fail with `ApiUnavailableError`, the next request dials anew. For a connection that went
   * silent, which nothing else would notice. Optional: a client without connections of its own
   * (a test's) has nothing to close.
   */
  closeConnections?(reason: string): void;
  /** Releases connections. Idempotent. */
  close(): void;
}

export interface WatchOptions {
  query?: Record<string, string | number | boolean | undefined>;
  signal: AbortSignal;
}

/** The API server answered with an error status (`status` from the HTTP answer, `reason` from its Status). */
export class ApiError extends DenoletError {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The API server could not be reached (connection refused, TLS failure, timeout). */
export class ApiUnavailableError extends DenoletError {}

/** The kubeconfig cannot be used: the file, the field and why. */
export class KubeconfigError extends DenoletError {}

export function isApiStatus(err: unknown, status: number): boolean {
  return err instanceof ApiError && err.status === status;
}
