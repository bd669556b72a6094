/**
 * Loads denolet's CRI proto once and opens gRPC channels to a runtime endpoint.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";
// The proto's text is compiled in, so a bundle of the agent needs no file beside it.
import { API_PROTO } from "./_proto_text.ts";

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

export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

export type MethodDef = protoLoader.MethodDefinition<unknown, unknown>;

export interface CriServices {
  runtime: protoLoader.ServiceDefinition;
  image: protoLoader.ServiceDefinition;
}

let loaded: CriServices | undefined;

/** The RuntimeService and ImageService definitions (also used by test servers). */
export function criServices(): CriServices {
  if (!loaded) {
    // What protoLoader.loadSync does with a file path, from the text instead.
    const { root } = protobuf.parse(API_PROTO, { keepCase: PROTO_LOADER_OPTIONS.keepCase });
    const def = protoLoader.fromJSON(root.toJSON(), PROTO_LOADER_OPTIONS);
    loaded = {
      runtime: def["runtime.v1.RuntimeService"] as protoLoader.ServiceDefinition,
      image: def["runtime.v1.ImageService"] as protoLoader.ServiceDefinition,
    };
  }
  return loaded;
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
