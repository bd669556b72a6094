/**
 * Decisions for the upstream settings of the node's resources that denolet does not implement:
 * CPU, memory and topology managers, cgroups, QoS, swap, reservations. One entry per
 * setting (field and flag together); the vocabulary is in `_upstream_rules.ts`. Defaults are
 * v1.37's (pkg/kubelet/apis/config/v1beta1/defaults.go).
 */
import { inert, only, type Setting } from "./_upstream_rules.ts";

/** A map flag (`k=v,...`): "" is the empty map, anything else is refused as written. */
const mapFlag = (v: unknown) => (v === "" ? {} : v);
/** A list flag of structured items (--reserved-memory): "" is the empty list. */
const listFlag = (v: unknown) => (v === "" ? [] : v);

export const NODE_SETTINGS: readonly Setting[] = [
  {
    field: "cpuManagerPolicy",
    flag: "cpu-manager-policy",
    type: "string",
    zeroIsDefault: true,
    upstream: "none",
    rule: only(["none"], "the CPU manager's policies other than none"),
    why: "none: every container shares the node's CPUs under CFS quota, which is what denolet does",
  },
  {
    field: "cpuManagerPolicyOptions",
    flag: "cpu-manager-policy-options",
    type: "map",
    flagValue: mapFlag,
    upstream: "{}",
    rule: only([{}], "CPU manager policy options"),
    why: "no options: nothing to tune under the none policy",
  },
  {
    field: "cpuManagerReconcilePeriod",
    flag: "cpu-manager-reconcile-period",
    type: "duration",
    zeroIsDefault: true,
    upstream: "10s",
    rule: inert(),
    why: "only the static policy reconciles CPU sets, and only none is accepted",
  },
  {
    field: "memoryManagerPolicy",
    flag: "memory-manager-policy",
    type: "string",
    zeroIsDefault: true,
    upstream: "None",
    rule: only(["None"], "the memory manager's Static policy"),
    why: "None: no NUMA pinning of memory, which is what denolet does",
  },
  {
    field: "reservedMemory",
    flag: "reserved-memory",
    type: "objects",
    flagValue: listFlag,
    upstream: "[]",
    rule: only([[]], "NUMA memory reservations (they belong to the Static memory manager)"),
    why: "no reservations: the None memory manager has none",
  },
  {
    field: "topologyManagerPolicy",
    flag: "topology-manager-policy",
    type: "string",
    zeroIsDefault: true,
    upstream: "none",
    rule: only(["none"], "the topology manager"),
    why: "none: no NUMA alignment, which is what denolet does",
  },
  {
    field: "topologyManagerScope",
    flag: "topology-manager-scope",
    type: "string",
    zeroIsDefault: true,
    upstream: "container",
    rule: inert((v) =>
      v === "container" || v === "pod"
        ? undefined
        : `topologyManagerScope (--topology-manager-scope) ${
          JSON.stringify(v)
        } must be one of: "container", or "pod"`
    ),
    why: "the scope only matters to a topology policy, and only none is accepted (upstream's " +
      "validation of the value is kept)",
  },
  {
    field: "topologyManagerPolicyOptions",
    flag: "topology-manager-policy-options",
    type: "map",
    flagValue: mapFlag,
    upstream: "{}",
    rule: only([{}], "topology manager policy options"),
    why: "no options: nothing to tune under the none policy",
  },
  {
    field: "reservedSystemCPUs",
    flag: "reserved-cpus",
    type: "string",
    upstream: '""',
    rule: only([""], "reserving CPUs by id (reservedSystemCPUs)"),
    why: "none reserved by id; reservations by quantity are systemReserved/kubeReserved",
  },
  {
    field: "qosReserved",
    flag: "qos-reserved",
    type: "map",
    flagValue: mapFlag,
    upstream: "{}",
    rule: only([{}], "reserving memory per QoS class (qosReserved)"),
    why: "no per-QoS reservation: the QoS cgroups get no memory limit, as denolet makes them",
  },
  {
    field: "cpuCFSQuota",
    flag: "cpu-cfs-quota",
    type: "bool",
    upstream: "true",
    rule: only([true], "CPU limits without CFS quota"),
    why: "denolet always enforces CPU limits with CFS quota, as upstream by default",
  },
  {
    field: "cpuCFSQuotaPeriod",
    flag: "cpu-cfs-quota-period",
    type: "duration",
    upstream: "100ms",
    rule: only([100], "another CFS quota period"),
    why: "denolet's quotas are computed for the 100ms period, upstream's default",
  },
  {
    field: "singleProcessOOMKill",
    type: "bool",
    upstream: "unset: false on cgroup v2 (the whole container is killed), true on cgroup v1",
    rule: only([true, false], "singleProcessOOMKill", (v, node) => {
      const cgroupV2 = node().cgroupV2;
      if (v === !cgroupV2) return undefined;
      return `${v}: denolet does not implement singleProcessOOMKill; on this node (cgroup ` +
        `${cgroupV2 ? "v2" : "v1"}) it kills ${
          cgroupV2 ? "the whole container (memory.oom.group)" : "single processes"
        }, upstream's default, so only ${!cgroupV2} is accepted`;
    }),
    why: "denolet sets memory.oom.group on cgroup v2 and nothing on v1, upstream's unset " +
      "default; the value that names what this node does is accepted",
  },
  {
    field: "memoryThrottlingFactor",
    type: "float",
    upstream: "unset (no memory.high throttling)",
    rule: only([], "memory throttling (memory.high)"),
    why: "unset: upstream's MemoryQoS (on by default in v1.37) then sets no memory.high, which " +
      "is what denolet does; any factor asks for memory.high throttling",
  },
  {
    field: "memoryReservationPolicy",
    type: "string",
    zeroIsDefault: true,
    upstream: "None",
    rule: only(["None"], "memory protection (memory.min/memory.low)"),
    why: "None: no memory protection, which is what denolet does",
  },
  {
    field: "podsPerCore",
    flag: "pods-per-core",
    type: "int32",
    upstream: "0",
    rule: only([0], "a pods-per-core limit"),
    why: "0: no per-core limit; maxPods (implemented) is the only pod limit",
  },
  {
    field: "kubeletCgroups",
    flag: "kubelet-cgroups",
    type: "string",
    upstream: '""',
    rule: only([""], "moving itself into a cgroup (kubeletCgroups)"),
    why: "denolet stays in the cgroup it was started in, as upstream with none set",
  },
  {
    field: "systemCgroups",
    flag: "system-cgroups",
    type: "string",
    upstream: '""',
    rule: only([""], "moving the host's processes into a system cgroup (systemCgroups)"),
    why: "processes stay where they are, as upstream with none set",
  },
  {
    field: "failCgroupV1",
    flag: "fail-cgroupv1",
    type: "bool",
    upstream: "true",
    rule: only(
      [true, false],
      "failCgroupV1",
      (v, node) =>
        v === true && !node().cgroupV2
          ? "true: denolet is configured to not run on a host using cgroup v1 (upstream's " +
            "refusal); set it to false to run on cgroup v1"
          : undefined,
    ),
    why: "true is honoured: on a cgroup v1 node the start is refused, as upstream's; on v2 both " +
      "values behave alike. Unset, denolet runs on cgroup v1 too (edge hosts still use it)",
  },
  {
    field: "protectKernelDefaults",
    flag: "protect-kernel-defaults",
    type: "bool",
    upstream: "false",
    rule: only([false], "checking the kernel's tunables (protectKernelDefaults)"),
    why: "false is the default. Known gap: upstream then sets vm.overcommit_memory=1, " +
      "vm.panic_on_oom=0, kernel.panic=10 and kernel.panic_on_oops=1 itself; denolet leaves the " +
      "host's values. true (refuse to start on other values) is refused",
  },
  {
    field: "kernelMemcgNotification",
    flag: "kernel-memcg-notification",
    type: "bool",
    upstream: "false",
    rule: only([false], "memcg threshold notifications for memory eviction"),
    why: "false: memory pressure is found by polling, which is what denolet does",
  },
  {
    field: "crashLoopBackOff",
    type: { struct: { maxContainerRestartPeriod: "duration" } },
    upstream: "{maxContainerRestartPeriod: 300s} (KubeletCrashLoopBackOffMax, on by default)",
    rule: only([{}, { maxContainerRestartPeriod: 300_000 }], "another crash-loop back-off cap"),
    why: "denolet's restart back-off doubles from 10 s up to 300 s, upstream's default cap",
  },
];
