// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import type { ProtoReader, ProtoWriter } from "../_wire.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.VersionRequest */
export function encodeVersionRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.version) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeVersionRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { version: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.version = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.VersionResponse */
export function encodeVersionResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.version) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.runtimeName) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.runtimeVersion) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.runtimeApiVersion) != null && v !== "") {
    w.tag(4, 2);
    w.string(v);
  }
}

export function decodeVersionResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { version: "", runtimeName: "", runtimeVersion: "", runtimeApiVersion: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.version = r.string();
        break;
      case 18:
        m.runtimeName = r.string();
        break;
      case 26:
        m.runtimeVersion = r.string();
        break;
      case 34:
        m.runtimeApiVersion = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.StatusRequest */
export function encodeStatusRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.verbose) != null && v !== false) {
    w.tag(1, 0);
    w.bool(v);
  }
}

export function decodeStatusRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { verbose: false };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.verbose = r.bool();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RuntimeCondition */
export function encodeRuntimeCondition(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.type) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.status) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
  if ((v = m.reason) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.message) != null && v !== "") {
    w.tag(4, 2);
    w.string(v);
  }
}

export function decodeRuntimeCondition(r: ProtoReader, end: number): Msg {
  const m: Msg = { type: "", status: false, reason: "", message: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.type = r.string();
        break;
      case 16:
        m.status = r.bool();
        break;
      case 26:
        m.reason = r.string();
        break;
      case 34:
        m.message = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RuntimeStatus */
export function encodeRuntimeStatus(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.conditions) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodeRuntimeCondition(w, x);
      w.close(at);
    }
  }
}

export function decodeRuntimeStatus(r: ProtoReader, end: number): Msg {
  const m: Msg = { conditions: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.conditions.push(decodeRuntimeCondition(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RuntimeHandlerFeatures */
export function encodeRuntimeHandlerFeatures(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.recursiveReadOnlyMounts) != null && v !== false) {
    w.tag(1, 0);
    w.bool(v);
  }
  if ((v = m.userNamespaces) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
}

export function decodeRuntimeHandlerFeatures(r: ProtoReader, end: number): Msg {
  const m: Msg = { recursiveReadOnlyMounts: false, userNamespaces: false };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.recursiveReadOnlyMounts = r.bool();
        break;
      case 16:
        m.userNamespaces = r.bool();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
