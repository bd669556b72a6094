// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import type { ProtoReader, ProtoWriter } from "../_wire.ts";
import { decodePodSandboxConfig, encodePodSandboxConfig } from "./sandbox_3.ts";
import { decodeImageSpec, encodeImageSpec } from "./container_1.ts";
import { decodeFilesystemUsage, encodeFilesystemUsage } from "./stats_2.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.AuthConfig */
export function encodeAuthConfig(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.username) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.password) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.auth) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.serverAddress) != null && v !== "") {
    w.tag(4, 2);
    w.string(v);
  }
  if ((v = m.identityToken) != null && v !== "") {
    w.tag(5, 2);
    w.string(v);
  }
  if ((v = m.registryToken) != null && v !== "") {
    w.tag(6, 2);
    w.string(v);
  }
}

export function decodeAuthConfig(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    username: "",
    password: "",
    auth: "",
    serverAddress: "",
    identityToken: "",
    registryToken: "",
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.username = r.string();
        break;
      case 18:
        m.password = r.string();
        break;
      case 26:
        m.auth = r.string();
        break;
      case 34:
        m.serverAddress = r.string();
        break;
      case 42:
        m.identityToken = r.string();
        break;
      case 50:
        m.registryToken = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PullImageRequest */
export function encodePullImageRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.image) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
  if ((v = m.auth) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeAuthConfig(w, v);
    w.close(at);
  }
  if ((v = m.sandboxConfig) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodePodSandboxConfig(w, v);
    w.close(at);
  }
}

export function decodePullImageRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.image = decodeImageSpec(r, r.end());
        break;
      case 18:
        m.auth = decodeAuthConfig(r, r.end());
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

/** runtime.v1.PullImageResponse */
export function encodePullImageResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.imageRef) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodePullImageResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { imageRef: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.imageRef = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RemoveImageRequest */
export function encodeRemoveImageRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.image) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
}

export function decodeRemoveImageRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.image = decodeImageSpec(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RemoveImageResponse */
export function encodeRemoveImageResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeRemoveImageResponse(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.ImageFsInfoRequest */
export function encodeImageFsInfoRequest(_w: ProtoWriter, _m: Msg): void {
}

export function decodeImageFsInfoRequest(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.ImageFsInfoResponse */
export function encodeImageFsInfoResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.imageFilesystems) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodeFilesystemUsage(w, x);
      w.close(at);
    }
  }
  if ((v = m.containerFilesystems) != null) {
    for (const x of v) {
      w.tag(2, 2);
      const at = w.open();
      encodeFilesystemUsage(w, x);
      w.close(at);
    }
  }
}

export function decodeImageFsInfoResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { imageFilesystems: [], containerFilesystems: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.imageFilesystems.push(decodeFilesystemUsage(r, r.end()));
        break;
      case 18:
        m.containerFilesystems.push(decodeFilesystemUsage(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
