// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts

/** runtime.v1.Protocol */
export const Protocol_VALUES: Record<string, number> = { "TCP": 0, "UDP": 1, "SCTP": 2 };
export const Protocol_NAMES: readonly string[] = ["TCP", "UDP", "SCTP"];

/** runtime.v1.NamespaceMode */
export const NamespaceMode_VALUES: Record<string, number> = {
  "POD": 0,
  "CONTAINER": 1,
  "NODE": 2,
  "TARGET": 3,
};
export const NamespaceMode_NAMES: readonly string[] = ["POD", "CONTAINER", "NODE", "TARGET"];

/** runtime.v1.SecurityProfile.ProfileType */
export const SecurityProfile_ProfileType_VALUES: Record<string, number> = {
  "RuntimeDefault": 0,
  "Unconfined": 1,
  "Localhost": 2,
};
export const SecurityProfile_ProfileType_NAMES: readonly string[] = [
  "RuntimeDefault",
  "Unconfined",
  "Localhost",
];

/** runtime.v1.PodSandboxState */
export const PodSandboxState_VALUES: Record<string, number> = {
  "SANDBOX_READY": 0,
  "SANDBOX_NOTREADY": 1,
};
export const PodSandboxState_NAMES: readonly string[] = ["SANDBOX_READY", "SANDBOX_NOTREADY"];

/** runtime.v1.MountPropagation */
export const MountPropagation_VALUES: Record<string, number> = {
  "PROPAGATION_PRIVATE": 0,
  "PROPAGATION_HOST_TO_CONTAINER": 1,
  "PROPAGATION_BIDIRECTIONAL": 2,
};
export const MountPropagation_NAMES: readonly string[] = [
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
export const ContainerState_NAMES: readonly string[] = [
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
export const ContainerEventType_NAMES: readonly string[] = [
  "CONTAINER_CREATED_EVENT",
  "CONTAINER_STARTED_EVENT",
  "CONTAINER_STOPPED_EVENT",
  "CONTAINER_DELETED_EVENT",
];
