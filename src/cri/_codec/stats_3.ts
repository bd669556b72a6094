// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import {
  type ProtoReader,
  type ProtoWriter,
  readStringMapEntry,
  writeStringMap,
} from "../_wire.ts";
import { decodePodSandboxMetadata, encodePodSandboxMetadata } from "./sandbox_3.ts";
import {
  decodeCpuUsage,
  decodeMemoryUsage,
  decodeNetworkUsage,
  encodeCpuUsage,
  encodeMemoryUsage,
  encodeNetworkUsage,
} from "./stats_1.ts";
import {
  decodeContainerStats,
  decodeContainerStatsFilter,
  decodeProcessUsage,
  encodeContainerStats,
  encodeContainerStatsFilter,
  encodeProcessUsage,
} from "./stats_2.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.ListContainerStatsRequest */
export function encodeListContainerStatsRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.filter) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerStatsFilter(w, v);
    w.close(at);
  }
}

export function decodeListContainerStatsRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.filter = decodeContainerStatsFilter(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListContainerStatsResponse */
export function encodeListContainerStatsResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.stats) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodeContainerStats(w, x);
      w.close(at);
    }
  }
}

export function decodeListContainerStatsResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { stats: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.stats.push(decodeContainerStats(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxAttributes */
export function encodePodSandboxAttributes(w: ProtoWriter, m: Msg): void {
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
  if ((v = m.labels) != null) writeStringMap(w, 3, v);
  if ((v = m.annotations) != null) writeStringMap(w, 4, v);
}

export function decodePodSandboxAttributes(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", labels: {}, annotations: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.metadata = decodePodSandboxMetadata(r, r.end());
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

/** runtime.v1.LinuxPodSandboxStats */
export function encodeLinuxPodSandboxStats(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.cpu) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeCpuUsage(w, v);
    w.close(at);
  }
  if ((v = m.memory) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeMemoryUsage(w, v);
    w.close(at);
  }
  if ((v = m.network) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeNetworkUsage(w, v);
    w.close(at);
  }
  if ((v = m.process) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeProcessUsage(w, v);
    w.close(at);
  }
  if ((v = m.containers) != null) {
    for (const x of v) {
      w.tag(5, 2);
      const at = w.open();
      encodeContainerStats(w, x);
      w.close(at);
    }
  }
}

export function decodeLinuxPodSandboxStats(r: ProtoReader, end: number): Msg {
  const m: Msg = { containers: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.cpu = decodeCpuUsage(r, r.end());
        break;
      case 18:
        m.memory = decodeMemoryUsage(r, r.end());
        break;
      case 26:
        m.network = decodeNetworkUsage(r, r.end());
        break;
      case 34:
        m.process = decodeProcessUsage(r, r.end());
        break;
      case 42:
        m.containers.push(decodeContainerStats(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxStats */
export function encodePodSandboxStats(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.attributes) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePodSandboxAttributes(w, v);
    w.close(at);
  }
  if ((v = m.linux) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeLinuxPodSandboxStats(w, v);
    w.close(at);
  }
}

export function decodePodSandboxStats(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.attributes = decodePodSandboxAttributes(r, r.end());
        break;
      case 18:
        m.linux = decodeLinuxPodSandboxStats(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxStatsFilter */
export function encodePodSandboxStatsFilter(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.labelSelector) != null) writeStringMap(w, 2, v);
}

export function decodePodSandboxStatsFilter(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", labelSelector: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        readStringMapEntry(r, m.labelSelector);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListPodSandboxStatsRequest */
export function encodeListPodSandboxStatsRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.filter) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePodSandboxStatsFilter(w, v);
    w.close(at);
  }
}

export function decodeListPodSandboxStatsRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.filter = decodePodSandboxStatsFilter(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListPodSandboxStatsResponse */
export function encodeListPodSandboxStatsResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.stats) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodePodSandboxStats(w, x);
      w.close(at);
    }
  }
}

export function decodeListPodSandboxStatsResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { stats: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.stats.push(decodePodSandboxStats(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
