// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import {
  type ProtoReader,
  type ProtoWriter,
  readStringMapEntry,
  writeStringMap,
} from "../_wire.ts";
import { decodeContainerMetadata, encodeContainerMetadata } from "./container_3.ts";
import {
  decodeCpuUsage,
  decodeMemoryUsage,
  decodeSwapUsage,
  decodeUInt64Value,
  encodeCpuUsage,
  encodeMemoryUsage,
  encodeSwapUsage,
  encodeUInt64Value,
} from "./stats_1.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.ProcessUsage */
export function encodeProcessUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.processCount) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeProcessUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.processCount = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.FilesystemIdentifier */
export function encodeFilesystemIdentifier(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.mountpoint) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeFilesystemIdentifier(r: ProtoReader, end: number): Msg {
  const m: Msg = { mountpoint: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.mountpoint = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.FilesystemUsage */
export function encodeFilesystemUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.fsId) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeFilesystemIdentifier(w, v);
    w.close(at);
  }
  if ((v = m.usedBytes) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.inodesUsed) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeFilesystemUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.fsId = decodeFilesystemIdentifier(r, r.end());
        break;
      case 26:
        m.usedBytes = decodeUInt64Value(r, r.end());
        break;
      case 34:
        m.inodesUsed = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerAttributes */
export function encodeContainerAttributes(w: ProtoWriter, m: Msg): void {
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
  if ((v = m.labels) != null) writeStringMap(w, 3, v);
  if ((v = m.annotations) != null) writeStringMap(w, 4, v);
}

export function decodeContainerAttributes(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", labels: {}, annotations: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.metadata = decodeContainerMetadata(r, r.end());
        break;
      case 26:
        readStringMapEntry(r, m.labels);
        break;
      case 34:
        readStringMapEntry(r, m.annotations);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerStats */
export function encodeContainerStats(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.attributes) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerAttributes(w, v);
    w.close(at);
  }
  if ((v = m.cpu) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeCpuUsage(w, v);
    w.close(at);
  }
  if ((v = m.memory) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeMemoryUsage(w, v);
    w.close(at);
  }
  if ((v = m.writableLayer) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeFilesystemUsage(w, v);
    w.close(at);
  }
  if ((v = m.swap) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeSwapUsage(w, v);
    w.close(at);
  }
}

export function decodeContainerStats(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.attributes = decodeContainerAttributes(r, r.end());
        break;
      case 18:
        m.cpu = decodeCpuUsage(r, r.end());
        break;
      case 26:
        m.memory = decodeMemoryUsage(r, r.end());
        break;
      case 34:
        m.writableLayer = decodeFilesystemUsage(r, r.end());
        break;
      case 42:
        m.swap = decodeSwapUsage(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerStatsRequest */
export function encodeContainerStatsRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeContainerStatsRequest(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.ContainerStatsResponse */
export function encodeContainerStatsResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.stats) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerStats(w, v);
    w.close(at);
  }
}

export function decodeContainerStatsResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.stats = decodeContainerStats(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerStatsFilter */
export function encodeContainerStatsFilter(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.labelSelector) != null) writeStringMap(w, 3, v);
}

export function decodeContainerStatsFilter(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", podSandboxId: "", labelSelector: {} };
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
        readStringMapEntry(r, m.labelSelector);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
