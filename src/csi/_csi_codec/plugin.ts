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
  PluginCapability_Service_Type_NAMES,
  PluginCapability_Service_Type_VALUES,
  PluginCapability_VolumeExpansion_Type_NAMES,
  PluginCapability_VolumeExpansion_Type_VALUES,
} from "./enums.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** csi.v1.BoolValue */
export function encodeBoolValue(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.value) != null && v !== false) {
    w.tag(1, 0);
    w.bool(v);
  }
}

export function decodeBoolValue(r: ProtoReader, end: number): Msg {
  const m: Msg = { value: false };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.value = r.bool();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.GetPluginInfoRequest */
export function encodeGetPluginInfoRequest(_w: ProtoWriter, _m: Msg): void {
}

export function decodeGetPluginInfoRequest(r: ProtoReader, end: number): Msg {
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

/** csi.v1.GetPluginInfoResponse */
export function encodeGetPluginInfoResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.name) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.vendorVersion) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.manifest) != null) writeStringMap(w, 3, v);
}

export function decodeGetPluginInfoResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { name: "", vendorVersion: "", manifest: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.name = r.string();
        break;
      case 18:
        m.vendorVersion = r.string();
        break;
      case 26:
        readStringMapEntry(r, m.manifest);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.GetPluginCapabilitiesRequest */
export function encodeGetPluginCapabilitiesRequest(_w: ProtoWriter, _m: Msg): void {
}

export function decodeGetPluginCapabilitiesRequest(r: ProtoReader, end: number): Msg {
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

/** csi.v1.GetPluginCapabilitiesResponse */
export function encodeGetPluginCapabilitiesResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.capabilities) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodePluginCapability(w, x);
      w.close(at);
    }
  }
}

export function decodeGetPluginCapabilitiesResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { capabilities: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.capabilities.push(decodePluginCapability(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.PluginCapability */
export function encodePluginCapability(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.service) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePluginCapability_Service(w, v);
    w.close(at);
  }
  if ((v = m.volumeExpansion) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodePluginCapability_VolumeExpansion(w, v);
    w.close(at);
  }
}

export function decodePluginCapability(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.service = decodePluginCapability_Service(r, r.end());
        break;
      case 18:
        m.volumeExpansion = decodePluginCapability_VolumeExpansion(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.PluginCapability.Service */
export function encodePluginCapability_Service(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.type) != null) {
    w.tag(1, 0);
    w.int32(enumValue(PluginCapability_Service_Type_VALUES, v, "Type"));
  }
}

export function decodePluginCapability_Service(r: ProtoReader, end: number): Msg {
  const m: Msg = { type: "UNKNOWN" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.type = enumName(PluginCapability_Service_Type_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.PluginCapability.VolumeExpansion */
export function encodePluginCapability_VolumeExpansion(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.type) != null) {
    w.tag(1, 0);
    w.int32(enumValue(PluginCapability_VolumeExpansion_Type_VALUES, v, "Type"));
  }
}

export function decodePluginCapability_VolumeExpansion(r: ProtoReader, end: number): Msg {
  const m: Msg = { type: "UNKNOWN" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.type = enumName(PluginCapability_VolumeExpansion_Type_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** csi.v1.ProbeRequest */
export function encodeProbeRequest(_w: ProtoWriter, _m: Msg): void {
}

export function decodeProbeRequest(r: ProtoReader, end: number): Msg {
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

/** csi.v1.ProbeResponse */
export function encodeProbeResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.ready) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeBoolValue(w, v);
    w.close(at);
  }
}

export function decodeProbeResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.ready = decodeBoolValue(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
