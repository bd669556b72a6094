/**
 * Decisions for the upstream flags that have no KubeletConfiguration field denolet reads:
 * bootstrap, cloud, locking, cgroups of other processes, stats housekeeping and logging.
 * The vocabulary is in `_upstream_rules.ts`.
 */
import { observability, only, type Setting } from "./_upstream_rules.ts";

const LOGGING = "denolet writes text logs to stderr, one stream";

export const FLAG_SETTINGS: readonly Setting[] = [
  {
    flag: "lock-file",
    type: "string",
    upstream: '""',
    rule: only([""], "a lock file"),
    why: "none: no lock is taken, as upstream without one",
  },
  {
    flag: "exit-on-lock-contention",
    type: "bool",
    upstream: "false",
    rule: only([false], "a lock file"),
    why: "it needs --lock-file, which is refused",
  },
  {
    flag: "experimental-allocatable-ignore-eviction",
    type: "bool",
    upstream: "false",
    rule: only([false], "ignoring hard eviction thresholds in allocatable"),
    why: "false: allocatable withholds the hard eviction thresholds, as denolet's does",
  },
  {
    flag: "experimental-mounter-path",
    type: "string",
    upstream: '""',
    rule: only([""], "another mount binary"),
    why: "none: volumes are mounted with the system's mount, as denolet does",
  },
  {
    flag: "runtime-cgroups",
    type: "string",
    upstream: '""',
    rule: observability(
      [""],
      "the runtime system container's stats come from the runtime's " +
        "process, not from this cgroup",
    ),
    why: "upstream v1.37 only reads this cgroup's CPU and memory for the Summary API's `runtime` " +
      "system container (nothing is moved into it); denolet measures the runtime's process",
  },
  {
    flag: "housekeeping-interval",
    type: "duration",
    upstream: "10s",
    rule: only([10_000], "another stats housekeeping interval"),
    why: "denolet samples container stats every 10 s, cAdvisor's default housekeeping interval",
  },
  {
    flag: "logging-format",
    type: "string",
    upstream: "text",
    rule: observability(["text"], LOGGING),
    why: "logging only",
  },
  {
    flag: "log-flush-frequency",
    type: "duration",
    upstream: "5s",
    rule: observability([5_000], "denolet writes each log line at once"),
    why: "logging only",
  },
  {
    flag: "vmodule",
    type: "string",
    upstream: '""',
    rule: observability([""], "denolet has no per-file verbosity; -v applies everywhere"),
    why: "logging only",
  },
  ...["log-text-split-stream", "log-json-split-stream"].map((flag): Setting => ({
    flag,
    type: "bool",
    upstream: "false",
    rule: observability([false], LOGGING),
    why: "logging only",
  })),
  ...["log-text-info-buffer-size", "log-json-info-buffer-size"].map((flag): Setting => ({
    flag,
    type: "string",
    upstream: "0",
    rule: observability(["0"], LOGGING),
    why: "logging only",
  })),
];
