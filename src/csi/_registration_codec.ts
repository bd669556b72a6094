// Generated from proto/pluginregistration/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import type { ServiceDefinition } from "@grpc/grpc-js";
import { deserializer, type ProtoReader, type ProtoWriter, serializer } from "../cri/mod.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** pluginregistration.PluginInfo */
export function encodePluginInfo(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.type) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.name) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.endpoint) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.supportedVersions) != null) {
    for (const x of v) {
      w.tag(4, 2);
      w.string(x);
    }
  }
}

export function decodePluginInfo(r: ProtoReader, end: number): Msg {
  const m: Msg = { type: "", name: "", endpoint: "", supportedVersions: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.type = r.string();
        break;
      case 18:
        m.name = r.string();
        break;
      case 26:
        m.endpoint = r.string();
        break;
      case 34:
        m.supportedVersions.push(r.string());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** pluginregistration.RegistrationStatus */
export function encodeRegistrationStatus(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.pluginRegistered) != null && v !== false) {
    w.tag(1, 0);
    w.bool(v);
  }
  if ((v = m.error) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
}

export function decodeRegistrationStatus(r: ProtoReader, end: number): Msg {
  const m: Msg = { pluginRegistered: false, error: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.pluginRegistered = r.bool();
        break;
      case 18:
        m.error = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** pluginregistration.RegistrationStatusResponse */
export function encodeRegistrationStatusResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeRegistrationStatusResponse(r: ProtoReader, end: number): Msg {
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

/** pluginregistration.InfoRequest */
export function encodeInfoRequest(_w: ProtoWriter, _m: Msg): void {
}

export function decodeInfoRequest(r: ProtoReader, end: number): Msg {
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

/** pluginregistration.Registration, as grpc-js clients and servers take it. */
export const Registration: ServiceDefinition = {
  GetInfo: {
    path: "/pluginregistration.Registration/GetInfo",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeInfoRequest),
    requestDeserialize: deserializer(decodeInfoRequest),
    responseSerialize: serializer(encodePluginInfo),
    responseDeserialize: deserializer(decodePluginInfo),
    originalName: "getInfo",
  },
  NotifyRegistrationStatus: {
    path: "/pluginregistration.Registration/NotifyRegistrationStatus",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeRegistrationStatus),
    requestDeserialize: deserializer(decodeRegistrationStatus),
    responseSerialize: serializer(encodeRegistrationStatusResponse),
    responseDeserialize: deserializer(decodeRegistrationStatusResponse),
    originalName: "notifyRegistrationStatus",
  },
};
