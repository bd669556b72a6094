// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import type { ProtoReader, ProtoWriter } from "../_wire.ts";
import { decodeNamespaceOption, encodeNamespaceOption } from "./sandbox_1.ts";
import { decodePodSandboxConfig, encodePodSandboxConfig } from "./sandbox_2.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.RunPodSandboxRequest */
export function encodeRunPodSandboxRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.config) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePodSandboxConfig(w, v);
    w.close(at);
  }
  if ((v = m.runtimeHandler) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
}

export function decodeRunPodSandboxRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { runtimeHandler: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.config = decodePodSandboxConfig(r, r.end());
        break;
      case 18:
        m.runtimeHandler = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RunPodSandboxResponse */
export function encodeRunPodSandboxResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeRunPodSandboxResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { podSandboxId: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.podSandboxId = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.StopPodSandboxRequest */
export function encodeStopPodSandboxRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeStopPodSandboxRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { podSandboxId: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.podSandboxId = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.StopPodSandboxResponse */
export function encodeStopPodSandboxResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeStopPodSandboxResponse(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.RemovePodSandboxRequest */
export function encodeRemovePodSandboxRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeRemovePodSandboxRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { podSandboxId: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.podSandboxId = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RemovePodSandboxResponse */
export function encodeRemovePodSandboxResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeRemovePodSandboxResponse(r: ProtoReader, end: number): Msg {
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
