/**
 * Decisions for the upstream settings of the agent itself that denolet does not implement: its
 * server, its API client, its process, networking hooks and volumes. One entry per setting
 * (field and flag together); the vocabulary is in `_upstream_rules.ts`.
 */
import { inert, observability, only, type Setting } from "./_upstream_rules.ts";

function range(name: string, min: number, max: number) {
  return (v: unknown) =>
    typeof v === "number" && v >= min && v <= max
      ? undefined
      : `${name} ${v} must be between ${min} and ${max}, inclusive`;
}

export const AGENT_SETTINGS: readonly Setting[] = [
  {
    field: "enableServer",
    flag: "enable-server",
    type: "bool",
    upstream: "true",
    rule: only([true], "turning the node API off with enableServer (port: 0 does that)"),
    why: "denolet serves the node API, as upstream by default",
  },
  {
    field: "tlsCurvePreferences",
    type: "int32s",
    upstream: "[] (the TLS stack's defaults)",
    rule: only([[]], "TLS curve preferences"),
    why: "none: the TLS stack's default curves, as upstream with none set",
  },
  {
    field: "eventRecordQPS",
    flag: "event-qps",
    type: "int32",
    upstream: "50",
    rule: only([50], "a separate rate limit for events"),
    why: "denolet sends events through its API client, whose limiter defaults to the same " +
      "50 QPS / 100 burst as upstream's event client",
  },
  {
    field: "eventBurst",
    flag: "event-burst",
    type: "int32",
    zeroIsDefault: true,
    upstream: "100",
    rule: only([100], "a separate burst for events"),
    why: "as eventRecordQPS: the API client's default burst is the same 100",
  },
  {
    field: "enableContentionProfiling",
    flag: "contention-profiling",
    type: "bool",
    upstream: "false",
    rule: inert(),
    why: "Go's block profiler, a debugging aid; denolet has no Go profiler and nothing a pod " +
      "or the node does depends on it",
  },
  {
    field: "enableProfilingHandler",
    type: "bool",
    upstream: "true",
    rule: inert(),
    why: "/debug/pprof, a debugging aid of Go's runtime; denolet serves none whatever the value " +
      "(as upstream with false), and nothing a pod or the node does depends on it",
  },
  {
    field: "enableDebugFlagsHandler",
    type: "bool",
    upstream: "true",
    rule: inert(),
    why: "/debug/flags/v, a debugging aid; denolet serves none whatever the value (as upstream " +
      "with false); -v sets the verbosity",
  },
  {
    field: "enableSystemLogQuery",
    type: "bool",
    upstream: "false",
    rule: only([false], "node log queries (/logs/?query=)"),
    why: "false: /logs/ serves files only, which is what denolet does",
  },
  {
    field: "showHiddenMetricsForVersion",
    type: "string",
    upstream: '""',
    rule: observability([""], "denolet has no hidden metrics to show"),
    why: "metrics exposition only",
  },
  {
    field: "tracing",
    type: { struct: { endpoint: "string", samplingRatePerMillion: "int32" } },
    upstream: "unset (no tracing)",
    rule: observability([], "denolet exports no OpenTelemetry traces"),
    why: "telemetry only: no pod or node behaviour depends on the agent's traces",
  },
  {
    field: "streamingConnectionIdleTimeout",
    flag: "streaming-connection-idle-timeout",
    type: "duration",
    zeroIsDefault: true,
    upstream: "4h",
    rule: inert(),
    why: "upstream v1.37 reads it nowhere: exec, attach and port-forward streams are served by " +
      "the runtime's stream server, which denolet proxies as upstream does",
  },
  {
    field: "contentType",
    flag: "kube-api-content-type",
    type: "string",
    zeroIsDefault: true,
    upstream: "application/vnd.kubernetes.protobuf",
    rule: inert(),
    why: "the API client's wire encoding only: denolet speaks JSON, the objects are the same",
  },
  {
    field: "volumeStatsAggPeriod",
    flag: "volume-stats-agg-period",
    type: "duration",
    zeroIsDefault: true,
    upstream: "1m",
    rule: only([60_000], "another volume usage period (or turning volume stats off)"),
    why: "denolet measures volume usage on its own stats cycle; the default asks nothing else",
  },
  {
    field: "hairpinMode",
    flag: "hairpin-mode",
    type: "string",
    zeroIsDefault: true,
    upstream: "promiscuous-bridge",
    rule: inert((v) =>
      ["promiscuous-bridge", "hairpin-veth", "none"].includes(v as string)
        ? undefined
        : `option ${
          JSON.stringify(v)
        } specified for HairpinMode (--hairpin-mode). Valid options are "none", ` +
          `"hairpin-veth" or "promiscuous-bridge"`
    ),
    why: "upstream v1.37 validates it and reads it nowhere else (hairpin NAT is the CNI " +
      "plugin's); the validation is kept",
  },
  {
    field: "podCIDR",
    flag: "pod-cidr",
    type: "string",
    upstream: '""',
    rule: only([""], "passing a pod CIDR to the runtime (podCIDR)"),
    why: "none: the runtime's network configuration decides pod addresses",
  },
  {
    field: "iptablesMasqueradeBit",
    type: "int32",
    upstream: "14",
    rule: inert(range("iptablesMasqueradeBit", 0, 31)),
    why: "upstream v1.37 validates it and reads it nowhere else (kube-proxy owns the marks)",
  },
  {
    field: "iptablesDropBit",
    type: "int32",
    upstream: "15",
    rule: inert(range("iptablesDropBit", 0, 31)),
    why: "upstream v1.37 validates it and reads it nowhere else",
  },
  {
    field: "makeIPTablesUtilChains",
    flag: "make-iptables-util-chains",
    type: "bool",
    upstream: "true",
    rule: only(
      [false],
      "the iptables utility chains (KUBE-IPTABLES-HINT, and KUBE-FIREWALL's drop of martian " +
        "packets to 127.0.0.0/8)",
      undefined,
      { notDefault: true },
    ),
    why: "denolet installs no iptables rules; false says so. true, upstream's default, asks for " +
      "a protective firewall rule denolet does not install, so it is refused",
  },
  {
    field: "enableControllerAttachDetach",
    flag: "enable-controller-attach-detach",
    type: "bool",
    upstream: "true",
    rule: only([true], "attaching and detaching volumes itself"),
    why: "denolet registers its Node for controller-managed attach/detach, as upstream by default",
  },
  {
    field: "volumePluginDir",
    flag: "volume-plugin-dir",
    type: "string",
    zeroIsDefault: true,
    upstream: "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/",
    rule: inert(),
    why: "where FlexVolume drivers are looked up; flexVolume volumes are refused at admission",
  },
  {
    field: "configMapAndSecretChangeDetectionStrategy",
    type: "string",
    zeroIsDefault: true,
    upstream: "Watch",
    rule: only(["Watch"], "the Get and Cache strategies"),
    why: "denolet watches the ConfigMaps and Secrets its pods use, upstream's Watch strategy",
  },
  {
    field: "containerLogMaxWorkers",
    type: "int32",
    upstream: "1",
    rule: inert((v) =>
      typeof v === "number" && v >= 1
        ? undefined
        : `containerLogMaxWorkers must be greater than or equal to 1, got ${v}`
    ),
    why: "how many containers' logs are rotated at once, not how they are rotated; the " +
      "validation is upstream's",
  },
  {
    field: "runOnce",
    flag: "runonce",
    type: "bool",
    upstream: "false",
    rule: only([false], "run-once mode (deprecated upstream, which refuses it too)"),
    why: "false: the agent keeps running, as denolet does",
  },
  {
    field: "oomScoreAdj",
    flag: "oom-score-adj",
    type: "int32",
    upstream: "-999",
    rule: only([-999], "setting its own oom_score_adj (set OOMScoreAdjust= in its unit)"),
    why: "denolet's systemd unit (denolet install) sets OOMScoreAdjust=-999, upstream's value",
  },
  {
    field: "maxOpenFiles",
    flag: "max-open-files",
    type: "int64",
    zeroIsDefault: true,
    upstream: "1000000",
    rule: only([1_000_000], "setting its own open-file limit (set LimitNOFILE= in its unit)"),
    why: "denolet's systemd unit (denolet install) sets LimitNOFILE=1000000, upstream's value",
  },
];
