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
import {
  decodeInt64Value,
  decodeNamespaceOption,
  encodeInt64Value,
  encodeNamespaceOption,
} from "./sandbox_1.ts";
import { decodeSecurityProfile, encodeSecurityProfile } from "./sandbox_2.ts";

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
}

export function decodeMount(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    containerPath: "",
    hostPath: "",
    readonly: false,
    selinuxRelabel: false,
    propagation: "PROPAGATION_PRIVATE",
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

/** runtime.v1.LinuxContainerSecurityContext */
export function encodeLinuxContainerSecurityContext(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.capabilities) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeCapability(w, v);
    w.close(at);
  }
  if ((v = m.privileged) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
  if ((v = m.namespaceOptions) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeNamespaceOption(w, v);
    w.close(at);
  }
  if ((v = m.runAsUser) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.runAsUsername) != null && v !== "") {
    w.tag(6, 2);
    w.string(v);
  }
  if ((v = m.readonlyRootfs) != null && v !== false) {
    w.tag(7, 0);
    w.bool(v);
  }
  if ((v = m.supplementalGroups) != null && v.length > 0) {
    w.tag(8, 2);
    const at = w.open();
    for (const x of v) w.int64(x);
    w.close(at);
  }
  if ((v = m.noNewPrivs) != null && v !== false) {
    w.tag(11, 0);
    w.bool(v);
  }
  if ((v = m.runAsGroup) != null) {
    w.tag(12, 2);
    const at = w.open();
    encodeInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.maskedPaths) != null) {
    for (const x of v) {
      w.tag(13, 2);
      w.string(x);
    }
  }
  if ((v = m.readonlyPaths) != null) {
    for (const x of v) {
      w.tag(14, 2);
      w.string(x);
    }
  }
  if ((v = m.seccomp) != null) {
    w.tag(15, 2);
    const at = w.open();
    encodeSecurityProfile(w, v);
    w.close(at);
  }
}

export function decodeLinuxContainerSecurityContext(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    privileged: false,
    runAsUsername: "",
    readonlyRootfs: false,
    supplementalGroups: [],
    noNewPrivs: false,
    maskedPaths: [],
    readonlyPaths: [],
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.capabilities = decodeCapability(r, r.end());
        break;
      case 16:
        m.privileged = r.bool();
        break;
      case 26:
        m.namespaceOptions = decodeNamespaceOption(r, r.end());
        break;
      case 42:
        m.runAsUser = decodeInt64Value(r, r.end());
        break;
      case 50:
        m.runAsUsername = r.string();
        break;
      case 56:
        m.readonlyRootfs = r.bool();
        break;
      case 64:
        m.supplementalGroups.push(r.int64());
        break;
      case 66: {
        const e = r.end();
        while (r.pos < e) m.supplementalGroups.push(r.int64());
        break;
      }
      case 88:
        m.noNewPrivs = r.bool();
        break;
      case 98:
        m.runAsGroup = decodeInt64Value(r, r.end());
        break;
      case 106:
        m.maskedPaths.push(r.string());
        break;
      case 114:
        m.readonlyPaths.push(r.string());
        break;
      case 122:
        m.seccomp = decodeSecurityProfile(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
