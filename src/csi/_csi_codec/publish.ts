// Generated from proto/csi/v1/csi.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import {
  type ProtoReader,
  type ProtoWriter,
  readStringMapEntry,
  writeStringMap,
} from "../../cri/mod.ts";
import { decodeVolumeCapability, encodeVolumeCapability } from "./stage.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** csi.v1.NodePublishVolumeRequest */
export function encodeNodePublishVolumeRequest(w: ProtoWriter, m: Msg): void {
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
  if ((v = m.targetPath) != null && v !== "") {
    w.tag(4, 2);
    w.string(v);
  }
  if ((v = m.volumeCapability) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeVolumeCapability(w, v);
    w.close(at);
  }
  if ((v = m.readonly) != null && v !== false) {
    w.tag(6, 0);
    w.bool(v);
  }
  if ((v = m.secrets) != null) writeStringMap(w, 7, v);
  if ((v = m.volumeContext) != null) writeStringMap(w, 8, v);
}

export function decodeNodePublishVolumeRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    volumeId: "",
    publishContext: {},
    stagingTargetPath: "",
    targetPath: "",
    readonly: false,
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
        m.targetPath = r.string();
        break;
      case 42:
        m.volumeCapability = decodeVolumeCapability(r, r.end());
        break;
      case 48:
        m.readonly = r.bool();
        break;
      case 58:
        readStringMapEntry(r, m.secrets);
        break;
      case 66:
        readStringMapEntry(r, m.volumeContext);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.NodePublishVolumeResponse */
export function encodeNodePublishVolumeResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeNodePublishVolumeResponse(r: ProtoReader, end: number): Msg {
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
