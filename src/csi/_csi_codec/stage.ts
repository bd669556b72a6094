// Generated from proto/csi/v1/csi.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import {
  enumName,
  enumValue,
  type ProtoReader,
  type ProtoWriter,
  readStringMapEntry,
  writeStringMap,
} from "../../cri/mod.ts";
import {
  VolumeCapability_AccessMode_Mode_NAMES,
  VolumeCapability_AccessMode_Mode_VALUES,
} from "./enums.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** csi.v1.VolumeCapability */
export function encodeVolumeCapability(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.block) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeVolumeCapability_BlockVolume(w, v);
    w.close(at);
  }
  if ((v = m.mount) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeVolumeCapability_MountVolume(w, v);
    w.close(at);
  }
  if ((v = m.accessMode) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeVolumeCapability_AccessMode(w, v);
    w.close(at);
  }
}

export function decodeVolumeCapability(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.block = decodeVolumeCapability_BlockVolume(r, r.end());
        break;
      case 18:
        m.mount = decodeVolumeCapability_MountVolume(r, r.end());
        break;
      case 26:
        m.accessMode = decodeVolumeCapability_AccessMode(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.VolumeCapability.BlockVolume */
export function encodeVolumeCapability_BlockVolume(_w: ProtoWriter, _m: Msg): void {
}

export function decodeVolumeCapability_BlockVolume(r: ProtoReader, end: number): Msg {
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

/** csi.v1.VolumeCapability.MountVolume */
export function encodeVolumeCapability_MountVolume(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.fsType) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.mountFlags) != null) {
    for (const x of v) {
      w.tag(2, 2);
      w.string(x);
    }
  }
  if ((v = m.volumeMountGroup) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
}

export function decodeVolumeCapability_MountVolume(r: ProtoReader, end: number): Msg {
  const m: Msg = { fsType: "", mountFlags: [], volumeMountGroup: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.fsType = r.string();
        break;
      case 18:
        m.mountFlags.push(r.string());
        break;
      case 26:
        m.volumeMountGroup = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.VolumeCapability.AccessMode */
export function encodeVolumeCapability_AccessMode(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.mode) != null) {
    w.tag(1, 0);
    w.int32(enumValue(VolumeCapability_AccessMode_Mode_VALUES, v, "Mode"));
  }
}

export function decodeVolumeCapability_AccessMode(r: ProtoReader, end: number): Msg {
  const m: Msg = { mode: "UNKNOWN" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.mode = enumName(VolumeCapability_AccessMode_Mode_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeStageVolumeRequest */
export function encodeNodeStageVolumeRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.volumeId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.publishContext) != null) writeStringMap(w, 2, v);
  if ((v = m.stagingTargetPath) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.volumeCapability) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeVolumeCapability(w, v);
    w.close(at);
  }
  if ((v = m.secrets) != null) writeStringMap(w, 5, v);
  if ((v = m.volumeContext) != null) writeStringMap(w, 6, v);
}

export function decodeNodeStageVolumeRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    volumeId: "",
    publishContext: {},
    stagingTargetPath: "",
    secrets: {},
    volumeContext: {},
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.volumeId = r.string();
        break;
      case 18:
        readStringMapEntry(r, m.publishContext);
        break;
      case 26:
        m.stagingTargetPath = r.string();
        break;
      case 34:
        m.volumeCapability = decodeVolumeCapability(r, r.end());
        break;
      case 42:
        readStringMapEntry(r, m.secrets);
        break;
      case 50:
        readStringMapEntry(r, m.volumeContext);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodeStageVolumeResponse */
export function encodeNodeStageVolumeResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeNodeStageVolumeResponse(r: ProtoReader, end: number): Msg {
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
