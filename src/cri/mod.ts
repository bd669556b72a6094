/**
 * The CRI client: RuntimeService and ImageService over gRPC on the runtime's unix socket.
 */
import { type Clock, realClock } from "../util/clock.ts";
import { type Logger, nullLogger } from "../util/log.ts";
import type { ImageService, RuntimeService, StreamingService } from "./types.ts";
import { openChannel } from "./_proto.ts";
import { imageService, runtimeService, streamingService } from "./_services.ts";
import type { OnCall } from "./_unary.ts";

export type * from "./types.ts";
export type { OnCall } from "./_unary.ts";
export { isUnimplemented, runtimeErrorText } from "./_unary.ts";

export interface CriClient {
  runtime: RuntimeService;
  image: ImageService;
  /** Exec, Attach and PortForward on the runtime's channel. */
  streaming: StreamingService;
  /** Closes the channels; calls made afterwards fail. Idempotent. */
  close(): void;
}

export interface CriClientOptions {
  /** Default per-call deadline (--runtime-request-timeout), ms. */
  timeoutMs: number;
  /** --image-service-endpoint; defaults to the runtime endpoint. */
  imageEndpoint?: string;
  logger?: Logger;
  /** Per-RPC latency and error hook, e.g. for metrics. */
  onCall?: OnCall;
  /** Used for deadlines and latency; defaults to the real clock. */
  clock?: Clock;
}

/**
 * Connects lazily to `endpoint` (`unix:///run/containerd/containerd.sock` or a bare socket
 * path): nothing is dialled until the first call, and a runtime that is down makes calls
 * fail fast with RuntimeUnavailableError instead of waiting for it.
 */
export function createCriClient(endpoint: string, opts: CriClientOptions): CriClient {
  const logger = opts.logger ?? nullLogger;
  const base = { clock: opts.clock ?? realClock, onCall: opts.onCall, timeoutMs: opts.timeoutMs };
  const runtimeChannel = openChannel(endpoint);
  const imageEndpoint = opts.imageEndpoint ?? endpoint;
  const imageChannel = imageEndpoint === endpoint ? runtimeChannel : openChannel(imageEndpoint);
  return {
    runtime: runtimeService({
      ...base,
      channel: runtimeChannel,
      logger: logger.child({ cri: "runtime" }),
    }),
    image: imageService({ ...base, channel: imageChannel, logger: logger.child({ cri: "image" }) }),
    streaming: streamingService({
      ...base,
      channel: runtimeChannel,
      logger: logger.child({ cri: "runtime" }),
    }),
    close() {
      runtimeChannel.close();
      if (imageChannel !== runtimeChannel) imageChannel.close();
    },
  };
}

/** The protobuf wire runtime the generated codecs share (the prober's gRPC health codec too). */
export {
  deserializer,
  enumName,
  enumValue,
  ProtoReader,
  ProtoWriter,
  readStringMapEntry,
  serializer,
  writeStringMap,
} from "./_wire.ts";
