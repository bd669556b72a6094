// Generated from proto/csi/v1/csi.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import { enumName, enumValue, type ProtoReader, type ProtoWriter } from "../../cri/mod.ts";
import {
  NodeServiceCapability_RPC_Type_NAMES,
  NodeServiceCapability_RPC_Type_VALUES,
  VolumeUsage_Unit_NAMES,
  VolumeUsage_Unit_VALUES,
} from "./enums.ts";
import { decodeTopology, encodeTopology } from "./volumes_1.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** csi.v1.VolumeUsage */
export function encodeVolumeUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.available) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.total) != null && v !== 0) {
    w.tag(2, 0);
    w.int64(v);
  }
  if ((v = m.used) != null && v !== 0) {
    w.tag(3, 0);
    w.int64(v);
  }
  if ((v = m.unit) != null) {
    w.tag(4, 0);
    w.int32(enumValue(VolumeUsage_Unit_VALUES, v, "Unit"));
  }
}

export function decodeVolumeUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { available: 0, total: 0, used: 0, unit: "UNKNOWN" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.available = r.int64();
        break;
      case 16:
        m.total = r.int64();
        break;
      case 24:
        m.used = r.int64();
        break;
      case 32:
        m.unit = enumName(VolumeUsage_Unit_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.VolumeCondition */
export function encodeVolumeCondition(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.abnormal) != null && v !== false) {
    w.tag(1, 0);
    w.bool(v);
  }
  if ((v = m.message) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
}

export function decodeVolumeCondition(r: ProtoReader, end: number): Msg {
  const m: Msg = { abnormal: false, message: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.abnormal = r.bool();
        break;
      case 18:
        m.message = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeGetCapabilitiesRequest */
export function encodeNodeGetCapabilitiesRequest(_w: ProtoWriter, _m: Msg): void {
}

export function decodeNodeGetCapabilitiesRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeGetCapabilitiesResponse */
export function encodeNodeGetCapabilitiesResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.capabilities) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodeNodeServiceCapability(w, x);
      w.close(at);
    }
  }
}

export function decodeNodeGetCapabilitiesResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { capabilities: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.capabilities.push(decodeNodeServiceCapability(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeServiceCapability */
export function encodeNodeServiceCapability(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.rpc) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeNodeServiceCapability_RPC(w, v);
    w.close(at);
  }
}

export function decodeNodeServiceCapability(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.rpc = decodeNodeServiceCapability_RPC(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeServiceCapability.RPC */
export function encodeNodeServiceCapability_RPC(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.type) != null) {
    w.tag(1, 0);
    w.int32(enumValue(NodeServiceCapability_RPC_Type_VALUES, v, "Type"));
  }
}

export function decodeNodeServiceCapability_RPC(r: ProtoReader, end: number): Msg {
  const m: Msg = { type: "UNKNOWN" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.type = enumName(NodeServiceCapability_RPC_Type_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeGetInfoRequest */
export function encodeNodeGetInfoRequest(_w: ProtoWriter, _m: Msg): void {
}

export function decodeNodeGetInfoRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeGetInfoResponse */
export function encodeNodeGetInfoResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.nodeId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.maxVolumesPerNode) != null && v !== 0) {
    w.tag(2, 0);
    w.int64(v);
  }
  if ((v = m.accessibleTopology) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeTopology(w, v);
    w.close(at);
  }
}

export function decodeNodeGetInfoResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { nodeId: "", maxVolumesPerNode: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.nodeId = r.string();
        break;
      case 16:
        m.maxVolumesPerNode = r.int64();
        break;
      case 26:
        m.accessibleTopology = decodeTopology(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
