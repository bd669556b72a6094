import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import type { Container, Image, PodSandbox } from "../../src/cri/types.ts";
import { createCadvisorCollector } from "../../src/stats/cadvisor/mod.ts";
import { createCadvisorMetrics } from "../../src/stats/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";
import { fsCapacity } from "../../src/util/statfs.ts";
import { findSample as find, parseExposition as parse } from "../support/prometheus.ts";
import {
  CGROUP_MTIME_S,
  CONTAINER_ID,
  POD_CGROUP,
  POD_UID,
  SANDBOX_ID,
  writeFixture,
} from "./_cadvisor_fixtures.ts";

const NOW = Date.UTC(2026, 0, 2);
const CONTAINER = `${POD_CGROUP}/${CONTAINER_ID}`;
const SANDBOX = `${POD_CGROUP}/${SANDBOX_ID}`;
const BUSYBOX_ID = "sha256:b0";

class FakeCri {
  sandboxes: PodSandbox[] = [{
    id: SANDBOX_ID,
    metadata: { name: "web", namespace: "default", uid: POD_UID, attempt: 0 },
    state: "SANDBOX_READY",
    createdAt: (NOW - 3_600_000) * 1e6,
    labels: { "io.kubernetes.pod.name": "web", "io.kubernetes.pod.namespace": "default" },
    annotations: {},
  }];
  containers: Container[] = [{
    id: CONTAINER_ID,
    podSandboxId: SANDBOX_ID,
    metadata: { name: "main", attempt: 0 },
    image: { image: BUSYBOX_ID },
    imageRef: BUSYBOX_ID,
    state: "CONTAINER_RUNNING",
    createdAt: (NOW - 3_000_000) * 1e6,
    labels: {
      "io.kubernetes.pod.name": "web",
      "io.kubernetes.pod.namespace": "default",
      "io.kubernetes.container.name": "main",
    },
    annotations: {},
  }];
  images: Image[] = [
    { id: BUSYBOX_ID, repoTags: ["denolet.test/busybox:1.35"], repoDigests: [], size: 1 },
    {
      id: "sha256:p0",
      repoTags: ["denolet.test/pause:1.0"],
      repoDigests: [],
      size: 1,
      pinned: true,
    },
  ];
  calls = 0;
  failing = false;
  runtime = {
    listPodSandbox: () => this.#answer(this.sandboxes),
    listContainers: () => this.#answer(this.containers),
  };
  image = { listImages: () => this.#answer(this.images) };

  #answer<T>(v: T): Promise<T> {
    this.calls++;
    return this.failing ? Promise.reject(new Error("runtime down")) : Promise.resolve(v);
  }
}

const webPod: V1Pod = { metadata: { name: "web", namespace: "default", uid: POD_UID } };

function collector(dir: string, cri: FakeCri, mode: "v1" | "v2") {
  return createCadvisorCollector({
    runtime: cri.runtime,
    image: cri.image,
    nodeName: "node-a",
    clock: new FakeClock(NOW),
    logger: createLogger({ write: () => {} }),
    pods: () => [webPod],
    podsCgroupRoot: "/kubepods",
    cgroupRoot: `${dir}/cgroup`,
    procRoot: `${dir}/proc`,
    sysRoot: `${dir}/sys`,
    etcRoot: `${dir}/etc`,
    mode,
    statfs: (path) =>
      Promise.resolve(fsCapacity({
        bsize: 4096,
        blocks: path === "/" ? 1000 : 10,
        bfree: path === "/" ? 400 : 10,
        bavail: 300,
        files: 100,
        ffree: 60,
      })),
  });
}

function value(series: ReturnType<typeof parse>, name: string, labels: Record<string, string>) {
  const s = find(series, name, labels);
  assert.ok(s, `${name}${JSON.stringify(labels)} is served`);
  return s.value;
}

Deno.test("cadvisor (v1): containers carry the kubelet's labels; pod, QoS and root series too", async () => {
  const dir = await writeFixture("v1");
  try {
    const s = parse(await collector(dir, new FakeCri(), "v1").render());
    const main = {
      id: CONTAINER,
      name: CONTAINER_ID,
      image: "denolet.test/busybox:1.35",
      pod: "web",
      namespace: "default",
      container: "main",
    };
    // Every container series has the six base labels, whatever else it has.
    for (const [name, list] of s) {
      if (!name.startsWith("container_") || name === "container_scrape_error") continue;
      for (const x of list) {
        for (const l of ["id", "name", "image", "pod", "namespace", "container"]) {
          assert.ok(l in x.labels, `${name} has label ${l}`);
        }
      }
    }
    const cpu = find(s, "container_cpu_usage_seconds_total", { ...main, cpu: "total" })!;
    assert.deepEqual(cpu, { labels: { ...main, cpu: "total" }, value: 19.5, ts: NOW });
    assert.equal(value(s, "container_memory_working_set_bytes", main), 50_000_000);
    assert.equal(value(s, "container_memory_rss", main), 49_995_904);
    assert.equal(value(s, "container_memory_cache", main), 5_004_096);
    assert.equal(value(s, "container_memory_failcnt", main), 2);
    assert.equal(value(s, "container_memory_max_usage_bytes", main), 56_000_000);
    assert.equal(value(s, "container_spec_memory_limit_bytes", main), 134217728);
    assert.equal(value(s, "container_spec_cpu_quota", main), 50000);
    assert.equal(value(s, "container_spec_cpu_period", main), 100000);
    assert.equal(value(s, "container_spec_cpu_shares", main), 102);
    assert.equal(value(s, "container_cpu_cfs_throttled_periods_total", main), 4);
    assert.equal(value(s, "container_cpu_cfs_throttled_seconds_total", main), 0.5);
    assert.equal(value(s, "container_oom_events_total", main), 1);
    assert.equal(value(s, "container_processes", main), 2);
    assert.equal(value(s, "container_threads", main), 6);
    assert.equal(value(s, "container_file_descriptors", main), 4);
    assert.equal(value(s, "container_sockets", main), 2);
    assert.equal(value(s, "container_ulimits_soft", { ...main, ulimit: "max_open_files" }), 1024);
    assert.equal(value(s, "container_fs_reads_bytes_total", { ...main, device: "/dev/vda" }), 4096);
    assert.equal(value(s, "container_fs_writes_total", { ...main, device: "/dev/vda" }), 2);
    // Spec times carry no timestamp: creation from the runtime, start from the cgroup.
    const created = find(s, "container_creation_time_seconds", main)!;
    assert.deepEqual([created.value, created.ts], [(NOW - 3_000_000) / 1000, undefined]);
    assert.equal(value(s, "container_start_time_seconds", main), CGROUP_MTIME_S);
    assert.equal(value(s, "container_last_seen", main), NOW / 1000);
    // Only the sandbox has network series; app containers share its namespace.
    assert.equal(
      find(s, "container_network_receive_bytes_total", { container: "main" }),
      undefined,
    );

    // The pod cgroup: container="" with the pod's cgroup as id, and its pod's names.
    const pod = {
      id: POD_CGROUP,
      name: "",
      image: "",
      pod: "web",
      namespace: "default",
      container: "",
    };
    assert.equal(value(s, "container_memory_working_set_bytes", pod), 50_000_000);
    assert.equal(value(s, "container_cpu_usage_seconds_total", { ...pod, cpu: "total" }), 20);
    assert.equal(value(s, "container_spec_memory_limit_bytes", pod), 268435456);

    // The sandbox (pause): pod labels, no container name, the pinned image, the pod's network.
    const sb = {
      id: SANDBOX,
      name: SANDBOX_ID,
      image: "denolet.test/pause:1.0",
      pod: "web",
      container: "",
    };
    assert.equal(
      value(s, "container_network_receive_bytes_total", { ...sb, interface: "eth0" }),
      7777,
    );
    assert.equal(
      value(s, "container_network_receive_packets_dropped_total", { ...sb, interface: "eth0" }),
      2,
    );
    assert.equal(
      value(s, "container_network_transmit_errors_total", { ...sb, interface: "eth0" }),
      3,
    );
    assert.equal(
      find(s, "container_network_receive_bytes_total", { ...sb, interface: "lo" }),
      undefined,
    );

    // QoS and root: raw cgroups without names; no CFS series without a quota.
    const qos = { id: "/kubepods/burstable", pod: "", container: "", image: "", name: "" };
    assert.equal(value(s, "container_spec_memory_limit_bytes", qos), 0, "unlimited reads 0");
    assert.equal(find(s, "container_cpu_cfs_periods_total", qos), undefined);
    const root = { id: "/", pod: "", container: "", image: "", name: "" };
    assert.equal(value(s, "container_spec_memory_limit_bytes", root), 4000000 * 1024);
    assert.equal(value(s, "container_spec_memory_swap_limit_bytes", root), 1048576 * 1024);
    assert.equal(
      value(s, "container_network_receive_bytes_total", { ...root, interface: "eth0" }),
      123456,
    );
    assert.equal(value(s, "container_fs_usage_bytes", { ...root, device: "/dev/vda" }), 600 * 4096);
    assert.equal(
      value(s, "container_fs_limit_bytes", { ...root, device: "/dev/vda" }),
      1000 * 4096,
    );
    assert.equal(value(s, "container_fs_inodes_free", { ...root, device: "/dev/shm" }), 60);
    // /dev/vda is both a disk in the root's blkio and a filesystem: the first series stays.
    assert.equal(value(s, "container_fs_reads_total", { ...root, device: "/dev/vda" }), 1);
    assert.equal(
      value(s, "container_fs_sector_reads_total", { ...root, device: "/dev/vda" }),
      3000,
    );

    const m = { boot_id: "b00t-1d", machine_id: "m4ch1ne", system_uuid: "uuid-0001" };
    assert.equal(value(s, "machine_cpu_cores", m), 4);
    assert.equal(value(s, "machine_cpu_physical_cores", m), 2);
    assert.equal(value(s, "machine_cpu_sockets", m), 1);
    assert.equal(value(s, "machine_memory_bytes", m), 4000000 * 1024);
    assert.equal(value(s, "machine_swap_bytes", m), 1048576 * 1024);
    assert.equal(
      value(s, "cadvisor_version_info", { kernelVersion: "6.1.0-test", osVersion: "Test Linux 1" }),
      1,
    );
    assert.equal(value(s, "container_scrape_error", {}), 0);
    assert.equal(value(s, "machine_scrape_error", {}), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cadvisor (v2): PSI, memory events and the agent's own cgroup", async () => {
  const dir = await writeFixture("v2");
  try {
    await Deno.mkdir(`${dir}/cgroup/system.slice/denolet.service`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/cgroup/system.slice/denolet.service/cpu.stat`,
      "usage_usec 5\n",
    );
    await Deno.writeTextFile(`${dir}/cgroup/cpu.pressure`, "some total=1\nfull total=0\n");
    const s = parse(await collector(dir, new FakeCri(), "v2").render());
    const main = { id: CONTAINER, container: "main", pod: "web" };
    assert.equal(value(s, "container_pressure_cpu_waiting_seconds_total", main), 3);
    assert.equal(value(s, "container_pressure_cpu_stalled_seconds_total", main), 1);
    assert.equal(value(s, "container_memory_events_max_total", main), 4);
    assert.equal(value(s, "container_oom_events_total", main), 2);
    assert.equal(value(s, "container_cpu_cfs_burst_periods_total", main), 1);
    assert.equal(value(s, "container_spec_memory_limit_bytes", main), 134217728);
    assert.equal(value(s, "container_spec_memory_swap_limit_bytes", main), 0, "max reads 0");
    assert.equal(value(s, "container_fs_reads_bytes_total", { ...main, device: "/dev/vda" }), 4096);
    assert.equal(
      value(s, "container_cpu_usage_seconds_total", { id: "/system.slice/denolet.service" }),
      5e-6,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cadvisor asks the runtime only about container ids it has not seen", async () => {
  const dir = await writeFixture("v1");
  try {
    const cri = new FakeCri();
    const c = collector(dir, cri, "v1");
    await c.render();
    assert.equal(cri.calls, 3, "sandboxes, containers, images");
    await c.render();
    await c.render();
    assert.equal(cri.calls, 3, "a steady node costs no CRI call");

    // A new container cgroup: one more listing (its image is known: no image list).
    const id = "d1".padEnd(64, "c");
    await Deno.mkdir(`${dir}/cgroup/memory${POD_CGROUP}/${id}`);
    await Deno.writeTextFile(`${dir}/cgroup/memory${POD_CGROUP}/${id}/memory.stat`, "");
    cri.containers = [...cri.containers, {
      ...cri.containers[0],
      id,
      labels: { ...cri.containers[0].labels, "io.kubernetes.container.name": "side" },
    }];
    const s = parse(await c.render());
    assert.equal(cri.calls, 5);
    assert.ok(find(s, "container_memory_usage_bytes", { container: "side", name: id }));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cadvisor without the runtime: series without pod labels and container_scrape_error 1", async () => {
  const dir = await writeFixture("v1");
  try {
    const cri = new FakeCri();
    cri.failing = true;
    const c = collector(dir, cri, "v1");
    let s = parse(await c.render());
    assert.equal(value(s, "container_scrape_error", {}), 1);
    const raw = find(s, "container_memory_usage_bytes", { id: CONTAINER })!;
    assert.deepEqual([raw.labels.pod, raw.labels.container, raw.labels.name], ["", "", ""]);
    // The pod cgroup still has its pod, from the agent's own pods.
    assert.equal(find(s, "container_memory_usage_bytes", { id: POD_CGROUP })?.labels.pod, "web");
    cri.failing = false;
    s = parse(await c.render());
    assert.equal(value(s, "container_scrape_error", {}), 0);
    assert.equal(
      find(s, "container_memory_usage_bytes", { id: CONTAINER })?.labels.container,
      "main",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("concurrent scrapes share one collection", async () => {
  const dir = await writeFixture("v1");
  try {
    const cri = new FakeCri();
    const c = collector(dir, cri, "v1");
    const [a, b] = await Promise.all([c.render(), c.render()]);
    assert.equal(a, b);
    assert.equal(cri.calls, 3);
    const aborted = AbortSignal.abort(new Error("client went away"));
    await assert.rejects(c.render({ signal: aborted }), /client went away/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createCadvisorMetrics touches nothing until the first scrape", async () => {
  const dir = await writeFixture("v1");
  try {
    const cri = new FakeCri();
    let podsCalls = 0;
    const metrics = createCadvisorMetrics({
      runtime: cri.runtime,
      image: cri.image,
      nodeName: "node-a",
      clock: new FakeClock(NOW),
      logger: createLogger({ write: () => {} }),
      pods: () => (podsCalls++, [webPod]),
      podsCgroupRoot: "/kubepods",
      cgroupRoot: `${dir}/cgroup`,
      procRoot: `${dir}/proc`,
      sysRoot: `${dir}/sys`,
      etcRoot: `${dir}/etc`,
      mode: "v1",
    });
    assert.deepEqual([cri.calls, podsCalls], [0, 0]);
    assert.match(await metrics.render(), /^container_scrape_error 0$/m);
    assert.deepEqual([cri.calls, podsCalls], [3, 1]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
