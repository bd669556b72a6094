// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import {
  enumName,
  enumValue,
  type ProtoReader,
  type ProtoWriter,
  readStringMapEntry,
  writeStringMap,
} from "../_wire.ts";
import { MountPropagation_NAMES, MountPropagation_VALUES } from "./enums.ts";
import { decodeIDMapping, encodeIDMapping } from "./sandbox_1.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.KeyValue */
export function encodeKeyValue(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.key) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.value) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
}

export function decodeKeyValue(r: ProtoReader, end: number): Msg {
  const m: Msg = { key: "", value: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.key = r.string();
        break;
      case 18:
        m.value = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ImageSpec */
export function encodeImageSpec(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.image) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.annotations) != null) writeStringMap(w, 2, v);
}

export function decodeImageSpec(r: ProtoReader, end: number): Msg {
  const m: Msg = { image: "", annotations: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.image = r.string();
        break;
      case 18:
        readStringMapEntry(r, m.annotations);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.Mount */
export function encodeMount(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerPath) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.hostPath) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.readonly) != null && v !== false) {
    w.tag(3, 0);
    w.bool(v);
  }
  if ((v = m.selinuxRelabel) != null && v !== false) {
    w.tag(4, 0);
    w.bool(v);
  }
  if ((v = m.propagation) != null) {
    w.tag(5, 0);
    w.int32(enumValue(MountPropagation_VALUES, v, "MountPropagation"));
  }
  if ((v = m.uidMappings) != null) {
    for (const x of v) {
      w.tag(6, 2);
      const at = w.open();
      encodeIDMapping(w, x);
      w.close(at);
    }
  }
  if ((v = m.gidMappings) != null) {
    for (const x of v) {
      w.tag(7, 2);
      const at = w.open();
      encodeIDMapping(w, x);
      w.close(at);
    }
  }
  if ((v = m.recursiveReadOnly) != null && v !== false) {
    w.tag(8, 0);
    w.bool(v);
  }
  if ((v = m.image) != null) {
    w.tag(9, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
  if ((v = m.imageSubPath) != null && v !== "") {
    w.tag(10, 2);
    w.string(v);
  }
  if ((v = m.mountOptions) != null) {
    for (const x of v) {
      w.tag(11, 2);
      w.string(x);
    }
  }
}

export function decodeMount(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    containerPath: "",
    hostPath: "",
    readonly: false,
    selinuxRelabel: false,
    propagation: "PROPAGATION_PRIVATE",
    uidMappings: [],
    gidMappings: [],
    recursiveReadOnly: false,
    imageSubPath: "",
    mountOptions: [],
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerPath = r.string();
        break;
      case 18:
        m.hostPath = r.string();
        break;
      case 24:
        m.readonly = r.bool();
        break;
      case 32:
        m.selinuxRelabel = r.bool();
        break;
      case 40:
        m.propagation = enumName(MountPropagation_NAMES, r.int32());
        break;
      case 50:
        m.uidMappings.push(decodeIDMapping(r, r.end()));
        break;
      case 58:
        m.gidMappings.push(decodeIDMapping(r, r.end()));
        break;
      case 64:
        m.recursiveReadOnly = r.bool();
        break;
      case 74:
        m.image = decodeImageSpec(r, r.end());
        break;
      case 82:
        m.imageSubPath = r.string();
        break;
      case 90:
        m.mountOptions.push(r.string());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.Capability */
export function encodeCapability(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.addCapabilities) != null) {
    for (const x of v) {
      w.tag(1, 2);
      w.string(x);
    }
  }
  if ((v = m.dropCapabilities) != null) {
    for (const x of v) {
      w.tag(2, 2);
      w.string(x);
    }
  }
}

export function decodeCapability(r: ProtoReader, end: number): Msg {
  const m: Msg = { addCapabilities: [], dropCapabilities: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.addCapabilities.push(r.string());
        break;
      case 18:
        m.dropCapabilities.push(r.string());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
