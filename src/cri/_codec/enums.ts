// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts

/** runtime.v1.CgroupDriver */
export const CgroupDriver_VALUES: Record<string, number> = { "SYSTEMD": 0, "CGROUPFS": 1 };
export const CgroupDriver_NAMES: readonly string[] = ["SYSTEMD", "CGROUPFS"];

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

/** runtime.v1.SupplementalGroupsPolicy */
export const SupplementalGroupsPolicy_VALUES: Record<string, number> = { "Merge": 0, "Strict": 1 };
export const SupplementalGroupsPolicy_NAMES: readonly string[] = ["Merge", "Strict"];

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

/** runtime.v1.Signal */
export const Signal_VALUES: Record<string, number> = {
  "SIGNAL_RUNTIME_DEFAULT": 0,
  "SIGNAL_SIGABRT": 1,
  "SIGNAL_SIGALRM": 2,
  "SIGNAL_SIGBUS": 3,
  "SIGNAL_SIGCHLD": 4,
  "SIGNAL_SIGCLD": 5,
  "SIGNAL_SIGCONT": 6,
  "SIGNAL_SIGFPE": 7,
  "SIGNAL_SIGHUP": 8,
  "SIGNAL_SIGILL": 9,
  "SIGNAL_SIGINT": 10,
  "SIGNAL_SIGIO": 11,
  "SIGNAL_SIGIOT": 12,
  "SIGNAL_SIGKILL": 13,
  "SIGNAL_SIGPIPE": 14,
  "SIGNAL_SIGPOLL": 15,
  "SIGNAL_SIGPROF": 16,
  "SIGNAL_SIGPWR": 17,
  "SIGNAL_SIGQUIT": 18,
  "SIGNAL_SIGSEGV": 19,
  "SIGNAL_SIGSTKFLT": 20,
  "SIGNAL_SIGSTOP": 21,
  "SIGNAL_SIGSYS": 22,
  "SIGNAL_SIGTERM": 23,
  "SIGNAL_SIGTRAP": 24,
  "SIGNAL_SIGTSTP": 25,
  "SIGNAL_SIGTTIN": 26,
  "SIGNAL_SIGTTOU": 27,
  "SIGNAL_SIGURG": 28,
  "SIGNAL_SIGUSR1": 29,
  "SIGNAL_SIGUSR2": 30,
  "SIGNAL_SIGVTALRM": 31,
  "SIGNAL_SIGWINCH": 32,
  "SIGNAL_SIGXCPU": 33,
  "SIGNAL_SIGXFSZ": 34,
  "SIGNAL_SIGRTMIN": 35,
  "SIGNAL_SIGRTMINPLUS1": 36,
  "SIGNAL_SIGRTMINPLUS2": 37,
  "SIGNAL_SIGRTMINPLUS3": 38,
  "SIGNAL_SIGRTMINPLUS4": 39,
  "SIGNAL_SIGRTMINPLUS5": 40,
  "SIGNAL_SIGRTMINPLUS6": 41,
  "SIGNAL_SIGRTMINPLUS7": 42,
  "SIGNAL_SIGRTMINPLUS8": 43,
  "SIGNAL_SIGRTMINPLUS9": 44,
  "SIGNAL_SIGRTMINPLUS10": 45,
  "SIGNAL_SIGRTMINPLUS11": 46,
  "SIGNAL_SIGRTMINPLUS12": 47,
  "SIGNAL_SIGRTMINPLUS13": 48,
  "SIGNAL_SIGRTMINPLUS14": 49,
  "SIGNAL_SIGRTMINPLUS15": 50,
  "SIGNAL_SIGRTMAXMINUS14": 51,
  "SIGNAL_SIGRTMAXMINUS13": 52,
  "SIGNAL_SIGRTMAXMINUS12": 53,
  "SIGNAL_SIGRTMAXMINUS11": 54,
  "SIGNAL_SIGRTMAXMINUS10": 55,
  "SIGNAL_SIGRTMAXMINUS9": 56,
  "SIGNAL_SIGRTMAXMINUS8": 57,
  "SIGNAL_SIGRTMAXMINUS7": 58,
  "SIGNAL_SIGRTMAXMINUS6": 59,
  "SIGNAL_SIGRTMAXMINUS5": 60,
  "SIGNAL_SIGRTMAXMINUS4": 61,
  "SIGNAL_SIGRTMAXMINUS3": 62,
  "SIGNAL_SIGRTMAXMINUS2": 63,
  "SIGNAL_SIGRTMAXMINUS1": 64,
  "SIGNAL_SIGRTMAX": 65,
};
export const Signal_NAMES: readonly string[] = [
  "SIGNAL_RUNTIME_DEFAULT",
  "SIGNAL_SIGABRT",
  "SIGNAL_SIGALRM",
  "SIGNAL_SIGBUS",
  "SIGNAL_SIGCHLD",
  "SIGNAL_SIGCLD",
  "SIGNAL_SIGCONT",
  "SIGNAL_SIGFPE",
  "SIGNAL_SIGHUP",
  "SIGNAL_SIGILL",
  "SIGNAL_SIGINT",
  "SIGNAL_SIGIO",
  "SIGNAL_SIGIOT",
  "SIGNAL_SIGKILL",
  "SIGNAL_SIGPIPE",
  "SIGNAL_SIGPOLL",
  "SIGNAL_SIGPROF",
  "SIGNAL_SIGPWR",
  "SIGNAL_SIGQUIT",
  "SIGNAL_SIGSEGV",
  "SIGNAL_SIGSTKFLT",
  "SIGNAL_SIGSTOP",
  "SIGNAL_SIGSYS",
  "SIGNAL_SIGTERM",
  "SIGNAL_SIGTRAP",
  "SIGNAL_SIGTSTP",
  "SIGNAL_SIGTTIN",
  "SIGNAL_SIGTTOU",
  "SIGNAL_SIGURG",
  "SIGNAL_SIGUSR1",
  "SIGNAL_SIGUSR2",
  "SIGNAL_SIGVTALRM",
  "SIGNAL_SIGWINCH",
  "SIGNAL_SIGXCPU",
  "SIGNAL_SIGXFSZ",
  "SIGNAL_SIGRTMIN",
  "SIGNAL_SIGRTMINPLUS1",
  "SIGNAL_SIGRTMINPLUS2",
  "SIGNAL_SIGRTMINPLUS3",
  "SIGNAL_SIGRTMINPLUS4",
  "SIGNAL_SIGRTMINPLUS5",
  "SIGNAL_SIGRTMINPLUS6",
  "SIGNAL_SIGRTMINPLUS7",
  "SIGNAL_SIGRTMINPLUS8",
  "SIGNAL_SIGRTMINPLUS9",
  "SIGNAL_SIGRTMINPLUS10",
  "SIGNAL_SIGRTMINPLUS11",
  "SIGNAL_SIGRTMINPLUS12",
  "SIGNAL_SIGRTMINPLUS13",
  "SIGNAL_SIGRTMINPLUS14",
  "SIGNAL_SIGRTMINPLUS15",
  "SIGNAL_SIGRTMAXMINUS14",
  "SIGNAL_SIGRTMAXMINUS13",
  "SIGNAL_SIGRTMAXMINUS12",
  "SIGNAL_SIGRTMAXMINUS11",
  "SIGNAL_SIGRTMAXMINUS10",
  "SIGNAL_SIGRTMAXMINUS9",
  "SIGNAL_SIGRTMAXMINUS8",
  "SIGNAL_SIGRTMAXMINUS7",
  "SIGNAL_SIGRTMAXMINUS6",
  "SIGNAL_SIGRTMAXMINUS5",
  "SIGNAL_SIGRTMAXMINUS4",
  "SIGNAL_SIGRTMAXMINUS3",
  "SIGNAL_SIGRTMAXMINUS2",
  "SIGNAL_SIGRTMAXMINUS1",
  "SIGNAL_SIGRTMAX",
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
