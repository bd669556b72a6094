// Generated from proto/csi/v1/csi.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts

import type { ServiceDefinition } from "@grpc/grpc-js";
import { deserializer, serializer } from "../../cri/mod.ts";
import {
  decodeNodeStageVolumeRequest,
  decodeNodeStageVolumeResponse,
  encodeNodeStageVolumeRequest,
  encodeNodeStageVolumeResponse,
} from "./stage.ts";
import {
  decodeNodeGetVolumeStatsRequest,
  decodeNodeGetVolumeStatsResponse,
  decodeNodeUnpublishVolumeRequest,
  decodeNodeUnpublishVolumeResponse,
  decodeNodeUnstageVolumeRequest,
  decodeNodeUnstageVolumeResponse,
  encodeNodeGetVolumeStatsRequest,
  encodeNodeGetVolumeStatsResponse,
  encodeNodeUnpublishVolumeRequest,
  encodeNodeUnpublishVolumeResponse,
  encodeNodeUnstageVolumeRequest,
  encodeNodeUnstageVolumeResponse,
} from "./volumes_1.ts";
import {
  decodeNodeGetCapabilitiesRequest,
  decodeNodeGetCapabilitiesResponse,
  decodeNodeGetInfoRequest,
  decodeNodeGetInfoResponse,
  encodeNodeGetCapabilitiesRequest,
  encodeNodeGetCapabilitiesResponse,
  encodeNodeGetInfoRequest,
  encodeNodeGetInfoResponse,
} from "./volumes_2.ts";
import {
  decodeNodePublishVolumeRequest,
  decodeNodePublishVolumeResponse,
  encodeNodePublishVolumeRequest,
  encodeNodePublishVolumeResponse,
} from "./publish.ts";

/** csi.v1.Node, as grpc-js clients and servers take it. */
export const Node: ServiceDefinition = {
  NodeStageVolume: {
    path: "/csi.v1.Node/NodeStageVolume",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeNodeStageVolumeRequest),
    requestDeserialize: deserializer(decodeNodeStageVolumeRequest),
    responseSerialize: serializer(encodeNodeStageVolumeResponse),
    responseDeserialize: deserializer(decodeNodeStageVolumeResponse),
    originalName: "nodeStageVolume",
  },
  NodeUnstageVolume: {
    path: "/csi.v1.Node/NodeUnstageVolume",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeNodeUnstageVolumeRequest),
    requestDeserialize: deserializer(decodeNodeUnstageVolumeRequest),
    responseSerialize: serializer(encodeNodeUnstageVolumeResponse),
    responseDeserialize: deserializer(decodeNodeUnstageVolumeResponse),
    originalName: "nodeUnstageVolume",
  },
  NodePublishVolume: {
    path: "/csi.v1.Node/NodePublishVolume",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeNodePublishVolumeRequest),
    requestDeserialize: deserializer(decodeNodePublishVolumeRequest),
    responseSerialize: serializer(encodeNodePublishVolumeResponse),
    responseDeserialize: deserializer(decodeNodePublishVolumeResponse),
    originalName: "nodePublishVolume",
  },
  NodeUnpublishVolume: {
    path: "/csi.v1.Node/NodeUnpublishVolume",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeNodeUnpublishVolumeRequest),
    requestDeserialize: deserializer(decodeNodeUnpublishVolumeRequest),
    responseSerialize: serializer(encodeNodeUnpublishVolumeResponse),
    responseDeserialize: deserializer(decodeNodeUnpublishVolumeResponse),
    originalName: "nodeUnpublishVolume",
  },
  NodeGetVolumeStats: {
    path: "/csi.v1.Node/NodeGetVolumeStats",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeNodeGetVolumeStatsRequest),
    requestDeserialize: deserializer(decodeNodeGetVolumeStatsRequest),
    responseSerialize: serializer(encodeNodeGetVolumeStatsResponse),
    responseDeserialize: deserializer(decodeNodeGetVolumeStatsResponse),
    originalName: "nodeGetVolumeStats",
  },
  NodeGetCapabilities: {
    path: "/csi.v1.Node/NodeGetCapabilities",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeNodeGetCapabilitiesRequest),
    requestDeserialize: deserializer(decodeNodeGetCapabilitiesRequest),
    responseSerialize: serializer(encodeNodeGetCapabilitiesResponse),
    responseDeserialize: deserializer(decodeNodeGetCapabilitiesResponse),
    originalName: "nodeGetCapabilities",
  },
  NodeGetInfo: {
    path: "/csi.v1.Node/NodeGetInfo",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeNodeGetInfoRequest),
    requestDeserialize: deserializer(decodeNodeGetInfoRequest),
    responseSerialize: serializer(encodeNodeGetInfoResponse),
    responseDeserialize: deserializer(decodeNodeGetInfoResponse),
    originalName: "nodeGetInfo",
  },
};
