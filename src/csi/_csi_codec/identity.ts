// Generated from proto/csi/v1/csi.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts

import type { ServiceDefinition } from "@grpc/grpc-js";
import { deserializer, serializer } from "../../cri/mod.ts";
import {
  decodeGetPluginCapabilitiesRequest,
  decodeGetPluginCapabilitiesResponse,
  decodeGetPluginInfoRequest,
  decodeGetPluginInfoResponse,
  decodeProbeRequest,
  decodeProbeResponse,
  encodeGetPluginCapabilitiesRequest,
  encodeGetPluginCapabilitiesResponse,
  encodeGetPluginInfoRequest,
  encodeGetPluginInfoResponse,
  encodeProbeRequest,
  encodeProbeResponse,
} from "./plugin.ts";

/** csi.v1.Identity, as grpc-js clients and servers take it. */
export const Identity: ServiceDefinition = {
  GetPluginInfo: {
    path: "/csi.v1.Identity/GetPluginInfo",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeGetPluginInfoRequest),
    requestDeserialize: deserializer(decodeGetPluginInfoRequest),
    responseSerialize: serializer(encodeGetPluginInfoResponse),
    responseDeserialize: deserializer(decodeGetPluginInfoResponse),
    originalName: "getPluginInfo",
  },
  GetPluginCapabilities: {
    path: "/csi.v1.Identity/GetPluginCapabilities",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeGetPluginCapabilitiesRequest),
    requestDeserialize: deserializer(decodeGetPluginCapabilitiesRequest),
    responseSerialize: serializer(encodeGetPluginCapabilitiesResponse),
    responseDeserialize: deserializer(decodeGetPluginCapabilitiesResponse),
    originalName: "getPluginCapabilities",
  },
  Probe: {
    path: "/csi.v1.Identity/Probe",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeProbeRequest),
    requestDeserialize: deserializer(decodeProbeRequest),
    responseSerialize: serializer(encodeProbeResponse),
    responseDeserialize: deserializer(decodeProbeResponse),
    originalName: "probe",
  },
};
