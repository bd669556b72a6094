import assert from "node:assert/strict";
import type { V1Probe } from "@kubernetes/client-node";
import { staticPodFromManifest } from "../../src/sources/mod.ts";
import type { SteadyState } from "./_footprint.ts";
import { manifestText, probePod } from "./_pods.ts";
import { PROBES_PER_POD, summarizeProbeLoad } from "./_probe_load.ts";

const origin = { path: "/m/p.yaml", source: "file" as const, nodeName: "n1" };

function probesOf(probes: boolean): V1Probe[] {
  const pod = staticPodFromManifest(manifestText(probePod("p", "img", { probes })), origin);
  return pod.spec!.containers.flatMap((c) =>
    [c.startupProbe, c.readinessProbe, c.livenessProbe].filter((p) => p !== undefined)
  );
}

Deno.test("probePod has one exec, one HTTP and one TCP probe every 10 s, all recurring", () => {
  const probes = probesOf(true);
  assert.equal(probes.length, PROBES_PER_POD);
  assert.deepEqual(
    probes.map((p) => (p.exec ? "exec" : p.httpGet ? "http" : p.tcpSocket ? "tcp" : "?")).sort(),
    ["exec", "http", "tcp"],
  );
  assert.ok(probes.every((p) => p.periodSeconds === 10));
  const pod = staticPodFromManifest(manifestText(probePod("p", "img", { probes: true })), origin);
  // A startup probe stops after its first success: it would not load the steady state.
  assert.ok(pod.spec!.containers.every((c) => c.startupProbe === undefined));
});

Deno.test("probePod without probes is the same pod minus the probes", () => {
  assert.deepEqual(probesOf(false), []);
  const strip = (probes: boolean) =>
    JSON.stringify(probePod("p", "img", { probes }), (k, v) => k.endsWith("Probe") ? undefined : v);
  assert.equal(strip(true), strip(false));
});

function steady(pods: number, cpuPct: number, extra: Partial<SteadyState> = {}): SteadyState {
  return {
    pods,
    footprint: {
      seconds: 60,
      rssMB: 100 + cpuPct,
      rssMaxMB: 0,
      anonMB: 0,
      fileMB: 0,
      threads: 0,
      cpuPct,
    },
    mappings: { brkHeapMB: 0, anonMmapMB: 0, stacksMB: 0, binaryMB: 0, otherFilesMB: 0 },
    machine: { busyPct: 50, loadavg1: 1 },
    metricsSeconds: 60,
    criCallsPerSecond: {},
    ...extra,
  };
}

Deno.test("summarizeProbeLoad: CPU per probe is the CPU delta over the probe rate", () => {
  const off = steady(110, 4);
  const on = steady(110, 5.1, {
    criCallsPerSecond: { exec_sync: 11, container_status: 22 },
    probes: { perSecond: 33, byResult: { successful: 1970, failed: 7, unknown: 3 } },
  });
  const s = summarizeProbeLoad(off, on, { restarts: 0, notReadyAfter: 0 });
  assert.equal(s.probes, 330);
  assert.equal(s.expectedPerSecond, 33);
  assert.equal(s.probesPerSecond, 33);
  assert.equal(s.execSyncPerSecond, 11);
  assert.equal(s.unsuccessful, 10);
  assert.ok(Math.abs(s.cpuDeltaPct - 1.1) < 1e-9);
  // 1.1 % of a core = 11 ms of CPU per second, over 33 probes per second.
  assert.ok(Math.abs(s.cpuPerProbeMs - 1 / 3) < 1e-9);
  assert.ok(Math.abs(s.rssDeltaMB - 1.1) < 1e-9);
});

Deno.test("summarizeProbeLoad: no probes counted gives NaN per probe, not Infinity", () => {
  const s = summarizeProbeLoad(steady(3, 1), steady(3, 2), { restarts: 1, notReadyAfter: 2 });
  assert.equal(s.probesPerSecond, 0);
  assert.ok(Number.isNaN(s.cpuPerProbeMs));
  assert.equal(s.restarts, 1);
  assert.equal(s.notReadyAfter, 2);
});
