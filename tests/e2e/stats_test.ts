/**
 * Stats on the real containerd: the Summary a metrics-server would read, with numbers that
 * move when a container burns CPU or fills a memory-backed emptyDir, and /metrics/resource.
 *
 * Everything is read from the agent's own node API, as metrics-server would; the agent samples
 * every 10 s, so the waits allow a few samples.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { waitFor } from "../support/agent.ts";
import { E2E_TEST, isRunning, setupE2E, shellPod } from "./_helpers.ts";

const MB = 1024 * 1024;
const FILL_MB = 64;

function hogPod(): V1Pod {
  // Waits for the test's go (a file the test creates through CRI exec, after it has read the
  // "before" figure), then writes 64 MiB to a tmpfs emptyDir: shmem pages are charged to the
  // container's memory cgroup and are not inactive file pages, so the working set grows by that.
  const p = shellPod(
    "stats-hog",
    "until [ -f /mem/go ]; do sleep 0.2; done; " +
      `dd if=/dev/zero of=/mem/fill bs=1048576 count=${FILL_MB}; echo filled; sleep 3600`,
  );
  p.spec!.containers[0].volumeMounts = [{ name: "mem", mountPath: "/mem" }];
  p.spec!.volumes = [{ name: "mem", emptyDir: { medium: "Memory" } }, {
    name: "disk",
    emptyDir: {},
  }];
  return p;
}

type Json = Record<string, unknown>;

Deno.test(
  "stats: /stats/summary follows the schema and moves with CPU and memory use",
  E2E_TEST,
  async (t) => {
    const e2e = await setupE2E();
    let pods: V1Pod[] = [];
    const get = (path: string) => e2e.agent.get(path);
    const summaryOf = async (query = ""): Promise<Json> => {
      const res = await get(`/stats/summary${query}`);
      assert.equal(res.status, 200);
      return await res.json();
    };
    const podStats = (s: Json, name: string) =>
      (s.pods as Json[]).find((p) => (p.podRef as Json).name === e2e.podName(name));

    try {
      await e2e.writePod("burn.yaml", shellPod("stats-burn", "while :; do :; done"));
      await e2e.writePod("hog.yaml", hogPod());
      for (const name of ["stats-burn", "stats-hog"]) {
        await e2e.waitPod(name, isRunning, { what: `${name} running`, timeoutMs: 60_000 });
      }
      pods = (await e2e.agent.pods()).items;

      await t.step("the summary has every required field with the right types", async () => {
        const s = await waitFor(async () => {
          const s = await summaryOf();
          const hog = podStats(s, "stats-hog");
          const burn = podStats(s, "stats-burn");
          // Volumes appear once the sampler has seen the pod specs, containers once a sample
          // was taken after they started (the sampler runs every 10 s; one may predate them).
          const started = (p: Json | undefined) => ((p?.containers as Json[]) ?? []).length > 0;
          return hog?.volume && started(hog) && started(burn) ? s : undefined;
        }, { timeoutMs: 45_000, what: "both pods, with volumes and containers, in the summary" });
        validateSummary(s, e2e.agent.hostname);
        const hog = podStats(s, "stats-hog")!;
        const vols = (hog.volume as Json[]).map((v) => v.name).sort();
        assert.deepEqual(vols, ["disk", "mem"]);
        const names = ((s.node as Json).systemContainers as Json[]).map((c) => c.name).sort();
        assert.deepEqual(names, ["kubelet", "runtime"]);
      });

      await t.step("a CPU burner shows usageNanoCores rising", async () => {
        const cores = await waitFor(async () => {
          const burn = podStats(await summaryOf(), "stats-burn");
          const c = (burn?.containers as Json[] | undefined)?.[0];
          const n = (c?.cpu as Json | undefined)?.usageNanoCores as number | undefined;
          // A busy loop takes most of a core; the machine is shared, so ask for a third.
          return n !== undefined && n > 0.3e9 ? n : undefined;
        }, { timeoutMs: 45_000, what: "burner above 0.3 cores" });
        assert.ok(cores <= 64e9);
        const pod = podStats(await summaryOf(), "stats-burn")!;
        assert.ok(((pod.cpu as Json).usageNanoCores as number) > 0.3e9, "pod CPU includes it");
      });

      await t.step("filling a memory-backed emptyDir raises workingSetBytes", async () => {
        const ws = (s: Json) => {
          const p = podStats(s, "stats-hog");
          const c = (p?.containers as Json[])[0];
          return {
            container: (c.memory as Json).workingSetBytes as number,
            pod: (p!.memory as Json).workingSetBytes as number,
          };
        };
        const before = ws(await summaryOf());
        const hogPod = pods.find((p) => p.metadata?.name === e2e.podName("stats-hog"))!;
        const id = hogPod.status!.containerStatuses![0].containerID!.replace(/^\w+:\/\//, "");
        await e2e.cri.runtime.execSync(id, ["touch", "/mem/go"], 10);
        await e2e.waitLog(
          pods.find((p) => p.metadata?.name === e2e.podName("stats-hog"))!,
          "main",
          [
            "filled",
          ],
          { timeoutMs: 30_000 },
        );
        const after = await waitFor(async () => {
          const now = ws(await summaryOf());
          return now.container > before.container + (FILL_MB - 8) * MB ? now : undefined;
        }, { timeoutMs: 45_000, what: `working set up by ~${FILL_MB} MiB` });
        assert.ok(after.pod >= after.container, "pod working set includes the container's");
      });

      await t.step("only_cpu_and_memory trims to CPU and memory", async () => {
        const s = await summaryOf("?only_cpu_and_memory=true");
        const node = s.node as Json;
        assert.ok(node.cpu && node.memory);
        assert.equal(node.fs, undefined);
        const burn = podStats(s, "stats-burn")!;
        assert.equal(burn.network, undefined);
        assert.equal(burn["ephemeral-storage"], undefined);
      });

      await t.step("/metrics/resource has the upstream metric names for our pods", async () => {
        const res = await get("/metrics/resource");
        assert.equal(res.status, 200);
        const text = await res.text();
        const pod = e2e.podName("stats-burn");
        for (
          const re of [
            /^node_cpu_usage_seconds_total [\d.e+]+ \d+$/m,
            /^node_memory_working_set_bytes \d+ \d+$/m,
            new RegExp(
              `^container_cpu_usage_seconds_total\\{container="main",namespace="default",pod="${pod}"\\} [\\d.e+]+ \\d+$`,
              "m",
            ),
            new RegExp(
              `^container_memory_working_set_bytes\\{container="main",namespace="default",pod="${pod}"\\} \\d+ \\d+$`,
              "m",
            ),
            new RegExp(
              `^container_start_time_seconds\\{container="main",namespace="default",pod="${pod}"\\} [\\d.]+$`,
              "m",
            ),
            new RegExp(
              `^pod_cpu_usage_seconds_total\\{namespace="default",pod="${pod}"\\} [\\d.e+]+ \\d+$`,
              "m",
            ),
            new RegExp(
              `^pod_memory_working_set_bytes\\{namespace="default",pod="${pod}"\\} \\d+ \\d+$`,
              "m",
            ),
            /^resource_scrape_error 0$/m,
          ]
        ) assert.match(text, re);
      });
    } finally {
      // Let the agent remove the pods (and unmount the tmpfs emptyDir) before it stops:
      // pods leave /pods before their teardown ends, so wait for the mount itself.
      for (const file of ["burn.yaml", "hog.yaml"]) {
        await e2e.removeManifest(file).catch((err) => console.error(`[stats e2e] ${err}`));
      }
      const root = e2e.agent.rootDir;
      const mounted = async () => (await Deno.readTextFile("/proc/mounts")).includes(` ${root}/`);
      await waitFor(async () => (await mounted()) ? undefined : true, {
        timeoutMs: 60_000,
        what: "pod volumes unmounted",
      }).catch((err) => console.error(`[stats e2e] ${(err as Error).message}`));
      await e2e.close();
    }
  },
);

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

function check(cond: unknown, what: string): void {
  assert.ok(cond, `summary schema: ${what}`);
}

function isCount(v: unknown): boolean {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

function checkFields(obj: unknown, where: string, fields: string[]): void {
  check(obj && typeof obj === "object", `${where} is an object`);
  const o = obj as Json;
  check(typeof o.time === "string" && RFC3339.test(o.time), `${where}.time is RFC 3339`);
  for (const f of fields) check(isCount(o[f]), `${where}.${f} is a count (got ${o[f]})`);
}

const CPU = ["usageCoreNanoSeconds"];
const MEMORY = ["usageBytes", "workingSetBytes", "rssBytes", "pageFaults", "majorPageFaults"];
const FS = ["availableBytes", "capacityBytes", "usedBytes", "inodesFree", "inodes", "inodesUsed"];

/** The fields metrics-server, `kubectl top` and the eviction manager rely on. */
function validateSummary(s: Json, nodeName: string): void {
  const node = s.node as Json;
  check(node.nodeName === nodeName, "node.nodeName");
  check(RFC3339.test(String(node.startTime)), "node.startTime");
  checkFields(node.cpu, "node.cpu", [...CPU, "usageNanoCores"]);
  checkFields(node.memory, "node.memory", ["availableBytes", ...MEMORY]);
  checkFields(node.fs, "node.fs", FS);
  checkFields((node.runtime as Json).imageFs, "node.runtime.imageFs", FS);
  checkFields(node.rlimit, "node.rlimit", ["maxpid", "curproc"]);
  checkFields(node.network, "node.network", []);
  check(Array.isArray((node.network as Json).interfaces), "node.network.interfaces");
  for (const c of node.systemContainers as Json[]) {
    check(RFC3339.test(String(c.startTime)), `systemContainers ${c.name} startTime`);
    checkFields(c.cpu, `systemContainers ${c.name}.cpu`, CPU);
    checkFields(c.memory, `systemContainers ${c.name}.memory`, ["workingSetBytes"]);
  }
  check(Array.isArray(s.pods), "pods is an array");
  for (const p of s.pods as Json[]) {
    const ref = p.podRef as Json;
    const where = `pod ${ref.name}`;
    check(
      typeof ref.name === "string" && typeof ref.namespace === "string" &&
        typeof ref.uid === "string",
      `${where}.podRef`,
    );
    check(RFC3339.test(String(p.startTime)), `${where}.startTime`);
    checkFields(p.cpu, `${where}.cpu`, CPU);
    checkFields(p.memory, `${where}.memory`, ["usageBytes", "workingSetBytes"]);
    checkFields(p.network, `${where}.network`, ["rxBytes", "txBytes"]);
    checkFields(p["ephemeral-storage"], `${where}.ephemeral-storage`, FS.slice(0, 3));
    for (const v of (p.volume as Json[] | undefined) ?? []) {
      checkFields(v, `${where}.volume ${v.name}`, ["usedBytes", "capacityBytes"]);
    }
    check(
      Array.isArray(p.containers) && (p.containers as Json[]).length > 0,
      `${where}.containers`,
    );
    for (const c of p.containers as Json[]) {
      const cw = `${where} container ${c.name}`;
      check(typeof c.name === "string", `${cw}.name`);
      check(RFC3339.test(String(c.startTime)), `${cw}.startTime`);
      checkFields(c.cpu, `${cw}.cpu`, CPU);
      checkFields(c.memory, `${cw}.memory`, ["usageBytes", "workingSetBytes"]);
      checkFields(c.rootfs, `${cw}.rootfs`, ["usedBytes", "capacityBytes", "availableBytes"]);
      checkFields(c.logs, `${cw}.logs`, ["usedBytes", "capacityBytes", "availableBytes"]);
    }
  }
}
