// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import type { ProtoReader, ProtoWriter } from "../_wire.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.UInt64Value */
export function encodeUInt64Value(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.value) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
}

export function decodeUInt64Value(r: ProtoReader, end: number): Msg {
  const m: Msg = { value: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.value = r.int64(false);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.CpuUsage */
export function encodeCpuUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.usageCoreNanoSeconds) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.usageNanoCores) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeCpuUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.usageCoreNanoSeconds = decodeUInt64Value(r, r.end());
        break;
      case 26:
        m.usageNanoCores = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.MemoryUsage */
export function encodeMemoryUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.workingSetBytes) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.availableBytes) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.usageBytes) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.rssBytes) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.pageFaults) != null) {
    w.tag(6, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.majorPageFaults) != null) {
    w.tag(7, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeMemoryUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.workingSetBytes = decodeUInt64Value(r, r.end());
        break;
      case 26:
        m.availableBytes = decodeUInt64Value(r, r.end());
        break;
      case 34:
        m.usageBytes = decodeUInt64Value(r, r.end());
        break;
      case 42:
        m.rssBytes = decodeUInt64Value(r, r.end());
        break;
      case 50:
        m.pageFaults = decodeUInt64Value(r, r.end());
        break;
      case 58:
        m.majorPageFaults = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.SwapUsage */
export function encodeSwapUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.swapAvailableBytes) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.swapUsageBytes) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeSwapUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.swapAvailableBytes = decodeUInt64Value(r, r.end());
        break;
      case 26:
        m.swapUsageBytes = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.NetworkInterfaceUsage */
export function encodeNetworkInterfaceUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.name) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.rxBytes) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.rxErrors) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.txBytes) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.txErrors) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeNetworkInterfaceUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { name: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.name = r.string();
        break;
      case 18:
        m.rxBytes = decodeUInt64Value(r, r.end());
        break;
      case 26:
        m.rxErrors = decodeUInt64Value(r, r.end());
        break;
      case 34:
        m.txBytes = decodeUInt64Value(r, r.end());
        break;
      case 42:
        m.txErrors = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.NetworkUsage */
export function encodeNetworkUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.defaultInterface) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeNetworkInterfaceUsage(w, v);
    w.close(at);
  }
  if ((v = m.interfaces) != null) {
    for (const x of v) {
      w.tag(3, 2);
      const at = w.open();
      encodeNetworkInterfaceUsage(w, x);
      w.close(at);
    }
  }
}

export function decodeNetworkUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0, interfaces: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.defaultInterface = decodeNetworkInterfaceUsage(r, r.end());
        break;
      case 26:
        m.interfaces.push(decodeNetworkInterfaceUsage(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
