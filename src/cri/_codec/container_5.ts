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
import {
  ContainerState_NAMES,
  ContainerState_VALUES,
  Signal_NAMES,
  Signal_VALUES,
} from "./enums.ts";
import { decodeImageSpec, decodeMount, encodeImageSpec, encodeMount } from "./container_1.ts";
import {
  decodeContainerResources,
  decodeContainerUser,
  encodeContainerResources,
  encodeContainerUser,
} from "./container_2.ts";
import { decodeContainerMetadata, encodeContainerMetadata } from "./container_3.ts";
import { decodeContainer, encodeContainer } from "./container_4.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.ListContainersResponse */
export function encodeListContainersResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containers) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodeContainer(w, x);
      w.close(at);
    }
  }
}

export function decodeListContainersResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { containers: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containers.push(decodeContainer(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerStatusRequest */
export function encodeContainerStatusRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.verbose) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
}

export function decodeContainerStatusRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "", verbose: false };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
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

/** runtime.v1.ContainerStatus */
export function encodeContainerStatus(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.metadata) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeContainerMetadata(w, v);
    w.close(at);
  }
  if ((v = m.state) != null) {
    w.tag(3, 0);
    w.int32(enumValue(ContainerState_VALUES, v, "ContainerState"));
  }
  if ((v = m.createdAt) != null && v !== 0) {
    w.tag(4, 0);
    w.int64(v);
  }
  if ((v = m.startedAt) != null && v !== 0) {
    w.tag(5, 0);
    w.int64(v);
  }
  if ((v = m.finishedAt) != null && v !== 0) {
    w.tag(6, 0);
    w.int64(v);
  }
  if ((v = m.exitCode) != null && v !== 0) {
    w.tag(7, 0);
    w.int32(v);
  }
  if ((v = m.image) != null) {
    w.tag(8, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
  if ((v = m.imageRef) != null && v !== "") {
    w.tag(9, 2);
    w.string(v);
  }
  if ((v = m.reason) != null && v !== "") {
    w.tag(10, 2);
    w.string(v);
  }
  if ((v = m.message) != null && v !== "") {
    w.tag(11, 2);
    w.string(v);
  }
  if ((v = m.labels) != null) writeStringMap(w, 12, v);
  if ((v = m.annotations) != null) writeStringMap(w, 13, v);
  if ((v = m.mounts) != null) {
    for (const x of v) {
      w.tag(14, 2);
      const at = w.open();
      encodeMount(w, x);
      w.close(at);
    }
  }
  if ((v = m.logPath) != null && v !== "") {
    w.tag(15, 2);
    w.string(v);
  }
  if ((v = m.resources) != null) {
    w.tag(16, 2);
    const at = w.open();
    encodeContainerResources(w, v);
    w.close(at);
  }
  if ((v = m.imageId) != null && v !== "") {
    w.tag(17, 2);
    w.string(v);
  }
  if ((v = m.user) != null) {
    w.tag(18, 2);
    const at = w.open();
    encodeContainerUser(w, v);
    w.close(at);
  }
  if ((v = m.stopSignal) != null) {
    w.tag(19, 0);
    w.int32(enumValue(Signal_VALUES, v, "Signal"));
  }
}

export function decodeContainerStatus(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    id: "",
    state: "CONTAINER_CREATED",
    createdAt: 0,
    startedAt: 0,
    finishedAt: 0,
    exitCode: 0,
    imageRef: "",
    reason: "",
    message: "",
    labels: {},
    annotations: {},
    mounts: [],
    logPath: "",
    imageId: "",
    stopSignal: "SIGNAL_RUNTIME_DEFAULT",
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.metadata = decodeContainerMetadata(r, r.end());
        break;
      case 24:
        m.state = enumName(ContainerState_NAMES, r.int32());
        break;
      case 32:
        m.createdAt = r.int64();
        break;
      case 40:
        m.startedAt = r.int64();
        break;
      case 48:
        m.finishedAt = r.int64();
        break;
      case 56:
        m.exitCode = r.int32();
        break;
      case 66:
        m.image = decodeImageSpec(r, r.end());
        break;
      case 74:
        m.imageRef = r.string();
        break;
      case 82:
        m.reason = r.string();
        break;
      case 90:
        m.message = r.string();
        break;
      case 98:
        readStringMapEntry(r, m.labels);
        break;
      case 106:
        readStringMapEntry(r, m.annotations);
        break;
      case 114:
        m.mounts.push(decodeMount(r, r.end()));
        break;
      case 122:
        m.logPath = r.string();
        break;
      case 130:
        m.resources = decodeContainerResources(r, r.end());
        break;
      case 138:
        m.imageId = r.string();
        break;
      case 146:
        m.user = decodeContainerUser(r, r.end());
        break;
      case 152:
        m.stopSignal = enumName(Signal_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerStatusResponse */
export function encodeContainerStatusResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.status) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerStatus(w, v);
    w.close(at);
  }
  if ((v = m.info) != null) writeStringMap(w, 2, v);
}

export function decodeContainerStatusResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { info: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.status = decodeContainerStatus(r, r.end());
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

/** runtime.v1.ReopenContainerLogRequest */
export function encodeReopenContainerLogRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeReopenContainerLogRequest(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.ReopenContainerLogResponse */
export function encodeReopenContainerLogResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeReopenContainerLogResponse(r: ProtoReader, end: number): Msg {
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
