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
import { CgroupDriver_NAMES, CgroupDriver_VALUES } from "./enums.ts";
import {
  decodeRuntimeHandlerFeatures,
  decodeRuntimeStatus,
  encodeRuntimeHandlerFeatures,
  encodeRuntimeStatus,
} from "./runtime_1.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.RuntimeHandler */
export function encodeRuntimeHandler(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.name) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.features) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeRuntimeHandlerFeatures(w, v);
    w.close(at);
  }
}

export function decodeRuntimeHandler(r: ProtoReader, end: number): Msg {
  const m: Msg = { name: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.name = r.string();
        break;
      case 18:
        m.features = decodeRuntimeHandlerFeatures(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RuntimeFeatures */
export function encodeRuntimeFeatures(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.supplementalGroupsPolicy) != null && v !== false) {
    w.tag(1, 0);
    w.bool(v);
  }
  if ((v = m.userNamespacesHostNetwork) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
  if ((v = m.mountOptions) != null && v !== false) {
    w.tag(3, 0);
    w.bool(v);
  }
}

export function decodeRuntimeFeatures(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    supplementalGroupsPolicy: false,
    userNamespacesHostNetwork: false,
    mountOptions: false,
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.supplementalGroupsPolicy = r.bool();
        break;
      case 16:
        m.userNamespacesHostNetwork = r.bool();
        break;
      case 24:
        m.mountOptions = r.bool();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.StatusResponse */
export function encodeStatusResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.status) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeRuntimeStatus(w, v);
    w.close(at);
  }
  if ((v = m.info) != null) writeStringMap(w, 2, v);
  if ((v = m.runtimeHandlers) != null) {
    for (const x of v) {
      w.tag(3, 2);
      const at = w.open();
      encodeRuntimeHandler(w, x);
      w.close(at);
    }
  }
  if ((v = m.features) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeRuntimeFeatures(w, v);
    w.close(at);
  }
}

export function decodeStatusResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { info: {}, runtimeHandlers: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.status = decodeRuntimeStatus(r, r.end());
        break;
      case 18:
        readStringMapEntry(r, m.info);
        break;
      case 26:
        m.runtimeHandlers.push(decodeRuntimeHandler(r, r.end()));
        break;
      case 34:
        m.features = decodeRuntimeFeatures(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RuntimeConfigRequest */
export function encodeRuntimeConfigRequest(_w: ProtoWriter, _m: Msg): void {
}

export function decodeRuntimeConfigRequest(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.RuntimeConfigResponse */
export function encodeRuntimeConfigResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.linux) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeLinuxRuntimeConfiguration(w, v);
    w.close(at);
  }
}

export function decodeRuntimeConfigResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.linux = decodeLinuxRuntimeConfiguration(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.LinuxRuntimeConfiguration */
export function encodeLinuxRuntimeConfiguration(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.cgroupDriver) != null) {
    w.tag(1, 0);
    w.int32(enumValue(CgroupDriver_VALUES, v, "CgroupDriver"));
  }
}

export function decodeLinuxRuntimeConfiguration(r: ProtoReader, end: number): Msg {
  const m: Msg = { cgroupDriver: "SYSTEMD" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.cgroupDriver = enumName(CgroupDriver_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
