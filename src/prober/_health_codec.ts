// Generated from proto/grpc/health/v1/health.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import type { ServiceDefinition } from "@grpc/grpc-js";
import {
  deserializer,
  enumName,
  enumValue,
  type ProtoReader,
  type ProtoWriter,
  serializer,
} from "../cri/mod.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** grpc.health.v1.HealthCheckResponse.ServingStatus */
export const HealthCheckResponse_ServingStatus_VALUES: Record<string, number> = {
  "UNKNOWN": 0,
  "SERVING": 1,
  "NOT_SERVING": 2,
  "SERVICE_UNKNOWN": 3,
};
const HealthCheckResponse_ServingStatus_NAMES: readonly string[] = [
  "UNKNOWN",
  "SERVING",
  "NOT_SERVING",
  "SERVICE_UNKNOWN",
];

/** grpc.health.v1.HealthCheckRequest */
export function encodeHealthCheckRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.service) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeHealthCheckRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { service: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.service = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** grpc.health.v1.HealthCheckResponse */
export function encodeHealthCheckResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.status) != null) {
    w.tag(1, 0);
    w.int32(enumValue(HealthCheckResponse_ServingStatus_VALUES, v, "ServingStatus"));
  }
}

export function decodeHealthCheckResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { status: "UNKNOWN" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.status = enumName(HealthCheckResponse_ServingStatus_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** grpc.health.v1.Health, as grpc-js clients and servers take it. */
export const Health: ServiceDefinition = {
  Check: {
    path: "/grpc.health.v1.Health/Check",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeHealthCheckRequest),
    requestDeserialize: deserializer(decodeHealthCheckRequest),
    responseSerialize: serializer(encodeHealthCheckResponse),
    responseDeserialize: deserializer(decodeHealthCheckResponse),
    originalName: "check",
  },
};
