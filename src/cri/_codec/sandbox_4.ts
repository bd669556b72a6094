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
import { PodSandboxState_NAMES, PodSandboxState_VALUES } from "./enums.ts";
import { decodeNamespaceOption, encodeNamespaceOption } from "./sandbox_1.ts";
import { decodePodSandboxMetadata, encodePodSandboxMetadata } from "./sandbox_3.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.PodSandboxStatusRequest */
export function encodePodSandboxStatusRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.verbose) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
}

export function decodePodSandboxStatusRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { podSandboxId: "", verbose: false };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.podSandboxId = r.string();
        break;
      case 16:
        m.verbose = r.bool();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodIP */
export function encodePodIP(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.ip) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodePodIP(r: ProtoReader, end: number): Msg {
  const m: Msg = { ip: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.ip = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxNetworkStatus */
export function encodePodSandboxNetworkStatus(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.ip) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.additionalIps) != null) {
    for (const x of v) {
      w.tag(2, 2);
      const at = w.open();
      encodePodIP(w, x);
      w.close(at);
    }
  }
}

export function decodePodSandboxNetworkStatus(r: ProtoReader, end: number): Msg {
  const m: Msg = { ip: "", additionalIps: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.ip = r.string();
        break;
      case 18:
        m.additionalIps.push(decodePodIP(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.Namespace */
export function encodeNamespace(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.options) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeNamespaceOption(w, v);
    w.close(at);
  }
}

export function decodeNamespace(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 18:
        m.options = decodeNamespaceOption(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.LinuxPodSandboxStatus */
export function encodeLinuxPodSandboxStatus(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.namespaces) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeNamespace(w, v);
    w.close(at);
  }
}

export function decodeLinuxPodSandboxStatus(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.namespaces = decodeNamespace(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxStatus */
export function encodePodSandboxStatus(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.metadata) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodePodSandboxMetadata(w, v);
    w.close(at);
  }
  if ((v = m.state) != null) {
    w.tag(3, 0);
    w.int32(enumValue(PodSandboxState_VALUES, v, "PodSandboxState"));
  }
  if ((v = m.createdAt) != null && v !== 0) {
    w.tag(4, 0);
    w.int64(v);
  }
  if ((v = m.network) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodePodSandboxNetworkStatus(w, v);
    w.close(at);
  }
  if ((v = m.linux) != null) {
    w.tag(6, 2);
    const at = w.open();
    encodeLinuxPodSandboxStatus(w, v);
    w.close(at);
  }
  if ((v = m.labels) != null) writeStringMap(w, 7, v);
  if ((v = m.annotations) != null) writeStringMap(w, 8, v);
  if ((v = m.runtimeHandler) != null && v !== "") {
    w.tag(9, 2);
    w.string(v);
  }
}

export function decodePodSandboxStatus(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    id: "",
    state: "SANDBOX_READY",
    createdAt: 0,
    labels: {},
    annotations: {},
    runtimeHandler: "",
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.metadata = decodePodSandboxMetadata(r, r.end());
        break;
      case 24:
        m.state = enumName(PodSandboxState_NAMES, r.int32());
        break;
      case 32:
        m.createdAt = r.int64();
        break;
      case 42:
        m.network = decodePodSandboxNetworkStatus(r, r.end());
        break;
      case 50:
        m.linux = decodeLinuxPodSandboxStatus(r, r.end());
        break;
      case 58:
        readStringMapEntry(r, m.labels);
        break;
      case 66:
        readStringMapEntry(r, m.annotations);
        break;
      case 74:
        m.runtimeHandler = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxStatusResponse */
export function encodePodSandboxStatusResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.status) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePodSandboxStatus(w, v);
    w.close(at);
  }
  if ((v = m.info) != null) writeStringMap(w, 2, v);
}

export function decodePodSandboxStatusResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { info: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.status = decodePodSandboxStatus(r, r.end());
        break;
      case 18:
        readStringMapEntry(r, m.info);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxStateValue */
export function encodePodSandboxStateValue(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.state) != null) {
    w.tag(1, 0);
    w.int32(enumValue(PodSandboxState_VALUES, v, "PodSandboxState"));
  }
}

export function decodePodSandboxStateValue(r: ProtoReader, end: number): Msg {
  const m: Msg = { state: "SANDBOX_READY" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.state = enumName(PodSandboxState_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
