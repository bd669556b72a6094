/**
 * grpc probes (upstream pkg/probe/grpc): `grpc.health.v1.Health/Check` on podIP:port, plaintext,
 * SERVING = success, anything else (including errors) = failure.
 *
 * One client per probe, closed right after, as upstream dials per probe: probes run at most
 * once a second per container, and a cached channel would hold an HTTP/2 connection (and its
 * reconnect timers) to every probed pod, outliving pod IP reuse. The messages go through a
 * static codec generated from proto/grpc/health/v1/health.proto (`_health_codec.ts`).
 */
import * as grpc from "@grpc/grpc-js";
import { Health } from "./_health_codec.ts";
import type { ProbeOutput } from "./_prober.ts";

type CheckCallback = (err: grpc.ServiceError | null, res?: { status?: string }) => void;
interface HealthClient extends grpc.Client {
  check(
    req: { service: string },
    meta: grpc.Metadata,
    opts: grpc.CallOptions,
    cb: CheckCallback,
  ): grpc.ClientUnaryCall;
}
type HealthClientCtor = new (
  target: string,
  creds: grpc.ChannelCredentials,
  options: grpc.ChannelOptions,
) => HealthClient;

let ctor: HealthClientCtor | undefined;

/** The Health service definition (also used by test servers). */
export function healthService(): grpc.ServiceDefinition {
  return Health;
}

function clientCtor(): HealthClientCtor {
  ctor ??= grpc.makeClientConstructor(Health, "Health") as unknown as HealthClientCtor;
  return ctor;
}

export function grpcProbe(
  host: string,
  port: number,
  opts: { service: string; userAgent: string; timeoutMs: number; signal: AbortSignal },
): Promise<ProbeOutput> {
  const { signal } = opts;
  if (signal.aborted) return Promise.reject(signal.reason);
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const addr = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const Client = clientCtor();
  const client = new Client(addr, grpc.credentials.createInsecure(), {
    "grpc.primary_user_agent": opts.userAgent,
    // A private subchannel so close() really drops the connection.
    "grpc.use_local_subchannel_pool": 1,
    "grpc.enable_retries": 0,
  });
  return new Promise<ProbeOutput>((resolve, reject) => {
    const call = client.check(
      { service: opts.service },
      new grpc.Metadata(),
      {},
      (err, res) => {
        signal.removeEventListener("abort", onStop);
        deadline.removeEventListener("abort", onDeadline);
        client.close();
        if (signal.aborted) reject(signal.reason);
        else if (deadline.aborted) resolve(timedOut(opts.timeoutMs));
        else if (err) resolve(callFailed(err));
        else if (res?.status !== "SERVING") {
          resolve({
            result: "failure",
            output: `service unhealthy (responded with "${res?.status ?? "UNKNOWN"}")`,
          });
        } else resolve({ result: "success", output: "service healthy" });
      },
    );
    const onStop = () => call.cancel();
    const onDeadline = () => call.cancel();
    signal.addEventListener("abort", onStop, { once: true });
    deadline.addEventListener("abort", onDeadline, { once: true });
  });
}

function timedOut(ms: number): ProbeOutput {
  return { result: "failure", output: `timeout: health rpc did not complete within ${ms / 1000}s` };
}

function callFailed(err: grpc.ServiceError): ProbeOutput {
  if (err.code === grpc.status.UNIMPLEMENTED) {
    return {
      result: "failure",
      output: "error: this server does not implement the grpc health protocol " +
        `(grpc.health.v1.Health): ${err.details}`,
    };
  }
  return { result: "failure", output: `error: health rpc probe failed: ${err.message}` };
}
