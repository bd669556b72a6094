// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import type { ProtoReader, ProtoWriter } from "../_wire.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.ExecSyncRequest */
export function encodeExecSyncRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.cmd) != null) {
    for (const x of v) {
      w.tag(2, 2);
      w.string(x);
    }
  }
  if ((v = m.timeout) != null && v !== 0) {
    w.tag(3, 0);
    w.int64(v);
  }
}

export function decodeExecSyncRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "", cmd: [], timeout: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
        break;
      case 18:
        m.cmd.push(r.string());
        break;
      case 24:
        m.timeout = r.int64();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ExecSyncResponse */
export function encodeExecSyncResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.stdout) != null && v.length > 0) {
    w.tag(1, 2);
    w.bytes(v);
  }
  if ((v = m.stderr) != null && v.length > 0) {
    w.tag(2, 2);
    w.bytes(v);
  }
  if ((v = m.exitCode) != null && v !== 0) {
    w.tag(3, 0);
    w.int32(v);
  }
}

export function decodeExecSyncResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { stdout: new Uint8Array(0), stderr: new Uint8Array(0), exitCode: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.stdout = r.bytes();
        break;
      case 18:
        m.stderr = r.bytes();
        break;
      case 24:
        m.exitCode = r.int32();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ExecRequest */
export function encodeExecRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.cmd) != null) {
    for (const x of v) {
      w.tag(2, 2);
      w.string(x);
    }
  }
  if ((v = m.tty) != null && v !== false) {
    w.tag(3, 0);
    w.bool(v);
  }
  if ((v = m.stdin) != null && v !== false) {
    w.tag(4, 0);
    w.bool(v);
  }
  if ((v = m.stdout) != null && v !== false) {
    w.tag(5, 0);
    w.bool(v);
  }
  if ((v = m.stderr) != null && v !== false) {
    w.tag(6, 0);
    w.bool(v);
  }
}

export function decodeExecRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    containerId: "",
    cmd: [],
    tty: false,
    stdin: false,
    stdout: false,
    stderr: false,
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
        break;
      case 18:
        m.cmd.push(r.string());
        break;
      case 24:
        m.tty = r.bool();
        break;
      case 32:
        m.stdin = r.bool();
        break;
      case 40:
        m.stdout = r.bool();
        break;
      case 48:
        m.stderr = r.bool();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ExecResponse */
export function encodeExecResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.url) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeExecResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { url: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.url = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.AttachRequest */
export function encodeAttachRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.stdin) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
  if ((v = m.tty) != null && v !== false) {
    w.tag(3, 0);
    w.bool(v);
  }
  if ((v = m.stdout) != null && v !== false) {
    w.tag(4, 0);
    w.bool(v);
  }
  if ((v = m.stderr) != null && v !== false) {
    w.tag(5, 0);
    w.bool(v);
  }
}

export function decodeAttachRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "", stdin: false, tty: false, stdout: false, stderr: false };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
        break;
      case 16:
        m.stdin = r.bool();
        break;
      case 24:
        m.tty = r.bool();
        break;
      case 32:
        m.stdout = r.bool();
        break;
      case 40:
        m.stderr = r.bool();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.AttachResponse */
export function encodeAttachResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.url) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeAttachResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { url: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.url = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PortForwardRequest */
export function encodePortForwardRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.port) != null && v.length > 0) {
    w.tag(2, 2);
    const at = w.open();
    for (const x of v) w.int32(x);
    w.close(at);
  }
}

export function decodePortForwardRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { podSandboxId: "", port: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.podSandboxId = r.string();
        break;
      case 16:
        m.port.push(r.int32());
        break;
      case 18: {
        const e = r.end();
        while (r.pos < e) m.port.push(r.int32());
        break;
      }
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PortForwardResponse */
export function encodePortForwardResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.url) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodePortForwardResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { url: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.url = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
