// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import {
  type ProtoReader,
  type ProtoWriter,
  readStringMapEntry,
  writeStringMap,
} from "../_wire.ts";
import { decodeInt64Value, encodeInt64Value } from "./sandbox_1.ts";
import { decodeImageSpec, encodeImageSpec } from "./container_1.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.Image */
export function encodeImage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.repoTags) != null) {
    for (const x of v) {
      w.tag(2, 2);
      w.string(x);
    }
  }
  if ((v = m.repoDigests) != null) {
    for (const x of v) {
      w.tag(3, 2);
      w.string(x);
    }
  }
  if ((v = m.size) != null && v !== 0) {
    w.tag(4, 0);
    w.int64(v);
  }
  if ((v = m.uid) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.username) != null && v !== "") {
    w.tag(6, 2);
    w.string(v);
  }
  if ((v = m.spec) != null) {
    w.tag(7, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
  if ((v = m.pinned) != null && v !== false) {
    w.tag(8, 0);
    w.bool(v);
  }
}

export function decodeImage(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", repoTags: [], repoDigests: [], size: 0, username: "", pinned: false };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.repoTags.push(r.string());
        break;
      case 26:
        m.repoDigests.push(r.string());
        break;
      case 32:
        m.size = r.int64(false);
        break;
      case 42:
        m.uid = decodeInt64Value(r, r.end());
        break;
      case 50:
        m.username = r.string();
        break;
      case 58:
        m.spec = decodeImageSpec(r, r.end());
        break;
      case 64:
        m.pinned = r.bool();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ImageFilter */
export function encodeImageFilter(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.image) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
}

export function decodeImageFilter(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.ListImagesRequest */
export function encodeListImagesRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.filter) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeImageFilter(w, v);
    w.close(at);
  }
}

export function decodeListImagesRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.filter = decodeImageFilter(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListImagesResponse */
export function encodeListImagesResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.images) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodeImage(w, x);
      w.close(at);
    }
  }
}

export function decodeListImagesResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { images: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.images.push(decodeImage(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ImageStatusRequest */
export function encodeImageStatusRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.image) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
  if ((v = m.verbose) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
}

export function decodeImageStatusRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { verbose: false };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.image = decodeImageSpec(r, r.end());
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

/** runtime.v1.ImageStatusResponse */
export function encodeImageStatusResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.image) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeImage(w, v);
    w.close(at);
  }
  if ((v = m.info) != null) writeStringMap(w, 2, v);
}

export function decodeImageStatusResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { info: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.image = decodeImage(r, r.end());
        break;
      case 18:
        readStringMapEntry(r, m.info);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
