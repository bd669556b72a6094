// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import { enumName, enumValue, type ProtoReader, type ProtoWriter } from "../_wire.ts";
import { SupplementalGroupsPolicy_NAMES, SupplementalGroupsPolicy_VALUES } from "./enums.ts";
import {
  decodeInt64Value,
  decodeLinuxContainerResources,
  decodeNamespaceOption,
  decodeSELinuxOption,
  encodeInt64Value,
  encodeLinuxContainerResources,
  encodeNamespaceOption,
  encodeSELinuxOption,
} from "./sandbox_1.ts";
import { decodeSecurityProfile, encodeSecurityProfile } from "./sandbox_2.ts";
import { decodeCapability, encodeCapability } from "./container_1.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.LinuxContainerSecurityContext */
export function encodeLinuxContainerSecurityContext(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.capabilities) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeCapability(w, v);
    w.close(at);
  }
  if ((v = m.privileged) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
  if ((v = m.namespaceOptions) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeNamespaceOption(w, v);
    w.close(at);
  }
  if ((v = m.runAsUser) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.runAsUsername) != null && v !== "") {
    w.tag(6, 2);
    w.string(v);
  }
  if ((v = m.readonlyRootfs) != null && v !== false) {
    w.tag(7, 0);
    w.bool(v);
  }
  if ((v = m.supplementalGroups) != null && v.length > 0) {
    w.tag(8, 2);
    const at = w.open();
    for (const x of v) w.int64(x);
    w.close(at);
  }
  if ((v = m.noNewPrivs) != null && v !== false) {
    w.tag(11, 0);
    w.bool(v);
  }
  if ((v = m.runAsGroup) != null) {
    w.tag(12, 2);
    const at = w.open();
    encodeInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.maskedPaths) != null) {
    for (const x of v) {
      w.tag(13, 2);
      w.string(x);
    }
  }
  if ((v = m.readonlyPaths) != null) {
    for (const x of v) {
      w.tag(14, 2);
      w.string(x);
    }
  }
  if ((v = m.seccomp) != null) {
    w.tag(15, 2);
    const at = w.open();
    encodeSecurityProfile(w, v);
    w.close(at);
  }
  if ((v = m.selinuxOptions) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeSELinuxOption(w, v);
    w.close(at);
  }
  if ((v = m.apparmor) != null) {
    w.tag(16, 2);
    const at = w.open();
    encodeSecurityProfile(w, v);
    w.close(at);
  }
  if ((v = m.supplementalGroupsPolicy) != null) {
    w.tag(17, 0);
    w.int32(enumValue(SupplementalGroupsPolicy_VALUES, v, "SupplementalGroupsPolicy"));
  }
  if ((v = m.apparmorProfile) != null && v !== "") {
    w.tag(9, 2);
    w.string(v);
  }
}

export function decodeLinuxContainerSecurityContext(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    privileged: false,
    runAsUsername: "",
    readonlyRootfs: false,
    supplementalGroups: [],
    noNewPrivs: false,
    maskedPaths: [],
    readonlyPaths: [],
    supplementalGroupsPolicy: "Merge",
    apparmorProfile: "",
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.capabilities = decodeCapability(r, r.end());
        break;
      case 16:
        m.privileged = r.bool();
        break;
      case 26:
        m.namespaceOptions = decodeNamespaceOption(r, r.end());
        break;
      case 42:
        m.runAsUser = decodeInt64Value(r, r.end());
        break;
      case 50:
        m.runAsUsername = r.string();
        break;
      case 56:
        m.readonlyRootfs = r.bool();
        break;
      case 64:
        m.supplementalGroups.push(r.int64());
        break;
      case 66: {
        const e = r.end();
        while (r.pos < e) m.supplementalGroups.push(r.int64());
        break;
      }
      case 88:
        m.noNewPrivs = r.bool();
        break;
      case 98:
        m.runAsGroup = decodeInt64Value(r, r.end());
        break;
      case 106:
        m.maskedPaths.push(r.string());
        break;
      case 114:
        m.readonlyPaths.push(r.string());
        break;
      case 122:
        m.seccomp = decodeSecurityProfile(r, r.end());
        break;
      case 34:
        m.selinuxOptions = decodeSELinuxOption(r, r.end());
        break;
      case 130:
        m.apparmor = decodeSecurityProfile(r, r.end());
        break;
      case 136:
        m.supplementalGroupsPolicy = enumName(SupplementalGroupsPolicy_NAMES, r.int32());
        break;
      case 74:
        m.apparmorProfile = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.LinuxContainerUser */
export function encodeLinuxContainerUser(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.uid) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.gid) != null && v !== 0) {
    w.tag(2, 0);
    w.int64(v);
  }
  if ((v = m.supplementalGroups) != null && v.length > 0) {
    w.tag(3, 2);
    const at = w.open();
    for (const x of v) w.int64(x);
    w.close(at);
  }
}

export function decodeLinuxContainerUser(r: ProtoReader, end: number): Msg {
  const m: Msg = { uid: 0, gid: 0, supplementalGroups: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.uid = r.int64();
        break;
      case 16:
        m.gid = r.int64();
        break;
      case 24:
        m.supplementalGroups.push(r.int64());
        break;
      case 26: {
        const e = r.end();
        while (r.pos < e) m.supplementalGroups.push(r.int64());
        break;
      }
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerUser */
export function encodeContainerUser(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.linux) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeLinuxContainerUser(w, v);
    w.close(at);
  }
}

export function decodeContainerUser(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.linux = decodeLinuxContainerUser(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerResources */
export function encodeContainerResources(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.linux) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeLinuxContainerResources(w, v);
    w.close(at);
  }
}

export function decodeContainerResources(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.linux = decodeLinuxContainerResources(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.LinuxContainerConfig */
export function encodeLinuxContainerConfig(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.resources) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeLinuxContainerResources(w, v);
    w.close(at);
  }
  if ((v = m.securityContext) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeLinuxContainerSecurityContext(w, v);
    w.close(at);
  }
}

export function decodeLinuxContainerConfig(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.resources = decodeLinuxContainerResources(r, r.end());
        break;
      case 18:
        m.securityContext = decodeLinuxContainerSecurityContext(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
