/**
 * denolet's CRI services (static codecs generated from proto/runtime/v1/api.proto) and gRPC
 * channels to a runtime endpoint.
 */
import * as grpc from "@grpc/grpc-js";
import { ImageService, RuntimeService } from "./_codec.ts";

/** The kubelet's limit for CRI messages (pkg/kubelet/cri/remote: maxMsgSize = 16 MiB). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * grpc-js starts reconnect back-off at 1 s and doubles up to 120 s; after a containerd restart
 * that would leave the node "runtime down" for minutes. Short back-off brings the channel back
 * within about a second of the socket reappearing. A local subchannel pool keeps each client's
 * connection private, so closing one client cannot break another's.
 */
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
  "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
  "grpc.initial_reconnect_backoff_ms": 100,
  "grpc.max_reconnect_backoff_ms": 1000,
  "grpc.use_local_subchannel_pool": 1,
  "grpc.enable_retries": 0,
};

export type MethodDef = grpc.MethodDefinition<unknown, unknown>;

export interface CriServices {
  runtime: grpc.ServiceDefinition;
  image: grpc.ServiceDefinition;
}

/** The RuntimeService and ImageService definitions (also used by test servers). */
export function criServices(): CriServices {
  return { runtime: RuntimeService, image: ImageService };
}

/**
 * gRPC target for a CRI endpoint. Accepts `unix:///path` (the documented form) and, like the
 * kubelet's deprecated fallback, a bare absolute socket path.
 */
export function grpcTarget(endpoint: string): string {
  if (endpoint.startsWith("/")) return `unix://${endpoint}`;
  return endpoint;
}

export function openChannel(endpoint: string): grpc.Client {
  return new grpc.Client(grpcTarget(endpoint), grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
}
