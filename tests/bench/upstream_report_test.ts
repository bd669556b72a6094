import assert from "node:assert/strict";
import type { Footprint } from "./_proc.ts";
import {
  formatUpstream,
  type UpstreamResult,
  upstreamRows,
  upstreamTargets,
} from "./_upstream_report.ts";

const fp = (rssMB: number, anonMB: number, cpuPct: number): Footprint => ({
  seconds: 30,
  rssMB,
  rssMaxMB: rssMB,
  anonMB,
  fileMB: rssMB - anonMB,
  threads: 10,
  cpuPct,
});

const result: UpstreamResult = {
  kubeletVersion: "Kubernetes v1.37.2",
  runtime: { dir: "/var/lib/denolet-bench", bridge: "denolet1", subnet: "10.86.0.0/16" },
  rounds: 3,
  bursts: {
    "110": {
      denolet: { medianPod: [8000, 7000, 9000], allStarted: [12000, 11000, 13000], stopped: [1] },
      kubelet: { medianPod: [9000, 10000, 11000], allStarted: [16000, 20000, 18000], stopped: [1] },
    },
    "30": {
      denolet: { medianPod: [2000, 1900, 2100], allStarted: [2400, 2300, 2500], stopped: [1] },
      kubelet: { medianPod: [1500, 1400, 1600], allStarted: [3000, 6000, 4000], stopped: [1] },
    },
  },
  steady: {
    "0": {
      denolet: { footprint: fp(75, 40, 1), loadavg1: 1 },
      kubelet: { footprint: fp(80, 50, 1), loadavg1: 1 },
    },
    "110": {
      denolet: { footprint: fp(88, 50, 4), loadavg1: 2 },
      kubelet: { footprint: fp(122, 90, 5), loadavg1: 2 },
    },
  },
  loadavg: { before: [1, 1, 1], after: [2, 2, 2] },
};

Deno.test("upstream rows: bursts by size, then footprint by pod count, medians of rounds", () => {
  const rows = upstreamRows(result);
  assert.deepEqual(rows.map((r) => r.what), [
    "30 pods at once: p50 pod",
    "30 pods at once: all started",
    "110 pods at once: p50 pod",
    "110 pods at once: all started",
    "0 pods: RSS",
    "0 pods: anon",
    "0 pods: CPU",
    "110 pods: RSS",
    "110 pods: anon",
    "110 pods: CPU",
  ]);
  const p50 = rows[0];
  assert.deepEqual(p50.denolet, { median: 2000, min: 1900, max: 2100 });
  assert.deepEqual(p50.kubelet, { median: 1500, min: 1400, max: 1600 });
  assert.equal(p50.ratio, 2000 / 1500);
  assert.equal(rows[7].ratio, 88 / 122);
});

Deno.test("upstream targets: the agent's median pod against the kubelet's, per burst", () => {
  const t = upstreamTargets(result);
  assert.deepEqual(Object.keys(t), [
    "30 pods at once: p50 pod, agent/kubelet (median of rounds)",
    "110 pods at once: p50 pod, agent/kubelet (median of rounds)",
  ]);
  assert.equal(t["30 pods at once: p50 pod, agent/kubelet (median of rounds)"].met, false);
  assert.equal(t["110 pods at once: p50 pod, agent/kubelet (median of rounds)"].met, true);
});

Deno.test("upstream table prints a row per figure with ratio and ranges", () => {
  const text = formatUpstream(result).join("\n");
  assert.match(text, /upstream kubelet Kubernetes v1\.37\.2 side by side/);
  assert.match(
    text,
    /30 pods at once: p50 pod \(ms\)\s+2000\s+1500\s+1\.33\s+1900-2100\s+1400-1600/,
  );
  assert.match(text, /110 pods: RSS \(MB\)\s+88\.0\s+122\.0\s+0\.72\s+88\.0\s+122\.0/);
});
