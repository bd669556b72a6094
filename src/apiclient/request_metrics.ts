/**
 * What the API client sends and receives, on /metrics: client-go's `rest_client_requests_total`
 * and request/response size histograms, and denolet's bytes by verb and resource, which is
 * where a metered uplink's bytes can be traced to (issue 31).
 */
import { exponentialBuckets, type MetricsRegistry } from "../util/metrics.ts";
import type { RequestRecord } from "./client.ts";

/** `/api/v1/namespaces/ns/pods/p/status` → "pods/status"; the API group is dropped. */
export function resourceOf(path: string): string {
  const parts = path.split("?")[0].split("/").filter((p) => p !== "");
  let rest = parts[0] === "api" ? parts.slice(2) : parts[0] === "apis" ? parts.slice(3) : parts;
  if (rest[0] === "namespaces" && rest.length > 2) rest = rest.slice(2);
  if (rest.length === 0) return parts.join("/") || "/";
  return rest.length >= 3 ? `${rest[0]}/${rest[2]}` : rest[0];
}

/** client-go's verb for a request: list/get and watch told apart by the path and query. */
export function verbOf(r: Pick<RequestRecord, "method" | "path" | "watch">): string {
  if (r.watch) return "WATCH";
  const parts = r.path.split("?")[0].split("/").filter((p) => p !== "");
  const base = parts[0] === "api" ? 2 : parts[0] === "apis" ? 3 : 0;
  let rest = parts.slice(base);
  if (rest[0] === "namespaces" && rest.length > 2) rest = rest.slice(2);
  if (r.method === "GET") return rest.length === 1 ? "LIST" : "GET";
  return r.method;
}

/** An observer for the API clients of one server, feeding `registry`. */
export function requestMetrics(
  registry: MetricsRegistry,
  server: string,
): (r: RequestRecord) => void {
  const host = URL.parse(server)?.host ?? server;
  const requests = registry.counterVec({
    name: "rest_client_requests_total",
    help: "Number of HTTP requests, partitioned by status code, method, and host.",
    stability: "ALPHA",
    labelNames: ["code", "host", "method"],
  });
  const sizes = exponentialBuckets(64, 4, 8);
  const requestSize = registry.histogramVec({
    name: "rest_client_request_size_bytes",
    help: "Request size in bytes. Broken down by verb and host.",
    stability: "ALPHA",
    labelNames: ["verb", "host"],
    buckets: sizes,
  });
  const responseSize = registry.histogramVec({
    name: "rest_client_response_size_bytes",
    help: "Response size in bytes. Broken down by verb and host.",
    stability: "ALPHA",
    labelNames: ["verb", "host"],
    buckets: sizes,
  });
  const bytes = registry.counterVec({
    name: "denolet_api_body_bytes_total",
    help: "Bytes of request and response bodies exchanged with the API server, by direction, " +
      "verb and resource (headers and TLS not counted; watches counted as they stream).",
    labelNames: ["direction", "verb", "resource"],
  });
  return (r) => {
    const verb = verbOf(r);
    const resource = resourceOf(r.path);
    if (!r.partial) {
      requests.labels(r.code === 0 ? "<error>" : String(r.code), host, r.method).inc();
      requestSize.labels(r.method, host).observe(r.sentBytes);
      if (!r.watch) responseSize.labels(r.method, host).observe(r.receivedBytes);
    }
    if (r.sentBytes > 0) bytes.labels("sent", verb, resource).inc(r.sentBytes);
    if (r.receivedBytes > 0) bytes.labels("received", verb, resource).inc(r.receivedBytes);
  };
}
