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
import { decodePodSandboxMetadata, encodePodSandboxMetadata } from "./sandbox_2.ts";
import {
  decodeLinuxPodSandboxStatus,
  decodePodSandboxNetworkStatus,
  encodeLinuxPodSandboxStatus,
  encodePodSandboxNetworkStatus,
} from "./sandbox_3.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

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

/** runtime.v1.PodSandboxFilter */
export function encodePodSandboxFilter(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.state) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodePodSandboxStateValue(w, v);
    w.close(at);
  }
  if ((v = m.labelSelector) != null) writeStringMap(w, 3, v);
}

export function decodePodSandboxFilter(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", labelSelector: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.state = decodePodSandboxStateValue(r, r.end());
        break;
      case 26:
        readStringMapEntry(r, m.labelSelector);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListPodSandboxRequest */
export function encodeListPodSandboxRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.filter) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePodSandboxFilter(w, v);
    w.close(at);
  }
}

export function decodeListPodSandboxRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.filter = decodePodSandboxFilter(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandbox */
export function encodePodSandbox(w: ProtoWriter, m: Msg): void {
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
  if ((v = m.labels) != null) writeStringMap(w, 5, v);
  if ((v = m.annotations) != null) writeStringMap(w, 6, v);
  if ((v = m.runtimeHandler) != null && v !== "") {
    w.tag(7, 2);
    w.string(v);
  }
}

export function decodePodSandbox(r: ProtoReader, end: number): Msg {
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
        readStringMapEntry(r, m.labels);
        break;
      case 50:
        readStringMapEntry(r, m.annotations);
        break;
      case 58:
        m.runtimeHandler = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListPodSandboxResponse */
export function encodeListPodSandboxResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.items) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodePodSandbox(w, x);
      w.close(at);
    }
  }
}

export function decodeListPodSandboxResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { items: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.items.push(decodePodSandbox(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
