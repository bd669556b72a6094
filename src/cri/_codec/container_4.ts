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
import { ContainerState_NAMES, ContainerState_VALUES } from "./enums.ts";
import { decodeImageSpec, encodeImageSpec } from "./container_1.ts";
import { decodeContainerMetadata, encodeContainerMetadata } from "./container_3.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.StartContainerRequest */
export function encodeStartContainerRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeStartContainerRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.StartContainerResponse */
export function encodeStartContainerResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeStartContainerResponse(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.StopContainerRequest */
export function encodeStopContainerRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.timeout) != null && v !== 0) {
    w.tag(2, 0);
    w.int64(v);
  }
}

export function decodeStopContainerRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "", timeout: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
        break;
      case 16:
        m.timeout = r.int64();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.StopContainerResponse */
export function encodeStopContainerResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeStopContainerResponse(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.RemoveContainerRequest */
export function encodeRemoveContainerRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeRemoveContainerRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RemoveContainerResponse */
export function encodeRemoveContainerResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeRemoveContainerResponse(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.ContainerStateValue */
export function encodeContainerStateValue(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.state) != null) {
    w.tag(1, 0);
    w.int32(enumValue(ContainerState_VALUES, v, "ContainerState"));
  }
}

export function decodeContainerStateValue(r: ProtoReader, end: number): Msg {
  const m: Msg = { state: "CONTAINER_CREATED" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.state = enumName(ContainerState_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerFilter */
export function encodeContainerFilter(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.state) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeContainerStateValue(w, v);
    w.close(at);
  }
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.labelSelector) != null) writeStringMap(w, 4, v);
}

export function decodeContainerFilter(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", podSandboxId: "", labelSelector: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.state = decodeContainerStateValue(r, r.end());
        break;
      case 26:
        m.podSandboxId = r.string();
        break;
      case 34:
        readStringMapEntry(r, m.labelSelector);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListContainersRequest */
export function encodeListContainersRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.filter) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerFilter(w, v);
    w.close(at);
  }
}

export function decodeListContainersRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.filter = decodeContainerFilter(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.Container */
export function encodeContainer(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.metadata) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeContainerMetadata(w, v);
    w.close(at);
  }
  if ((v = m.image) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
  if ((v = m.imageRef) != null && v !== "") {
    w.tag(5, 2);
    w.string(v);
  }
  if ((v = m.state) != null) {
    w.tag(6, 0);
    w.int32(enumValue(ContainerState_VALUES, v, "ContainerState"));
  }
  if ((v = m.createdAt) != null && v !== 0) {
    w.tag(7, 0);
    w.int64(v);
  }
  if ((v = m.labels) != null) writeStringMap(w, 8, v);
  if ((v = m.annotations) != null) writeStringMap(w, 9, v);
}

export function decodeContainer(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    id: "",
    podSandboxId: "",
    imageRef: "",
    state: "CONTAINER_CREATED",
    createdAt: 0,
    labels: {},
    annotations: {},
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.podSandboxId = r.string();
        break;
      case 26:
        m.metadata = decodeContainerMetadata(r, r.end());
        break;
      case 34:
        m.image = decodeImageSpec(r, r.end());
        break;
      case 42:
        m.imageRef = r.string();
        break;
      case 48:
        m.state = enumName(ContainerState_NAMES, r.int32());
        break;
      case 56:
        m.createdAt = r.int64();
        break;
      case 66:
        readStringMapEntry(r, m.labels);
        break;
      case 74:
        readStringMapEntry(r, m.annotations);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
