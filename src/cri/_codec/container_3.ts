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
import { Signal_NAMES, Signal_VALUES } from "./enums.ts";
import { decodeLinuxContainerResources, encodeLinuxContainerResources } from "./sandbox_1.ts";
import { decodePodSandboxConfig, encodePodSandboxConfig } from "./sandbox_3.ts";
import {
  decodeImageSpec,
  decodeKeyValue,
  decodeMount,
  encodeImageSpec,
  encodeKeyValue,
  encodeMount,
} from "./container_1.ts";
import { decodeLinuxContainerConfig, encodeLinuxContainerConfig } from "./container_2.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.ContainerMetadata */
export function encodeContainerMetadata(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.name) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.attempt) != null && v !== 0) {
    w.tag(2, 0);
    w.uint32(v);
  }
}

export function decodeContainerMetadata(r: ProtoReader, end: number): Msg {
  const m: Msg = { name: "", attempt: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.name = r.string();
        break;
      case 16:
        m.attempt = r.uint32();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerConfig */
export function encodeContainerConfig(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.metadata) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerMetadata(w, v);
    w.close(at);
  }
  if ((v = m.image) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
  if ((v = m.command) != null) {
    for (const x of v) {
      w.tag(3, 2);
      w.string(x);
    }
  }
  if ((v = m.args) != null) {
    for (const x of v) {
      w.tag(4, 2);
      w.string(x);
    }
  }
  if ((v = m.workingDir) != null && v !== "") {
    w.tag(5, 2);
    w.string(v);
  }
  if ((v = m.envs) != null) {
    for (const x of v) {
      w.tag(6, 2);
      const at = w.open();
      encodeKeyValue(w, x);
      w.close(at);
    }
  }
  if ((v = m.mounts) != null) {
    for (const x of v) {
      w.tag(7, 2);
      const at = w.open();
      encodeMount(w, x);
      w.close(at);
    }
  }
  if ((v = m.labels) != null) writeStringMap(w, 9, v);
  if ((v = m.annotations) != null) writeStringMap(w, 10, v);
  if ((v = m.logPath) != null && v !== "") {
    w.tag(11, 2);
    w.string(v);
  }
  if ((v = m.stdin) != null && v !== false) {
    w.tag(12, 0);
    w.bool(v);
  }
  if ((v = m.stdinOnce) != null && v !== false) {
    w.tag(13, 0);
    w.bool(v);
  }
  if ((v = m.tty) != null && v !== false) {
    w.tag(14, 0);
    w.bool(v);
  }
  if ((v = m.linux) != null) {
    w.tag(15, 2);
    const at = w.open();
    encodeLinuxContainerConfig(w, v);
    w.close(at);
  }
  if ((v = m.stopSignal) != null) {
    w.tag(18, 0);
    w.int32(enumValue(Signal_VALUES, v, "Signal"));
  }
}

export function decodeContainerConfig(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    command: [],
    args: [],
    workingDir: "",
    envs: [],
    mounts: [],
    labels: {},
    annotations: {},
    logPath: "",
    stdin: false,
    stdinOnce: false,
    tty: false,
    stopSignal: "SIGNAL_RUNTIME_DEFAULT",
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.metadata = decodeContainerMetadata(r, r.end());
        break;
      case 18:
        m.image = decodeImageSpec(r, r.end());
        break;
      case 26:
        m.command.push(r.string());
        break;
      case 34:
        m.args.push(r.string());
        break;
      case 42:
        m.workingDir = r.string();
        break;
      case 50:
        m.envs.push(decodeKeyValue(r, r.end()));
        break;
      case 58:
        m.mounts.push(decodeMount(r, r.end()));
        break;
      case 74:
        readStringMapEntry(r, m.labels);
        break;
      case 82:
        readStringMapEntry(r, m.annotations);
        break;
      case 90:
        m.logPath = r.string();
        break;
      case 96:
        m.stdin = r.bool();
        break;
      case 104:
        m.stdinOnce = r.bool();
        break;
      case 112:
        m.tty = r.bool();
        break;
      case 122:
        m.linux = decodeLinuxContainerConfig(r, r.end());
        break;
      case 144:
        m.stopSignal = enumName(Signal_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.UpdateContainerResourcesRequest */
export function encodeUpdateContainerResourcesRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.linux) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeLinuxContainerResources(w, v);
    w.close(at);
  }
  if ((v = m.annotations) != null) writeStringMap(w, 4, v);
}

export function decodeUpdateContainerResourcesRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "", annotations: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
        break;
      case 18:
        m.linux = decodeLinuxContainerResources(r, r.end());
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

/** runtime.v1.UpdateContainerResourcesResponse */
export function encodeUpdateContainerResourcesResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeUpdateContainerResourcesResponse(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.CreateContainerRequest */
export function encodeCreateContainerRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.config) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeContainerConfig(w, v);
    w.close(at);
  }
  if ((v = m.sandboxConfig) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodePodSandboxConfig(w, v);
    w.close(at);
  }
}

export function decodeCreateContainerRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { podSandboxId: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.podSandboxId = r.string();
        break;
      case 18:
        m.config = decodeContainerConfig(r, r.end());
        break;
      case 26:
        m.sandboxConfig = decodePodSandboxConfig(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.CreateContainerResponse */
export function encodeCreateContainerResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeCreateContainerResponse(r: ProtoReader, end: number): Msg {
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
