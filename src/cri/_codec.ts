// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import type { ServiceDefinition } from "@grpc/grpc-js";
import {
  deserializer,
  enumName,
  enumValue,
  type ProtoReader,
  type ProtoWriter,
  readStringMapEntry,
  serializer,
  writeStringMap,
} from "./_wire.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.Protocol */
export const Protocol_VALUES: Record<string, number> = { "TCP": 0, "UDP": 1, "SCTP": 2 };
const Protocol_NAMES: readonly string[] = ["TCP", "UDP", "SCTP"];

/** runtime.v1.NamespaceMode */
export const NamespaceMode_VALUES: Record<string, number> = {
  "POD": 0,
  "CONTAINER": 1,
  "NODE": 2,
  "TARGET": 3,
};
const NamespaceMode_NAMES: readonly string[] = ["POD", "CONTAINER", "NODE", "TARGET"];

/** runtime.v1.PodSandboxState */
export const PodSandboxState_VALUES: Record<string, number> = {
  "SANDBOX_READY": 0,
  "SANDBOX_NOTREADY": 1,
};
const PodSandboxState_NAMES: readonly string[] = ["SANDBOX_READY", "SANDBOX_NOTREADY"];

/** runtime.v1.MountPropagation */
export const MountPropagation_VALUES: Record<string, number> = {
  "PROPAGATION_PRIVATE": 0,
  "PROPAGATION_HOST_TO_CONTAINER": 1,
  "PROPAGATION_BIDIRECTIONAL": 2,
};
const MountPropagation_NAMES: readonly string[] = [
  "PROPAGATION_PRIVATE",
  "PROPAGATION_HOST_TO_CONTAINER",
  "PROPAGATION_BIDIRECTIONAL",
];

/** runtime.v1.ContainerState */
export const ContainerState_VALUES: Record<string, number> = {
  "CONTAINER_CREATED": 0,
  "CONTAINER_RUNNING": 1,
  "CONTAINER_EXITED": 2,
  "CONTAINER_UNKNOWN": 3,
};
const ContainerState_NAMES: readonly string[] = [
  "CONTAINER_CREATED",
  "CONTAINER_RUNNING",
  "CONTAINER_EXITED",
  "CONTAINER_UNKNOWN",
];

/** runtime.v1.ContainerEventType */
export const ContainerEventType_VALUES: Record<string, number> = {
  "CONTAINER_CREATED_EVENT": 0,
  "CONTAINER_STARTED_EVENT": 1,
  "CONTAINER_STOPPED_EVENT": 2,
  "CONTAINER_DELETED_EVENT": 3,
};
const ContainerEventType_NAMES: readonly string[] = [
  "CONTAINER_CREATED_EVENT",
  "CONTAINER_STARTED_EVENT",
  "CONTAINER_STOPPED_EVENT",
  "CONTAINER_DELETED_EVENT",
];

/** runtime.v1.VersionRequest */
export function encodeVersionRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.version) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeVersionRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { version: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.version = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.VersionResponse */
export function encodeVersionResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.version) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.runtimeName) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.runtimeVersion) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.runtimeApiVersion) != null && v !== "") {
    w.tag(4, 2);
    w.string(v);
  }
}

export function decodeVersionResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { version: "", runtimeName: "", runtimeVersion: "", runtimeApiVersion: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.version = r.string();
        break;
      case 18:
        m.runtimeName = r.string();
        break;
      case 26:
        m.runtimeVersion = r.string();
        break;
      case 34:
        m.runtimeApiVersion = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.StatusRequest */
export function encodeStatusRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.verbose) != null && v !== false) {
    w.tag(1, 0);
    w.bool(v);
  }
}

export function decodeStatusRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { verbose: false };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.verbose = r.bool();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RuntimeCondition */
export function encodeRuntimeCondition(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.type) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.status) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
  if ((v = m.reason) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.message) != null && v !== "") {
    w.tag(4, 2);
    w.string(v);
  }
}

export function decodeRuntimeCondition(r: ProtoReader, end: number): Msg {
  const m: Msg = { type: "", status: false, reason: "", message: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.type = r.string();
        break;
      case 16:
        m.status = r.bool();
        break;
      case 26:
        m.reason = r.string();
        break;
      case 34:
        m.message = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.RuntimeStatus */
export function encodeRuntimeStatus(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.conditions) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodeRuntimeCondition(w, x);
      w.close(at);
    }
  }
}

export function decodeRuntimeStatus(r: ProtoReader, end: number): Msg {
  const m: Msg = { conditions: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.conditions.push(decodeRuntimeCondition(r, r.end()));
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
}

export function decodeStatusResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { info: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.status = decodeRuntimeStatus(r, r.end());
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

/** runtime.v1.Int64Value */
export function encodeInt64Value(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.value) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
}

export function decodeInt64Value(r: ProtoReader, end: number): Msg {
  const m: Msg = { value: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.value = r.int64();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.UInt64Value */
export function encodeUInt64Value(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.value) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
}

export function decodeUInt64Value(r: ProtoReader, end: number): Msg {
  const m: Msg = { value: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.value = r.int64(false);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.KeyValue */
export function encodeKeyValue(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.key) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.value) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
}

export function decodeKeyValue(r: ProtoReader, end: number): Msg {
  const m: Msg = { key: "", value: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.key = r.string();
        break;
      case 18:
        m.value = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.NamespaceOption */
export function encodeNamespaceOption(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.network) != null) {
    w.tag(1, 0);
    w.int32(enumValue(NamespaceMode_VALUES, v, "NamespaceMode"));
  }
  if ((v = m.pid) != null) {
    w.tag(2, 0);
    w.int32(enumValue(NamespaceMode_VALUES, v, "NamespaceMode"));
  }
  if ((v = m.ipc) != null) {
    w.tag(3, 0);
    w.int32(enumValue(NamespaceMode_VALUES, v, "NamespaceMode"));
  }
  if ((v = m.targetId) != null && v !== "") {
    w.tag(4, 2);
    w.string(v);
  }
}

export function decodeNamespaceOption(r: ProtoReader, end: number): Msg {
  const m: Msg = { network: "POD", pid: "POD", ipc: "POD", targetId: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.network = enumName(NamespaceMode_NAMES, r.int32());
        break;
      case 16:
        m.pid = enumName(NamespaceMode_NAMES, r.int32());
        break;
      case 24:
        m.ipc = enumName(NamespaceMode_NAMES, r.int32());
        break;
      case 34:
        m.targetId = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.LinuxContainerResources */
export function encodeLinuxContainerResources(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.cpuPeriod) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.cpuQuota) != null && v !== 0) {
    w.tag(2, 0);
    w.int64(v);
  }
  if ((v = m.cpuShares) != null && v !== 0) {
    w.tag(3, 0);
    w.int64(v);
  }
  if ((v = m.memoryLimitInBytes) != null && v !== 0) {
    w.tag(4, 0);
    w.int64(v);
  }
  if ((v = m.oomScoreAdj) != null && v !== 0) {
    w.tag(5, 0);
    w.int64(v);
  }
  if ((v = m.cpusetCpus) != null && v !== "") {
    w.tag(6, 2);
    w.string(v);
  }
  if ((v = m.cpusetMems) != null && v !== "") {
    w.tag(7, 2);
    w.string(v);
  }
  if ((v = m.unified) != null) writeStringMap(w, 9, v);
  if ((v = m.memorySwapLimitInBytes) != null && v !== 0) {
    w.tag(10, 0);
    w.int64(v);
  }
}

export function decodeLinuxContainerResources(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    cpuPeriod: 0,
    cpuQuota: 0,
    cpuShares: 0,
    memoryLimitInBytes: 0,
    oomScoreAdj: 0,
    cpusetCpus: "",
    cpusetMems: "",
    unified: {},
    memorySwapLimitInBytes: 0,
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.cpuPeriod = r.int64();
        break;
      case 16:
        m.cpuQuota = r.int64();
        break;
      case 24:
        m.cpuShares = r.int64();
        break;
      case 32:
        m.memoryLimitInBytes = r.int64();
        break;
      case 40:
        m.oomScoreAdj = r.int64();
        break;
      case 50:
        m.cpusetCpus = r.string();
        break;
      case 58:
        m.cpusetMems = r.string();
        break;
      case 74:
        readStringMapEntry(r, m.unified);
        break;
      case 80:
        m.memorySwapLimitInBytes = r.int64();
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
}

export function decodeLinuxSandboxSecurityContext(r: ProtoReader, end: number): Msg {
  const m: Msg = { readonlyRootfs: false, supplementalGroups: [], privileged: false };
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
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

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

/** runtime.v1.PodSandboxStatus */
export function encodePodSandboxStatus(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.metadata) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodePodSandboxMetadata(w, v);
    w.close(at);
  }
  if ((v = m.state) != null) {
    w.tag(3, 0);
    w.int32(enumValue(PodSandboxState_VALUES, v, "PodSandboxState"));
  }
  if ((v = m.createdAt) != null && v !== 0) {
    w.tag(4, 0);
    w.int64(v);
  }
  if ((v = m.network) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodePodSandboxNetworkStatus(w, v);
    w.close(at);
  }
  if ((v = m.linux) != null) {
    w.tag(6, 2);
    const at = w.open();
    encodeLinuxPodSandboxStatus(w, v);
    w.close(at);
  }
  if ((v = m.labels) != null) writeStringMap(w, 7, v);
  if ((v = m.annotations) != null) writeStringMap(w, 8, v);
  if ((v = m.runtimeHandler) != null && v !== "") {
    w.tag(9, 2);
    w.string(v);
  }
}

export function decodePodSandboxStatus(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    id: "",
    state: "SANDBOX_READY",
    createdAt: 0,
    labels: {},
    annotations: {},
    runtimeHandler: "",
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.metadata = decodePodSandboxMetadata(r, r.end());
        break;
      case 24:
        m.state = enumName(PodSandboxState_NAMES, r.int32());
        break;
      case 32:
        m.createdAt = r.int64();
        break;
      case 42:
        m.network = decodePodSandboxNetworkStatus(r, r.end());
        break;
      case 50:
        m.linux = decodeLinuxPodSandboxStatus(r, r.end());
        break;
      case 58:
        readStringMapEntry(r, m.labels);
        break;
      case 66:
        readStringMapEntry(r, m.annotations);
        break;
      case 74:
        m.runtimeHandler = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxStatusResponse */
export function encodePodSandboxStatusResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.status) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePodSandboxStatus(w, v);
    w.close(at);
  }
  if ((v = m.info) != null) writeStringMap(w, 2, v);
}

export function decodePodSandboxStatusResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { info: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.status = decodePodSandboxStatus(r, r.end());
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

/** runtime.v1.PodSandboxStateValue */
export function encodePodSandboxStateValue(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.state) != null) {
    w.tag(1, 0);
    w.int32(enumValue(PodSandboxState_VALUES, v, "PodSandboxState"));
  }
}

export function decodePodSandboxStateValue(r: ProtoReader, end: number): Msg {
  const m: Msg = { state: "SANDBOX_READY" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.state = enumName(PodSandboxState_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxFilter */
export function encodePodSandboxFilter(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.state) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodePodSandboxStateValue(w, v);
    w.close(at);
  }
  if ((v = m.labelSelector) != null) writeStringMap(w, 3, v);
}

export function decodePodSandboxFilter(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", labelSelector: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.state = decodePodSandboxStateValue(r, r.end());
        break;
      case 26:
        readStringMapEntry(r, m.labelSelector);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListPodSandboxRequest */
export function encodeListPodSandboxRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.filter) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePodSandboxFilter(w, v);
    w.close(at);
  }
}

export function decodeListPodSandboxRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.filter = decodePodSandboxFilter(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandbox */
export function encodePodSandbox(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.metadata) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodePodSandboxMetadata(w, v);
    w.close(at);
  }
  if ((v = m.state) != null) {
    w.tag(3, 0);
    w.int32(enumValue(PodSandboxState_VALUES, v, "PodSandboxState"));
  }
  if ((v = m.createdAt) != null && v !== 0) {
    w.tag(4, 0);
    w.int64(v);
  }
  if ((v = m.labels) != null) writeStringMap(w, 5, v);
  if ((v = m.annotations) != null) writeStringMap(w, 6, v);
  if ((v = m.runtimeHandler) != null && v !== "") {
    w.tag(7, 2);
    w.string(v);
  }
}

export function decodePodSandbox(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    id: "",
    state: "SANDBOX_READY",
    createdAt: 0,
    labels: {},
    annotations: {},
    runtimeHandler: "",
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.metadata = decodePodSandboxMetadata(r, r.end());
        break;
      case 24:
        m.state = enumName(PodSandboxState_NAMES, r.int32());
        break;
      case 32:
        m.createdAt = r.int64();
        break;
      case 42:
        readStringMapEntry(r, m.labels);
        break;
      case 50:
        readStringMapEntry(r, m.annotations);
        break;
      case 58:
        m.runtimeHandler = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListPodSandboxResponse */
export function encodeListPodSandboxResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.items) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodePodSandbox(w, x);
      w.close(at);
    }
  }
}

export function decodeListPodSandboxResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { items: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.items.push(decodePodSandbox(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ImageSpec */
export function encodeImageSpec(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.image) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.annotations) != null) writeStringMap(w, 2, v);
}

export function decodeImageSpec(r: ProtoReader, end: number): Msg {
  const m: Msg = { image: "", annotations: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.image = r.string();
        break;
      case 18:
        readStringMapEntry(r, m.annotations);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.Mount */
export function encodeMount(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerPath) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.hostPath) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.readonly) != null && v !== false) {
    w.tag(3, 0);
    w.bool(v);
  }
  if ((v = m.selinuxRelabel) != null && v !== false) {
    w.tag(4, 0);
    w.bool(v);
  }
  if ((v = m.propagation) != null) {
    w.tag(5, 0);
    w.int32(enumValue(MountPropagation_VALUES, v, "MountPropagation"));
  }
}

export function decodeMount(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    containerPath: "",
    hostPath: "",
    readonly: false,
    selinuxRelabel: false,
    propagation: "PROPAGATION_PRIVATE",
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerPath = r.string();
        break;
      case 18:
        m.hostPath = r.string();
        break;
      case 24:
        m.readonly = r.bool();
        break;
      case 32:
        m.selinuxRelabel = r.bool();
        break;
      case 40:
        m.propagation = enumName(MountPropagation_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.Capability */
export function encodeCapability(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.addCapabilities) != null) {
    for (const x of v) {
      w.tag(1, 2);
      w.string(x);
    }
  }
  if ((v = m.dropCapabilities) != null) {
    for (const x of v) {
      w.tag(2, 2);
      w.string(x);
    }
  }
}

export function decodeCapability(r: ProtoReader, end: number): Msg {
  const m: Msg = { addCapabilities: [], dropCapabilities: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.addCapabilities.push(r.string());
        break;
      case 18:
        m.dropCapabilities.push(r.string());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

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

/** runtime.v1.StartContainerRequest */
export function encodeStartContainerRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeStartContainerRequest(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.StartContainerResponse */
export function encodeStartContainerResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeStartContainerResponse(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.StopContainerRequest */
export function encodeStopContainerRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.timeout) != null && v !== 0) {
    w.tag(2, 0);
    w.int64(v);
  }
}

export function decodeStopContainerRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "", timeout: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
        break;
      case 16:
        m.timeout = r.int64();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.StopContainerResponse */
export function encodeStopContainerResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeStopContainerResponse(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.RemoveContainerRequest */
export function encodeRemoveContainerRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeRemoveContainerRequest(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.RemoveContainerResponse */
export function encodeRemoveContainerResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeRemoveContainerResponse(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.ContainerStateValue */
export function encodeContainerStateValue(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.state) != null) {
    w.tag(1, 0);
    w.int32(enumValue(ContainerState_VALUES, v, "ContainerState"));
  }
}

export function decodeContainerStateValue(r: ProtoReader, end: number): Msg {
  const m: Msg = { state: "CONTAINER_CREATED" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.state = enumName(ContainerState_NAMES, r.int32());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerFilter */
export function encodeContainerFilter(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.state) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeContainerStateValue(w, v);
    w.close(at);
  }
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(3, 2);
    w.string(v);
  }
  if ((v = m.labelSelector) != null) writeStringMap(w, 4, v);
}

export function decodeContainerFilter(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", podSandboxId: "", labelSelector: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.state = decodeContainerStateValue(r, r.end());
        break;
      case 26:
        m.podSandboxId = r.string();
        break;
      case 34:
        readStringMapEntry(r, m.labelSelector);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListContainersRequest */
export function encodeListContainersRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.filter) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerFilter(w, v);
    w.close(at);
  }
}

export function decodeListContainersRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.filter = decodeContainerFilter(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.Container */
export function encodeContainer(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.metadata) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeContainerMetadata(w, v);
    w.close(at);
  }
  if ((v = m.image) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
  if ((v = m.imageRef) != null && v !== "") {
    w.tag(5, 2);
    w.string(v);
  }
  if ((v = m.state) != null) {
    w.tag(6, 0);
    w.int32(enumValue(ContainerState_VALUES, v, "ContainerState"));
  }
  if ((v = m.createdAt) != null && v !== 0) {
    w.tag(7, 0);
    w.int64(v);
  }
  if ((v = m.labels) != null) writeStringMap(w, 8, v);
  if ((v = m.annotations) != null) writeStringMap(w, 9, v);
}

export function decodeContainer(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    id: "",
    podSandboxId: "",
    imageRef: "",
    state: "CONTAINER_CREATED",
    createdAt: 0,
    labels: {},
    annotations: {},
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.podSandboxId = r.string();
        break;
      case 26:
        m.metadata = decodeContainerMetadata(r, r.end());
        break;
      case 34:
        m.image = decodeImageSpec(r, r.end());
        break;
      case 42:
        m.imageRef = r.string();
        break;
      case 48:
        m.state = enumName(ContainerState_NAMES, r.int32());
        break;
      case 56:
        m.createdAt = r.int64();
        break;
      case 66:
        readStringMapEntry(r, m.labels);
        break;
      case 74:
        readStringMapEntry(r, m.annotations);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListContainersResponse */
export function encodeListContainersResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containers) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodeContainer(w, x);
      w.close(at);
    }
  }
}

export function decodeListContainersResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { containers: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containers.push(decodeContainer(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerStatusRequest */
export function encodeContainerStatusRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.verbose) != null && v !== false) {
    w.tag(2, 0);
    w.bool(v);
  }
}

export function decodeContainerStatusRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "", verbose: false };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
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

/** runtime.v1.ContainerStatus */
export function encodeContainerStatus(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.metadata) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeContainerMetadata(w, v);
    w.close(at);
  }
  if ((v = m.state) != null) {
    w.tag(3, 0);
    w.int32(enumValue(ContainerState_VALUES, v, "ContainerState"));
  }
  if ((v = m.createdAt) != null && v !== 0) {
    w.tag(4, 0);
    w.int64(v);
  }
  if ((v = m.startedAt) != null && v !== 0) {
    w.tag(5, 0);
    w.int64(v);
  }
  if ((v = m.finishedAt) != null && v !== 0) {
    w.tag(6, 0);
    w.int64(v);
  }
  if ((v = m.exitCode) != null && v !== 0) {
    w.tag(7, 0);
    w.int32(v);
  }
  if ((v = m.image) != null) {
    w.tag(8, 2);
    const at = w.open();
    encodeImageSpec(w, v);
    w.close(at);
  }
  if ((v = m.imageRef) != null && v !== "") {
    w.tag(9, 2);
    w.string(v);
  }
  if ((v = m.reason) != null && v !== "") {
    w.tag(10, 2);
    w.string(v);
  }
  if ((v = m.message) != null && v !== "") {
    w.tag(11, 2);
    w.string(v);
  }
  if ((v = m.labels) != null) writeStringMap(w, 12, v);
  if ((v = m.annotations) != null) writeStringMap(w, 13, v);
  if ((v = m.mounts) != null) {
    for (const x of v) {
      w.tag(14, 2);
      const at = w.open();
      encodeMount(w, x);
      w.close(at);
    }
  }
  if ((v = m.logPath) != null && v !== "") {
    w.tag(15, 2);
    w.string(v);
  }
}

export function decodeContainerStatus(r: ProtoReader, end: number): Msg {
  const m: Msg = {
    id: "",
    state: "CONTAINER_CREATED",
    createdAt: 0,
    startedAt: 0,
    finishedAt: 0,
    exitCode: 0,
    imageRef: "",
    reason: "",
    message: "",
    labels: {},
    annotations: {},
    mounts: [],
    logPath: "",
  };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.metadata = decodeContainerMetadata(r, r.end());
        break;
      case 24:
        m.state = enumName(ContainerState_NAMES, r.int32());
        break;
      case 32:
        m.createdAt = r.int64();
        break;
      case 40:
        m.startedAt = r.int64();
        break;
      case 48:
        m.finishedAt = r.int64();
        break;
      case 56:
        m.exitCode = r.int32();
        break;
      case 66:
        m.image = decodeImageSpec(r, r.end());
        break;
      case 74:
        m.imageRef = r.string();
        break;
      case 82:
        m.reason = r.string();
        break;
      case 90:
        m.message = r.string();
        break;
      case 98:
        readStringMapEntry(r, m.labels);
        break;
      case 106:
        readStringMapEntry(r, m.annotations);
        break;
      case 114:
        m.mounts.push(decodeMount(r, r.end()));
        break;
      case 122:
        m.logPath = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerStatusResponse */
export function encodeContainerStatusResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.status) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerStatus(w, v);
    w.close(at);
  }
  if ((v = m.info) != null) writeStringMap(w, 2, v);
}

export function decodeContainerStatusResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { info: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.status = decodeContainerStatus(r, r.end());
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

/** runtime.v1.ReopenContainerLogRequest */
export function encodeReopenContainerLogRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeReopenContainerLogRequest(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.ReopenContainerLogResponse */
export function encodeReopenContainerLogResponse(_w: ProtoWriter, _m: Msg): void {
}

export function decodeReopenContainerLogResponse(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.GetEventsRequest */
export function encodeGetEventsRequest(_w: ProtoWriter, _m: Msg): void {
}

export function decodeGetEventsRequest(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.ContainerEventResponse */
export function encodeContainerEventResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.containerEventType) != null) {
    w.tag(2, 0);
    w.int32(enumValue(ContainerEventType_VALUES, v, "ContainerEventType"));
  }
  if ((v = m.createdAt) != null && v !== 0) {
    w.tag(3, 0);
    w.int64(v);
  }
}

export function decodeContainerEventResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "", containerEventType: "CONTAINER_CREATED_EVENT", createdAt: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
        break;
      case 16:
        m.containerEventType = enumName(ContainerEventType_NAMES, r.int32());
        break;
      case 24:
        m.createdAt = r.int64();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.CpuUsage */
export function encodeCpuUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.usageCoreNanoSeconds) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.usageNanoCores) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeCpuUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.usageCoreNanoSeconds = decodeUInt64Value(r, r.end());
        break;
      case 26:
        m.usageNanoCores = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.MemoryUsage */
export function encodeMemoryUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.workingSetBytes) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.availableBytes) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.usageBytes) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.rssBytes) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.pageFaults) != null) {
    w.tag(6, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.majorPageFaults) != null) {
    w.tag(7, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeMemoryUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.workingSetBytes = decodeUInt64Value(r, r.end());
        break;
      case 26:
        m.availableBytes = decodeUInt64Value(r, r.end());
        break;
      case 34:
        m.usageBytes = decodeUInt64Value(r, r.end());
        break;
      case 42:
        m.rssBytes = decodeUInt64Value(r, r.end());
        break;
      case 50:
        m.pageFaults = decodeUInt64Value(r, r.end());
        break;
      case 58:
        m.majorPageFaults = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.SwapUsage */
export function encodeSwapUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.swapAvailableBytes) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.swapUsageBytes) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeSwapUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.swapAvailableBytes = decodeUInt64Value(r, r.end());
        break;
      case 26:
        m.swapUsageBytes = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.NetworkInterfaceUsage */
export function encodeNetworkInterfaceUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.name) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.rxBytes) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.rxErrors) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.txBytes) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.txErrors) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeNetworkInterfaceUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { name: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.name = r.string();
        break;
      case 18:
        m.rxBytes = decodeUInt64Value(r, r.end());
        break;
      case 26:
        m.rxErrors = decodeUInt64Value(r, r.end());
        break;
      case 34:
        m.txBytes = decodeUInt64Value(r, r.end());
        break;
      case 42:
        m.txErrors = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.NetworkUsage */
export function encodeNetworkUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.defaultInterface) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeNetworkInterfaceUsage(w, v);
    w.close(at);
  }
  if ((v = m.interfaces) != null) {
    for (const x of v) {
      w.tag(3, 2);
      const at = w.open();
      encodeNetworkInterfaceUsage(w, x);
      w.close(at);
    }
  }
}

export function decodeNetworkUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0, interfaces: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.defaultInterface = decodeNetworkInterfaceUsage(r, r.end());
        break;
      case 26:
        m.interfaces.push(decodeNetworkInterfaceUsage(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ProcessUsage */
export function encodeProcessUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.processCount) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeProcessUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.processCount = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.FilesystemIdentifier */
export function encodeFilesystemIdentifier(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.mountpoint) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeFilesystemIdentifier(r: ProtoReader, end: number): Msg {
  const m: Msg = { mountpoint: "" };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.mountpoint = r.string();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.FilesystemUsage */
export function encodeFilesystemUsage(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.timestamp) != null && v !== 0) {
    w.tag(1, 0);
    w.int64(v);
  }
  if ((v = m.fsId) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeFilesystemIdentifier(w, v);
    w.close(at);
  }
  if ((v = m.usedBytes) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
  if ((v = m.inodesUsed) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeUInt64Value(w, v);
    w.close(at);
  }
}

export function decodeFilesystemUsage(r: ProtoReader, end: number): Msg {
  const m: Msg = { timestamp: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 8:
        m.timestamp = r.int64();
        break;
      case 18:
        m.fsId = decodeFilesystemIdentifier(r, r.end());
        break;
      case 26:
        m.usedBytes = decodeUInt64Value(r, r.end());
        break;
      case 34:
        m.inodesUsed = decodeUInt64Value(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerAttributes */
export function encodeContainerAttributes(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.metadata) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeContainerMetadata(w, v);
    w.close(at);
  }
  if ((v = m.labels) != null) writeStringMap(w, 3, v);
  if ((v = m.annotations) != null) writeStringMap(w, 4, v);
}

export function decodeContainerAttributes(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", labels: {}, annotations: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.metadata = decodeContainerMetadata(r, r.end());
        break;
      case 26:
        readStringMapEntry(r, m.labels);
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

/** runtime.v1.ContainerStats */
export function encodeContainerStats(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.attributes) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerAttributes(w, v);
    w.close(at);
  }
  if ((v = m.cpu) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeCpuUsage(w, v);
    w.close(at);
  }
  if ((v = m.memory) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeMemoryUsage(w, v);
    w.close(at);
  }
  if ((v = m.writableLayer) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeFilesystemUsage(w, v);
    w.close(at);
  }
  if ((v = m.swap) != null) {
    w.tag(5, 2);
    const at = w.open();
    encodeSwapUsage(w, v);
    w.close(at);
  }
}

export function decodeContainerStats(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.attributes = decodeContainerAttributes(r, r.end());
        break;
      case 18:
        m.cpu = decodeCpuUsage(r, r.end());
        break;
      case 26:
        m.memory = decodeMemoryUsage(r, r.end());
        break;
      case 34:
        m.writableLayer = decodeFilesystemUsage(r, r.end());
        break;
      case 42:
        m.swap = decodeSwapUsage(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerStatsRequest */
export function encodeContainerStatsRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
}

export function decodeContainerStatsRequest(r: ProtoReader, end: number): Msg {
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

/** runtime.v1.ContainerStatsResponse */
export function encodeContainerStatsResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.stats) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerStats(w, v);
    w.close(at);
  }
}

export function decodeContainerStatsResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.stats = decodeContainerStats(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerStatsFilter */
export function encodeContainerStatsFilter(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.podSandboxId) != null && v !== "") {
    w.tag(2, 2);
    w.string(v);
  }
  if ((v = m.labelSelector) != null) writeStringMap(w, 3, v);
}

export function decodeContainerStatsFilter(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", podSandboxId: "", labelSelector: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.podSandboxId = r.string();
        break;
      case 26:
        readStringMapEntry(r, m.labelSelector);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListContainerStatsRequest */
export function encodeListContainerStatsRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.filter) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeContainerStatsFilter(w, v);
    w.close(at);
  }
}

export function decodeListContainerStatsRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.filter = decodeContainerStatsFilter(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListContainerStatsResponse */
export function encodeListContainerStatsResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.stats) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodeContainerStats(w, x);
      w.close(at);
    }
  }
}

export function decodeListContainerStatsResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { stats: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.stats.push(decodeContainerStats(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxAttributes */
export function encodePodSandboxAttributes(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.metadata) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodePodSandboxMetadata(w, v);
    w.close(at);
  }
  if ((v = m.labels) != null) writeStringMap(w, 3, v);
  if ((v = m.annotations) != null) writeStringMap(w, 4, v);
}

export function decodePodSandboxAttributes(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", labels: {}, annotations: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        m.metadata = decodePodSandboxMetadata(r, r.end());
        break;
      case 26:
        readStringMapEntry(r, m.labels);
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

/** runtime.v1.LinuxPodSandboxStats */
export function encodeLinuxPodSandboxStats(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.cpu) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodeCpuUsage(w, v);
    w.close(at);
  }
  if ((v = m.memory) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeMemoryUsage(w, v);
    w.close(at);
  }
  if ((v = m.network) != null) {
    w.tag(3, 2);
    const at = w.open();
    encodeNetworkUsage(w, v);
    w.close(at);
  }
  if ((v = m.process) != null) {
    w.tag(4, 2);
    const at = w.open();
    encodeProcessUsage(w, v);
    w.close(at);
  }
  if ((v = m.containers) != null) {
    for (const x of v) {
      w.tag(5, 2);
      const at = w.open();
      encodeContainerStats(w, x);
      w.close(at);
    }
  }
}

export function decodeLinuxPodSandboxStats(r: ProtoReader, end: number): Msg {
  const m: Msg = { containers: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.cpu = decodeCpuUsage(r, r.end());
        break;
      case 18:
        m.memory = decodeMemoryUsage(r, r.end());
        break;
      case 26:
        m.network = decodeNetworkUsage(r, r.end());
        break;
      case 34:
        m.process = decodeProcessUsage(r, r.end());
        break;
      case 42:
        m.containers.push(decodeContainerStats(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxStats */
export function encodePodSandboxStats(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.attributes) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePodSandboxAttributes(w, v);
    w.close(at);
  }
  if ((v = m.linux) != null) {
    w.tag(2, 2);
    const at = w.open();
    encodeLinuxPodSandboxStats(w, v);
    w.close(at);
  }
}

export function decodePodSandboxStats(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.attributes = decodePodSandboxAttributes(r, r.end());
        break;
      case 18:
        m.linux = decodeLinuxPodSandboxStats(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.PodSandboxStatsFilter */
export function encodePodSandboxStatsFilter(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.id) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.labelSelector) != null) writeStringMap(w, 2, v);
}

export function decodePodSandboxStatsFilter(r: ProtoReader, end: number): Msg {
  const m: Msg = { id: "", labelSelector: {} };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.id = r.string();
        break;
      case 18:
        readStringMapEntry(r, m.labelSelector);
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListPodSandboxStatsRequest */
export function encodeListPodSandboxStatsRequest(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.filter) != null) {
    w.tag(1, 2);
    const at = w.open();
    encodePodSandboxStatsFilter(w, v);
    w.close(at);
  }
}

export function decodeListPodSandboxStatsRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.filter = decodePodSandboxStatsFilter(r, r.end());
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ListPodSandboxStatsResponse */
export function encodeListPodSandboxStatsResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.stats) != null) {
    for (const x of v) {
      w.tag(1, 2);
      const at = w.open();
      encodePodSandboxStats(w, x);
      w.close(at);
    }
  }
}

export function decodeListPodSandboxStatsResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { stats: [] };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.stats.push(decodePodSandboxStats(r, r.end()));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

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

/** runtime.v1.RuntimeService, as grpc-js clients and servers take it. */
export const RuntimeService: ServiceDefinition = {
  Version: {
    path: "/runtime.v1.RuntimeService/Version",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeVersionRequest),
    requestDeserialize: deserializer(decodeVersionRequest),
    responseSerialize: serializer(encodeVersionResponse),
    responseDeserialize: deserializer(decodeVersionResponse),
    originalName: "version",
  },
  RunPodSandbox: {
    path: "/runtime.v1.RuntimeService/RunPodSandbox",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeRunPodSandboxRequest),
    requestDeserialize: deserializer(decodeRunPodSandboxRequest),
    responseSerialize: serializer(encodeRunPodSandboxResponse),
    responseDeserialize: deserializer(decodeRunPodSandboxResponse),
    originalName: "runPodSandbox",
  },
  StopPodSandbox: {
    path: "/runtime.v1.RuntimeService/StopPodSandbox",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeStopPodSandboxRequest),
    requestDeserialize: deserializer(decodeStopPodSandboxRequest),
    responseSerialize: serializer(encodeStopPodSandboxResponse),
    responseDeserialize: deserializer(decodeStopPodSandboxResponse),
    originalName: "stopPodSandbox",
  },
  RemovePodSandbox: {
    path: "/runtime.v1.RuntimeService/RemovePodSandbox",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeRemovePodSandboxRequest),
    requestDeserialize: deserializer(decodeRemovePodSandboxRequest),
    responseSerialize: serializer(encodeRemovePodSandboxResponse),
    responseDeserialize: deserializer(decodeRemovePodSandboxResponse),
    originalName: "removePodSandbox",
  },
  PodSandboxStatus: {
    path: "/runtime.v1.RuntimeService/PodSandboxStatus",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodePodSandboxStatusRequest),
    requestDeserialize: deserializer(decodePodSandboxStatusRequest),
    responseSerialize: serializer(encodePodSandboxStatusResponse),
    responseDeserialize: deserializer(decodePodSandboxStatusResponse),
    originalName: "podSandboxStatus",
  },
  ListPodSandbox: {
    path: "/runtime.v1.RuntimeService/ListPodSandbox",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeListPodSandboxRequest),
    requestDeserialize: deserializer(decodeListPodSandboxRequest),
    responseSerialize: serializer(encodeListPodSandboxResponse),
    responseDeserialize: deserializer(decodeListPodSandboxResponse),
    originalName: "listPodSandbox",
  },
  CreateContainer: {
    path: "/runtime.v1.RuntimeService/CreateContainer",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeCreateContainerRequest),
    requestDeserialize: deserializer(decodeCreateContainerRequest),
    responseSerialize: serializer(encodeCreateContainerResponse),
    responseDeserialize: deserializer(decodeCreateContainerResponse),
    originalName: "createContainer",
  },
  StartContainer: {
    path: "/runtime.v1.RuntimeService/StartContainer",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeStartContainerRequest),
    requestDeserialize: deserializer(decodeStartContainerRequest),
    responseSerialize: serializer(encodeStartContainerResponse),
    responseDeserialize: deserializer(decodeStartContainerResponse),
    originalName: "startContainer",
  },
  StopContainer: {
    path: "/runtime.v1.RuntimeService/StopContainer",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeStopContainerRequest),
    requestDeserialize: deserializer(decodeStopContainerRequest),
    responseSerialize: serializer(encodeStopContainerResponse),
    responseDeserialize: deserializer(decodeStopContainerResponse),
    originalName: "stopContainer",
  },
  RemoveContainer: {
    path: "/runtime.v1.RuntimeService/RemoveContainer",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeRemoveContainerRequest),
    requestDeserialize: deserializer(decodeRemoveContainerRequest),
    responseSerialize: serializer(encodeRemoveContainerResponse),
    responseDeserialize: deserializer(decodeRemoveContainerResponse),
    originalName: "removeContainer",
  },
  ListContainers: {
    path: "/runtime.v1.RuntimeService/ListContainers",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeListContainersRequest),
    requestDeserialize: deserializer(decodeListContainersRequest),
    responseSerialize: serializer(encodeListContainersResponse),
    responseDeserialize: deserializer(decodeListContainersResponse),
    originalName: "listContainers",
  },
  ContainerStatus: {
    path: "/runtime.v1.RuntimeService/ContainerStatus",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeContainerStatusRequest),
    requestDeserialize: deserializer(decodeContainerStatusRequest),
    responseSerialize: serializer(encodeContainerStatusResponse),
    responseDeserialize: deserializer(decodeContainerStatusResponse),
    originalName: "containerStatus",
  },
  ReopenContainerLog: {
    path: "/runtime.v1.RuntimeService/ReopenContainerLog",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeReopenContainerLogRequest),
    requestDeserialize: deserializer(decodeReopenContainerLogRequest),
    responseSerialize: serializer(encodeReopenContainerLogResponse),
    responseDeserialize: deserializer(decodeReopenContainerLogResponse),
    originalName: "reopenContainerLog",
  },
  ExecSync: {
    path: "/runtime.v1.RuntimeService/ExecSync",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeExecSyncRequest),
    requestDeserialize: deserializer(decodeExecSyncRequest),
    responseSerialize: serializer(encodeExecSyncResponse),
    responseDeserialize: deserializer(decodeExecSyncResponse),
    originalName: "execSync",
  },
  Exec: {
    path: "/runtime.v1.RuntimeService/Exec",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeExecRequest),
    requestDeserialize: deserializer(decodeExecRequest),
    responseSerialize: serializer(encodeExecResponse),
    responseDeserialize: deserializer(decodeExecResponse),
    originalName: "exec",
  },
  Attach: {
    path: "/runtime.v1.RuntimeService/Attach",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeAttachRequest),
    requestDeserialize: deserializer(decodeAttachRequest),
    responseSerialize: serializer(encodeAttachResponse),
    responseDeserialize: deserializer(decodeAttachResponse),
    originalName: "attach",
  },
  PortForward: {
    path: "/runtime.v1.RuntimeService/PortForward",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodePortForwardRequest),
    requestDeserialize: deserializer(decodePortForwardRequest),
    responseSerialize: serializer(encodePortForwardResponse),
    responseDeserialize: deserializer(decodePortForwardResponse),
    originalName: "portForward",
  },
  ContainerStats: {
    path: "/runtime.v1.RuntimeService/ContainerStats",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeContainerStatsRequest),
    requestDeserialize: deserializer(decodeContainerStatsRequest),
    responseSerialize: serializer(encodeContainerStatsResponse),
    responseDeserialize: deserializer(decodeContainerStatsResponse),
    originalName: "containerStats",
  },
  ListContainerStats: {
    path: "/runtime.v1.RuntimeService/ListContainerStats",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeListContainerStatsRequest),
    requestDeserialize: deserializer(decodeListContainerStatsRequest),
    responseSerialize: serializer(encodeListContainerStatsResponse),
    responseDeserialize: deserializer(decodeListContainerStatsResponse),
    originalName: "listContainerStats",
  },
  ListPodSandboxStats: {
    path: "/runtime.v1.RuntimeService/ListPodSandboxStats",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeListPodSandboxStatsRequest),
    requestDeserialize: deserializer(decodeListPodSandboxStatsRequest),
    responseSerialize: serializer(encodeListPodSandboxStatsResponse),
    responseDeserialize: deserializer(decodeListPodSandboxStatsResponse),
    originalName: "listPodSandboxStats",
  },
  Status: {
    path: "/runtime.v1.RuntimeService/Status",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeStatusRequest),
    requestDeserialize: deserializer(decodeStatusRequest),
    responseSerialize: serializer(encodeStatusResponse),
    responseDeserialize: deserializer(decodeStatusResponse),
    originalName: "status",
  },
  GetContainerEvents: {
    path: "/runtime.v1.RuntimeService/GetContainerEvents",
    requestStream: false,
    responseStream: true,
    requestSerialize: serializer(encodeGetEventsRequest),
    requestDeserialize: deserializer(decodeGetEventsRequest),
    responseSerialize: serializer(encodeContainerEventResponse),
    responseDeserialize: deserializer(decodeContainerEventResponse),
    originalName: "getContainerEvents",
  },
};

/** runtime.v1.ImageService, as grpc-js clients and servers take it. */
export const ImageService: ServiceDefinition = {
  ListImages: {
    path: "/runtime.v1.ImageService/ListImages",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeListImagesRequest),
    requestDeserialize: deserializer(decodeListImagesRequest),
    responseSerialize: serializer(encodeListImagesResponse),
    responseDeserialize: deserializer(decodeListImagesResponse),
    originalName: "listImages",
  },
  ImageStatus: {
    path: "/runtime.v1.ImageService/ImageStatus",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeImageStatusRequest),
    requestDeserialize: deserializer(decodeImageStatusRequest),
    responseSerialize: serializer(encodeImageStatusResponse),
    responseDeserialize: deserializer(decodeImageStatusResponse),
    originalName: "imageStatus",
  },
  PullImage: {
    path: "/runtime.v1.ImageService/PullImage",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodePullImageRequest),
    requestDeserialize: deserializer(decodePullImageRequest),
    responseSerialize: serializer(encodePullImageResponse),
    responseDeserialize: deserializer(decodePullImageResponse),
    originalName: "pullImage",
  },
  RemoveImage: {
    path: "/runtime.v1.ImageService/RemoveImage",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeRemoveImageRequest),
    requestDeserialize: deserializer(decodeRemoveImageRequest),
    responseSerialize: serializer(encodeRemoveImageResponse),
    responseDeserialize: deserializer(decodeRemoveImageResponse),
    originalName: "removeImage",
  },
  ImageFsInfo: {
    path: "/runtime.v1.ImageService/ImageFsInfo",
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(encodeImageFsInfoRequest),
    requestDeserialize: deserializer(decodeImageFsInfoRequest),
    responseSerialize: serializer(encodeImageFsInfoResponse),
    responseDeserialize: deserializer(decodeImageFsInfoResponse),
    originalName: "imageFsInfo",
  },
};
