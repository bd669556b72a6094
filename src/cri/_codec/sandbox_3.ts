// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import {
  type ProtoReader,
  type ProtoWriter,
  readStringMapEntry,
  writeStringMap,
} from "../_wire.ts";
import { decodeLinuxContainerResources, encodeLinuxContainerResources } from "./sandbox_1.ts";
import {
  decodeDNSConfig,
  decodeLinuxSandboxSecurityContext,
  decodePortMapping,
  encodeDNSConfig,
  encodeLinuxSandboxSecurityContext,
  encodePortMapping,
} from "./sandbox_2.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.LinuxPodSandboxConfig */
export function encodeLinuxPodSandboxConfig(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.cgroupParent) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.securityContext) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeLinuxSandboxSecurityContext(w, v);
    w.close(at);
  }
  if ((v = m.sysctls) != null) writeStringMap(w, 3, v);
  if ((v = m.overhead) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeLinuxContainerResources(w, v);
    w.close(at);
  }
  if ((v = m.resources) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeLinuxContainerResources(w, v);
    w.close(at);
  }
}

export function decodeLinuxPodSandboxConfig(r: ProtoReader, end: number): Msg {
  const m: Msg = { cgroupParent: "", sysctls: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.cgroupParent = r.string();
        break;
      case 18:
        m.securityContext = decodeLinuxSandboxSecurityContext(r, r.end());
        break;
      case 26:
        readStringMapEntry(r, m.sysctls);
        break;
      case 34:
        m.overhead = decodeLinuxContainerResources(r, r.end());
        break;
      case 42:
        m.resources = decodeLinuxContainerResources(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxMetadata */
export function encodePodSandboxMetadata(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.name) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.uid) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.namespace) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.attempt) != null && v !== 0) {
    w.tag(4, 0);
    w.uint32(v);
  }
}

export function decodePodSandboxMetadata(r: ProtoReader, end: number): Msg {
  const m: Msg = { name: "", uid: "", namespace: "", attempt: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.name = r.string();
        break;
      case 18:
        m.uid = r.string();
        break;
      case 26:
        m.namespace = r.string();
        break;
      case 32:
        m.attempt = r.uint32();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxConfig */
export function encodePodSandboxConfig(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.metadata) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePodSandboxMetadata(w, v);
    w.close(at);
  }
  if ((v = m.hostname) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.logDirectory) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.dnsConfig) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeDNSConfig(w, v);
    w.close(at);
  }
  if ((v = m.portMappings) != null) {
    for (const x of v) {
      w.tag(5, 2);
      const at = w.open();
      encodePortMapping(w, x);
      w.close(at);
    }
  }
  if ((v = m.labels) != null) writeStringMap(w, 6, v);
  if ((v = m.annotations) != null) writeStringMap(w, 7, v);
  if ((v = m.linux) != null) {
    w.tag(8, 2);
    const at = w.open();
    encodeLinuxPodSandboxConfig(w, v);
    w.close(at);
  }
}

export function decodePodSandboxConfig(r: ProtoReader, end: number): Msg {
  const m: Msg = { hostname: "", logDirectory: "", portMappings: [], labels: {}, annotations: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.metadata = decodePodSandboxMetadata(r, r.end());
        break;
      case 18:
        m.hostname = r.string();
        break;
      case 26:
        m.logDirectory = r.string();
        break;
      case 34:
        m.dnsConfig = decodeDNSConfig(r, r.end());
        break;
      case 42:
        m.portMappings.push(decodePortMapping(r, r.end()));
        break;
      case 50:
        readStringMapEntry(r, m.labels);
        break;
      case 58:
        readStringMapEntry(r, m.annotations);
        break;
      case 66:
        m.linux = decodeLinuxPodSandboxConfig(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

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
