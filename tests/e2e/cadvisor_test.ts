/**
 * /metrics/cadvisor on the real containerd, as the Grafana dashboards of kube-prometheus (the
 * Kubernetes mixin) read it: a CPU burner's container_cpu_usage_seconds_total rises, a memory
 * hog's working set grows by what it holds, every series the dashboards select carries the
 * labels they select on (container!="", image!="", pod, namespace; the pod's network on the
 * pause container), promtool accepts the exposition, and a real Prometheus scraping the agent
 * answers the mixin's own queries with our pods.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { freePort, waitFor } from "../support/agent.ts";
import {
  ensurePrometheus,
  type ExpositionSample,
  findSample,
  parseExposition,
  type PrometheusServer,
  promtoolCheckMetrics,
  startPrometheus,
} from "../support/prometheus.ts";
import { BUSYBOX, E2E_TEST, isRunning, setupE2E, shellPod } from "./_helpers.ts";

const MB = 1024 * 1024;
const FILL_MB = 64;

/** The lint findings upstream's own names give (cAdvisor's, not ours to rename). */
const UPSTREAM_LINT = [
  /^cadvisor_version_info label names should be written in 'snake_case' not 'camelCase'$/,
  /^container_fs_inodes_total non-counter metrics should not have "_total" suffix$/,
  /^container_memory_failcnt counter metrics should have "_total" suffix$/,
];

function burnPod(): V1Pod {
  const p = shellPod("cadv-burn", "while :; do :; done");
  // A CPU limit gives the container a CFS quota: the throttling panels need one.
  p.spec!.containers[0].resources = { requests: { cpu: "100m" }, limits: { cpu: "500m" } };
  return p;
}

function hogPod(): V1Pod {
  // Fills a tmpfs emptyDir once told to: shmem is charged to the container and is not inactive
  // file, so the working set grows by it.
  const p = shellPod(
    "cadv-hog",
    "until [ -f /mem/go ]; do sleep 0.2; done; " +
      `dd if=/dev/zero of=/mem/fill bs=1048576 count=${FILL_MB}; echo filled; sleep 3600`,
  );
  p.spec!.containers[0].volumeMounts = [{ name: "mem", mountPath: "/mem" }];
  p.spec!.containers[0].resources = { limits: { memory: "256Mi" } };
  p.spec!.volumes = [{ name: "mem", emptyDir: { medium: "Memory" } }];
  return p;
}

type Series = Map<string, ExpositionSample[]>;

Deno.test(
  "cadvisor: /metrics/cadvisor serves what the kube-prometheus dashboards read",
  E2E_TEST,
  async (t) => {
    const e2e = await setupE2E();
    let prom: PrometheusServer | undefined;
    const scrape = async (): Promise<{ text: string; series: Series }> => {
      const res = await e2e.agent.get("/metrics/cadvisor");
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      return { text, series: parseExposition(text) };
    };
    try {
      await e2e.writePod("burn.yaml", burnPod());
      await e2e.writePod("hog.yaml", hogPod());
      const burn = await e2e.waitPod("cadv-burn", isRunning, {
        what: "burner running",
        timeoutMs: 60_000,
      });
      const hog = await e2e.waitPod("cadv-hog", isRunning, {
        what: "hog running",
        timeoutMs: 60_000,
      });
      const idOf = (p: V1Pod) =>
        p.status!.containerStatuses![0].containerID!.replace(/^\w+:\/\//, "");
      const podCgroup = (p: V1Pod) =>
        `/denolet-e2e/${e2e.agent.hostname}/kubepods/burstable/pod${p.metadata!.uid}`;
      const main = (p: V1Pod) => ({
        container: "main",
        pod: p.metadata!.name!,
        namespace: "default",
        image: BUSYBOX,
        name: idOf(p),
        id: `${podCgroup(p)}/${idOf(p)}`,
      });

      await t.step(
        "containers, pods and sandboxes carry the labels the dashboards select on",
        async () => {
          const { series: s } = await scrape();
          for (const p of [burn, hog]) {
            for (
              const name of [
                "container_cpu_usage_seconds_total",
                "container_memory_working_set_bytes",
                "container_memory_rss",
                "container_memory_cache",
                "container_memory_swap",
                "container_memory_usage_bytes",
                "container_memory_max_usage_bytes",
                "container_memory_failcnt",
                "container_memory_mapped_file",
                "container_spec_memory_limit_bytes",
                "container_spec_cpu_shares",
                "container_spec_cpu_period",
                "container_start_time_seconds",
                "container_last_seen",
                "container_processes",
                "container_threads",
                "container_file_descriptors",
                "container_oom_events_total",
              ]
            ) {
              assert.ok(findSample(s, name, main(p)), `${name} for ${p.metadata!.name}/main`);
            }
            // The pod cgroup, as upstream: container="" with the pod's cgroup as id.
            const podLevel = { id: podCgroup(p), pod: p.metadata!.name!, container: "", image: "" };
            assert.ok(
              findSample(s, "container_memory_working_set_bytes", podLevel),
              "pod-level memory",
            );
            assert.ok(
              findSample(s, "container_cpu_usage_seconds_total", podLevel),
              "pod-level CPU",
            );
            // The pod's network, on its pause container.
            const net = s.get("container_network_receive_bytes_total")?.filter((x) =>
              x.labels.pod === p.metadata!.name && x.labels.container === ""
            ) ?? [];
            assert.ok(net.length > 0, `network series for ${p.metadata!.name}`);
            assert.equal(net[0].labels.image, e2e.runtime.sandboxImage);
            assert.ok(net[0].labels.interface, "an interface label");
            for (
              const n of [
                "container_network_transmit_bytes_total",
                "container_network_receive_packets_dropped_total",
              ]
            ) {
              assert.ok(findSample(s, n, { pod: p.metadata!.name!, container: "" }), n);
            }
          }
          // The burner's CPU limit: quota, period and the CFS counters.
          assert.equal(findSample(s, "container_spec_cpu_quota", main(burn))?.value, 50000);
          assert.equal(findSample(s, "container_spec_cpu_period", main(burn))?.value, 100000);
          for (const n of ["periods", "throttled_periods", "throttled_seconds"]) {
            assert.ok(findSample(s, `container_cpu_cfs_${n}_total`, main(burn)), `cfs ${n}`);
          }
          assert.equal(
            findSample(s, "container_spec_memory_limit_bytes", main(hog))?.value,
            256 * MB,
          );
          // The machine and the root cgroup.
          const cores = findSample(s, "machine_cpu_cores", {})!.value;
          assert.equal(cores, navigator.hardwareConcurrency);
          assert.ok(findSample(s, "machine_memory_bytes", {})!.value > 256 * MB);
          assert.ok(findSample(s, "container_memory_working_set_bytes", { id: "/" }));
          assert.equal(findSample(s, "container_scrape_error", {})?.value, 0);
          assert.equal(findSample(s, "machine_scrape_error", {})?.value, 0);
        },
      );

      await t.step("a CPU burner's container_cpu_usage_seconds_total rises", async () => {
        const cpu = async () =>
          findSample((await scrape()).series, "container_cpu_usage_seconds_total", main(burn))!
            .value;
        const before = await cpu();
        // Limited to half a core: a second of CPU within the wait on a shared machine.
        const after = await waitFor(async () => {
          const v = await cpu();
          return v >= before + 1 ? v : undefined;
        }, { timeoutMs: 45_000, what: "burner's CPU counter up by 1 s" });
        assert.ok(after > before);
      });

      await t.step(
        "a memory hog's working set grows by what it holds, within its limit",
        async () => {
          const ws = async () =>
            findSample((await scrape()).series, "container_memory_working_set_bytes", main(hog))!
              .value;
          const before = await ws();
          await e2e.cri.runtime.execSync(idOf(hog), ["touch", "/mem/go"], 10);
          await e2e.waitLog(hog, "main", ["filled"], { timeoutMs: 30_000 });
          const after = await waitFor(async () => {
            const v = await ws();
            return v > before + (FILL_MB - 8) * MB ? v : undefined;
          }, { timeoutMs: 30_000, what: `working set up by ~${FILL_MB} MiB` });
          assert.ok(after < 256 * MB, `within the limit (${after})`);
        },
      );

      const bins = await ensurePrometheus();

      await t.step(
        "promtool check metrics: no parse error, no duplicate, only upstream's names",
        async () => {
          const { text } = await scrape();
          const res = await promtoolCheckMetrics(bins.promtool, text);
          const problems = res.output.split("\n").filter((l) => l.trim() !== "");
          const ours = problems.filter((l) => !UPSTREAM_LINT.some((re) => re.test(l)));
          assert.deepEqual(ours, [], res.output);
        },
      );

      await t.step("/metrics has the process_* series, and promtool parses it", async () => {
        const text = await (await e2e.agent.get("/metrics")).text();
        const s = parseExposition(text);
        for (
          const n of [
            "process_cpu_seconds_total",
            "process_resident_memory_bytes",
            "process_start_time_seconds",
            "process_open_fds",
            "process_max_fds",
            "process_virtual_memory_bytes",
          ]
        ) assert.ok(findSample(s, n, {}), n);
        const rss = findSample(s, "process_resident_memory_bytes", {})!.value;
        assert.ok(rss > 10 * MB && rss < 1024 * MB, `a plausible RSS (${rss})`);
        const check = await promtoolCheckMetrics(bins.promtool, text);
        assert.doesNotMatch(check.output, /error|process_/, check.output);
      });

      await t.step(
        "a real Prometheus answers the Kubernetes mixin's queries with our pods",
        async () => {
          const port = freePort([e2e.agent.readOnlyPort]);
          prom = await startPrometheus(bins.prometheus, [{
            job_name: "kubelet",
            metrics_path: "/metrics/cadvisor",
            static_configs: [{ targets: [`127.0.0.1:${e2e.agent.readOnlyPort}`] }],
            // kube-prometheus' ServiceMonitor keeps the path as a label the mixin selects on.
            relabel_configs: [{
              source_labels: ["__metrics_path__"],
              target_label: "metrics_path",
            }],
          }], { port });
          const sel = 'job="kubelet", metrics_path="/metrics/cadvisor"';
          const burnName = burn.metadata!.name!;
          const queries: [
            string,
            (r: { metric: Record<string, string>; value: number }[]) => boolean,
          ][] = [
            [
              // node_namespace_pod_container:container_cpu_usage_seconds_total:sum_irate
              `sum by (namespace, pod, container) (irate(container_cpu_usage_seconds_total{${sel}, image!=""}[10s]))`,
              (r) =>
                r.some((x) =>
                  x.metric.pod === burnName && x.metric.container === "main" && x.value > 0.2
                ),
            ],
            [
              `container_memory_working_set_bytes{${sel}, container!="", image!=""}`,
              (r) =>
                r.some((x) => x.metric.pod === hog.metadata!.name && x.value > (FILL_MB - 8) * MB),
            ],
            [
              `sum(increase(container_cpu_cfs_throttled_periods_total{container!="", ${sel}}[20s])) by (container, pod, namespace) / sum(increase(container_cpu_cfs_periods_total{${sel}}[20s])) by (container, pod, namespace)`,
              (r) => r.some((x) => x.metric.pod === burnName && x.value >= 0),
            ],
            [
              `sum(irate(container_network_receive_bytes_total{${sel}, namespace="default"}[10s])) by (pod)`,
              (r) => r.some((x) => x.metric.pod === burnName),
            ],
            [
              `container_memory_rss{${sel}, image!=""} + container_memory_cache{${sel}, image!=""}`,
              (r) => r.some((x) => x.metric.pod === hog.metadata!.name),
            ],
          ];
          for (const [expr, ok] of queries) {
            try {
              await waitFor(async () => ok(await prom!.query(expr)), {
                timeoutMs: 60_000,
                intervalMs: 1_000,
                what: `Prometheus: ${expr}`,
              });
            } catch (err) {
              throw new Error(
                `${(err as Error).message}\ntargets: ${JSON.stringify(await prom.targets())}\n` +
                  `log: ${await prom.log()}`,
                { cause: err },
              );
            }
          }
        },
      );
    } finally {
      await prom?.stop();
      for (const file of ["burn.yaml", "hog.yaml"]) {
        await e2e.removeManifest(file).catch((err) => console.error(`[cadvisor e2e] ${err}`));
      }
      const root = e2e.agent.rootDir;
      const mounted = async () => (await Deno.readTextFile("/proc/mounts")).includes(` ${root}/`);
      await waitFor(async () => (await mounted()) ? undefined : true, {
        timeoutMs: 60_000,
        what: "pod volumes unmounted",
      }).catch((err) => console.error(`[cadvisor e2e] ${(err as Error).message}`));
      await e2e.close();
    }
  },
);
