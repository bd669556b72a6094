// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import { enumName, enumValue, type ProtoReader, type ProtoWriter } from "../_wire.ts";
import {
  Protocol_NAMES,
  Protocol_VALUES,
  SecurityProfile_ProfileType_NAMES,
  SecurityProfile_ProfileType_VALUES,
  SupplementalGroupsPolicy_NAMES,
  SupplementalGroupsPolicy_VALUES,
} from "./enums.ts";
import {
  decodeInt64Value,
  decodeNamespaceOption,
  decodeSELinuxOption,
  encodeInt64Value,
  encodeNamespaceOption,
  encodeSELinuxOption,
} from "./sandbox_1.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.HugepageLimit */
export function encodeHugepageLimit(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.pageSize) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.limit) != null && v !== 0) {
    w.tag(2, 0);
    w.int64(v);
  }
}

export function decodeHugepageLimit(r: ProtoReader, end: number): Msg {
  const m: Msg = { pageSize: "", limit: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.pageSize = r.string();
        break;
      case 16:
        m.limit = r.int64(false);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.DNSConfig */
export function encodeDNSConfig(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.servers) != null) {
    for (const x of v) {
      w.tag(1, 2);
      w.string(x);
    }
  }
  if ((v = m.searches) != null) {
    for (const x of v) {
      w.tag(2, 2);
      w.string(x);
    }
  }
  if ((v = m.options) != null) {
    for (const x of v) {
      w.tag(3, 2);
      w.string(x);
    }
  }
}

export function decodeDNSConfig(r: ProtoReader, end: number): Msg {
  const m: Msg = { servers: [], searches: [], options: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.servers.push(r.string());
        break;
      case 18:
        m.searches.push(r.string());
        break;
      case 26:
        m.options.push(r.string());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PortMapping */
export function encodePortMapping(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.protocol) != null) {
    w.tag(1, 0);
    w.int32(enumValue(Protocol_VALUES, v, "Protocol"));
  }
  if ((v = m.containerPort) != null && v !== 0) {
    w.tag(2, 0);
    w.int32(v);
  }
  if ((v = m.hostPort) != null && v !== 0) {
    w.tag(3, 0);
    w.int32(v);
  }
  if ((v = m.hostIp) != null && v !== "") {
    w.tag(4, 2);
    w.string(v);
  }
}

export function decodePortMapping(r: ProtoReader, end: number): Msg {
  const m: Msg = { protocol: "TCP", containerPort: 0, hostPort: 0, hostIp: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.protocol = enumName(Protocol_NAMES, r.int32());
        break;
      case 16:
        m.containerPort = r.int32();
        break;
      case 24:
        m.hostPort = r.int32();
        break;
      case 34:
        m.hostIp = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.LinuxSandboxSecurityContext */
export function encodeLinuxSandboxSecurityContext(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.namespaceOptions) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeNamespaceOption(w, v);
    w.close(at);
  }
  if ((v = m.runAsUser) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.readonlyRootfs) != null && v !== false) {
    w.tag(4, 0);
    w.bool(v);
  }
  if ((v = m.supplementalGroups) != null && v.length > 0) {
    w.tag(5, 2);
    const at = w.open();
    for (const x of v) w.int64(x);
    w.close(at);
  }
  if ((v = m.privileged) != null && v !== false) {
    w.tag(6, 0);
    w.bool(v);
  }
  if ((v = m.runAsGroup) != null) {
    w.tag(8, 2);
    const at = w.open();
    encodeInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.seccomp) != null) {
    w.tag(9, 2);
    const at = w.open();
    encodeSecurityProfile(w, v);
    w.close(at);
  }
  if ((v = m.selinuxOptions) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeSELinuxOption(w, v);
    w.close(at);
  }
  if ((v = m.apparmor) != null) {
    w.tag(10, 2);
    const at = w.open();
    encodeSecurityProfile(w, v);
    w.close(at);
  }
  if ((v = m.supplementalGroupsPolicy) != null) {
    w.tag(11, 0);
    w.int32(enumValue(SupplementalGroupsPolicy_VALUES, v, "SupplementalGroupsPolicy"));
  }
}

export function decodeLinuxSandboxSecurityContext(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    readonlyRootfs: false,
    supplementalGroups: [],
    privileged: false,
    supplementalGroupsPolicy: "Merge",
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.namespaceOptions = decodeNamespaceOption(r, r.end());
        break;
      case 26:
        m.runAsUser = decodeInt64Value(r, r.end());
        break;
      case 32:
        m.readonlyRootfs = r.bool();
        break;
      case 40:
        m.supplementalGroups.push(r.int64());
        break;
      case 42: {
        const e = r.end();
        while (r.pos < e) m.supplementalGroups.push(r.int64());
        break;
      }
      case 48:
        m.privileged = r.bool();
        break;
      case 66:
        m.runAsGroup = decodeInt64Value(r, r.end());
        break;
      case 74:
        m.seccomp = decodeSecurityProfile(r, r.end());
        break;
      case 18:
        m.selinuxOptions = decodeSELinuxOption(r, r.end());
        break;
      case 82:
        m.apparmor = decodeSecurityProfile(r, r.end());
        break;
      case 88:
        m.supplementalGroupsPolicy = enumName(SupplementalGroupsPolicy_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.SecurityProfile */
export function encodeSecurityProfile(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.profileType) != null) {
    w.tag(1, 0);
    w.int32(enumValue(SecurityProfile_ProfileType_VALUES, v, "ProfileType"));
  }
  if ((v = m.localhostRef) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
}

export function decodeSecurityProfile(r: ProtoReader, end: number): Msg {
  const m: Msg = { profileType: "RuntimeDefault", localhostRef: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.profileType = enumName(SecurityProfile_ProfileType_NAMES, r.int32());
        break;
      case 18:
        m.localhostRef = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
