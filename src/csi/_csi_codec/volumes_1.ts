// Generated from proto/csi/v1/csi.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import {
  type ProtoReader,
  type ProtoWriter,
  readStringMapEntry,
  writeStringMap,
} from "../../cri/mod.ts";
import {
  decodeVolumeCondition,
  decodeVolumeUsage,
  encodeVolumeCondition,
  encodeVolumeUsage,
} from "./volumes_2.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** csi.v1.Topology */
export function encodeTopology(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.segments) != null) writeStringMap(w, 1, v);
}

export function decodeTopology(r: ProtoReader, end: number): Msg {
  const m: Msg = { segments: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        readStringMapEntry(r, m.segments);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeUnstageVolumeRequest */
export function encodeNodeUnstageVolumeRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.volumeId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.stagingTargetPath) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
}

export function decodeNodeUnstageVolumeRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { volumeId: "", stagingTargetPath: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.volumeId = r.string();
        break;
      case 18:
        m.stagingTargetPath = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeUnstageVolumeResponse */
export function encodeNodeUnstageVolumeResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeNodeUnstageVolumeResponse(r: ProtoReader, end: number): Msg {
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

/** csi.v1.NodeUnpublishVolumeRequest */
export function encodeNodeUnpublishVolumeRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.volumeId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.targetPath) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
}

export function decodeNodeUnpublishVolumeRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { volumeId: "", targetPath: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.volumeId = r.string();
        break;
      case 18:
        m.targetPath = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeUnpublishVolumeResponse */
export function encodeNodeUnpublishVolumeResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeNodeUnpublishVolumeResponse(r: ProtoReader, end: number): Msg {
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

/** csi.v1.NodeGetVolumeStatsRequest */
export function encodeNodeGetVolumeStatsRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.volumeId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.volumePath) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.stagingTargetPath) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
}

export function decodeNodeGetVolumeStatsRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { volumeId: "", volumePath: "", stagingTargetPath: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.volumeId = r.string();
        break;
      case 18:
        m.volumePath = r.string();
        break;
      case 26:
        m.stagingTargetPath = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeGetVolumeStatsResponse */
export function encodeNodeGetVolumeStatsResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.usage) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodeVolumeUsage(w, x);
      w.close(at);
    }
  }
  if ((v = m.volumeCondition) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeVolumeCondition(w, v);
    w.close(at);
  }
}

export function decodeNodeGetVolumeStatsResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { usage: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.usage.push(decodeVolumeUsage(r, r.end()));
        break;
      case 18:
        m.volumeCondition = decodeVolumeCondition(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
