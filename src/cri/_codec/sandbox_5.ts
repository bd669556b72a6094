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
import { decodeLinuxContainerResources, encodeLinuxContainerResources } from "./sandbox_1.ts";
import { decodePodSandboxMetadata, encodePodSandboxMetadata } from "./sandbox_3.ts";
import { decodePodSandboxStateValue, encodePodSandboxStateValue } from "./sandbox_4.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

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

/** runtime.v1.UpdatePodSandboxResourcesRequest */
export function encodeUpdatePodSandboxResourcesRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.overhead) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeLinuxContainerResources(w, v);
    w.close(at);
  }
  if ((v = m.resources) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeLinuxContainerResources(w, v);
    w.close(at);
  }
}

export function decodeUpdatePodSandboxResourcesRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { podSandboxId: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.podSandboxId = r.string();
        break;
      case 18:
        m.overhead = decodeLinuxContainerResources(r, r.end());
        break;
      case 26:
        m.resources = decodeLinuxContainerResources(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.UpdatePodSandboxResourcesResponse */
export function encodeUpdatePodSandboxResourcesResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeUpdatePodSandboxResourcesResponse(r: ProtoReader, end: number): Msg {
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
