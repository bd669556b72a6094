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
import { NamespaceMode_NAMES, NamespaceMode_VALUES } from "./enums.ts";
import { decodeHugepageLimit, encodeHugepageLimit } from "./sandbox_2.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.Int64Value */
export function encodeInt64Value(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.value) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
}

export function decodeInt64Value(r: ProtoReader, end: number): Msg {
  const m: Msg = { value: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.value = r.int64();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.IDMapping */
export function encodeIDMapping(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.hostId) != null && v !== 0) {
    w.tag(1, 0);
    w.uint32(v);
  }
  if ((v = m.containerId) != null && v !== 0) {
    w.tag(2, 0);
    w.uint32(v);
  }
  if ((v = m.length) != null && v !== 0) {
    w.tag(3, 0);
    w.uint32(v);
  }
}

export function decodeIDMapping(r: ProtoReader, end: number): Msg {
  const m: Msg = { hostId: 0, containerId: 0, length: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.hostId = r.uint32();
        break;
      case 16:
        m.containerId = r.uint32();
        break;
      case 24:
        m.length = r.uint32();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.UserNamespace */
export function encodeUserNamespace(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.mode) != null) {
    w.tag(1, 0);
    w.int32(enumValue(NamespaceMode_VALUES, v, "NamespaceMode"));
  }
  if ((v = m.uids) != null) {
    for (const x of v) {
      w.tag(2, 2);
      const at = w.open();
      encodeIDMapping(w, x);
      w.close(at);
    }
  }
  if ((v = m.gids) != null) {
    for (const x of v) {
      w.tag(3, 2);
      const at = w.open();
      encodeIDMapping(w, x);
      w.close(at);
    }
  }
}

export function decodeUserNamespace(r: ProtoReader, end: number): Msg {
  const m: Msg = { mode: "POD", uids: [], gids: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.mode = enumName(NamespaceMode_NAMES, r.int32());
        break;
      case 18:
        m.uids.push(decodeIDMapping(r, r.end()));
        break;
      case 26:
        m.gids.push(decodeIDMapping(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.NamespaceOption */
export function encodeNamespaceOption(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.network) != null) {
    w.tag(1, 0);
    w.int32(enumValue(NamespaceMode_VALUES, v, "NamespaceMode"));
  }
  if ((v = m.pid) != null) {
    w.tag(2, 0);
    w.int32(enumValue(NamespaceMode_VALUES, v, "NamespaceMode"));
  }
  if ((v = m.ipc) != null) {
    w.tag(3, 0);
    w.int32(enumValue(NamespaceMode_VALUES, v, "NamespaceMode"));
  }
  if ((v = m.targetId) != null && v !== "") {
    w.tag(4, 2);
    w.string(v);
  }
  if ((v = m.usernsOptions) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeUserNamespace(w, v);
    w.close(at);
  }
}

export function decodeNamespaceOption(r: ProtoReader, end: number): Msg {
  const m: Msg = { network: "POD", pid: "POD", ipc: "POD", targetId: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.network = enumName(NamespaceMode_NAMES, r.int32());
        break;
      case 16:
        m.pid = enumName(NamespaceMode_NAMES, r.int32());
        break;
      case 24:
        m.ipc = enumName(NamespaceMode_NAMES, r.int32());
        break;
      case 34:
        m.targetId = r.string();
        break;
      case 42:
        m.usernsOptions = decodeUserNamespace(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.SELinuxOption */
export function encodeSELinuxOption(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.user) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.role) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.type) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.level) != null && v !== "") {
    w.tag(4, 2);
    w.string(v);
  }
}

export function decodeSELinuxOption(r: ProtoReader, end: number): Msg {
  const m: Msg = { user: "", role: "", type: "", level: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.user = r.string();
        break;
      case 18:
        m.role = r.string();
        break;
      case 26:
        m.type = r.string();
        break;
      case 34:
        m.level = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.LinuxContainerResources */
export function encodeLinuxContainerResources(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.cpuPeriod) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.cpuQuota) != null && v !== 0) {
    w.tag(2, 0);
    w.int64(v);
  }
  if ((v = m.cpuShares) != null && v !== 0) {
    w.tag(3, 0);
    w.int64(v);
  }
  if ((v = m.memoryLimitInBytes) != null && v !== 0) {
    w.tag(4, 0);
    w.int64(v);
  }
  if ((v = m.oomScoreAdj) != null && v !== 0) {
    w.tag(5, 0);
    w.int64(v);
  }
  if ((v = m.cpusetCpus) != null && v !== "") {
    w.tag(6, 2);
    w.string(v);
  }
  if ((v = m.cpusetMems) != null && v !== "") {
    w.tag(7, 2);
    w.string(v);
  }
  if ((v = m.hugepageLimits) != null) {
    for (const x of v) {
      w.tag(8, 2);
      const at = w.open();
      encodeHugepageLimit(w, x);
      w.close(at);
    }
  }
  if ((v = m.unified) != null) writeStringMap(w, 9, v);
  if ((v = m.memorySwapLimitInBytes) != null && v !== 0) {
    w.tag(10, 0);
    w.int64(v);
  }
}

export function decodeLinuxContainerResources(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    cpuPeriod: 0,
    cpuQuota: 0,
    cpuShares: 0,
    memoryLimitInBytes: 0,
    oomScoreAdj: 0,
    cpusetCpus: "",
    cpusetMems: "",
    hugepageLimits: [],
    unified: {},
    memorySwapLimitInBytes: 0,
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.cpuPeriod = r.int64();
        break;
      case 16:
        m.cpuQuota = r.int64();
        break;
      case 24:
        m.cpuShares = r.int64();
        break;
      case 32:
        m.memoryLimitInBytes = r.int64();
        break;
      case 40:
        m.oomScoreAdj = r.int64();
        break;
      case 50:
        m.cpusetCpus = r.string();
        break;
      case 58:
        m.cpusetMems = r.string();
        break;
      case 66:
        m.hugepageLimits.push(decodeHugepageLimit(r, r.end()));
        break;
      case 74:
        readStringMapEntry(r, m.unified);
        break;
      case 80:
        m.memorySwapLimitInBytes = r.int64();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
