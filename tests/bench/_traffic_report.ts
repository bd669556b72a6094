/**
 * The traffic bench's figures (issue 31): one window's account from the proxy's byte counts,
 * the API server's audit log and the agent's own client metrics, the start phases from
 * denolet's log, and the side-by-side table with the targets. Pure, so it is tested.
 */
import { auditCounts } from "./_audit.ts";
import { counterDelta, countersByLabels } from "./_metrics.ts";
import type { Footprint } from "./_proc.ts";
import type { TrafficSide } from "./_traffic_nodes.ts";

/** Bytes through the proxy so far (TLS included) and connections accepted. */
export interface ProxyCounts {
  up: number;
  down: number;
  connections: number;
}

/** What an agent's /metrics says of its API client (client-go's families; denolet's bytes). */
export interface ClientScrape {
  /** rest_client_requests_total by `method code`. */
  requests: Record<string, number>;
  /** Body bytes sent and received (rest_client_{request,response}_size_bytes_sum) by verb. */
  sent: Record<string, number>;
  received: Record<string, number>;
  /** denolet_api_body_bytes_total by `direction verb resource` (denolet only). */
  body: Record<string, number>;
}

export interface TrafficWindow {
  pods: number;
  seconds: number;
  /** KB (1000 bytes) per minute through the proxy: agent → API server, and back. */
  upKBPerMin: number;
  downKBPerMin: number;
  /** Connections the agent opened during the window. */
  connections: number;
  /** The API server's audit: the agent's requests per minute by `verb resource`. */
  requestsPerMin: Record<string, number>;
  /** The agent's own account per minute: requests by `method code`, body bytes by verb. */
  client: ClientScrape;
  /** The agent's RSS and CPU over the window (/proc). */
  rssMB?: number;
  cpuPct?: number;
}

export interface TrafficSideResult {
  node: string;
  startToReadyMs: number;
  /** denolet: sinceStartMs of each start-phase log line. */
  startPhases?: Record<string, number>;
  windows: TrafficWindow[];
  /** The API server's audit of the whole run, spawn to stop: requests by `verb resource`. */
  requests: Record<string, number>;
  /** denolet: body bytes from its start to the last window's end, by `direction verb resource`. */
  bodyBytes?: Record<string, number>;
}

export interface TrafficResult {
  kubeletVersion: string;
  denoletForm: "source" | "bundle";
  windowSeconds: number;
  settleSeconds: number;
  kubelet: TrafficSideResult;
  denolet: TrafficSideResult;
  /** Start-only rounds: spawn to Ready Node, ms. */
  starts: Record<TrafficSide, number[]>;
  /** The packed single file: its first start (unpack) and later ones. */
  packed?: {
    firstMs: number;
    firstPhases?: Record<string, number>;
    laterMs: number[];
    laterPhases: (Record<string, number> | undefined)[];
  };
  loadavg: { before: number[]; after: number[] };
}

export function clientScrape(text: string): ClientScrape {
  return {
    requests: countersByLabels(text, "rest_client_requests_total", ["method", "code"]),
    sent: countersByLabels(text, "rest_client_request_size_bytes_sum", ["verb"]),
    received: countersByLabels(text, "rest_client_response_size_bytes_sum", ["verb"]),
    body: countersByLabels(text, "denolet_api_body_bytes_total", ["direction", "verb", "resource"]),
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function perMinute(counts: Record<string, number>, minutes: number): Record<string, number> {
  const out: Record<string, number> = {};
  const sorted = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  for (const [k, v] of sorted) out[k] = round2(v / minutes);
  return out;
}

export function trafficWindow(w: {
  pods: number;
  ms: number;
  counts: [ProxyCounts, ProxyCounts];
  scrapes: [ClientScrape, ClientScrape];
  audit: { log: string; user: string };
  window: [number, number];
  footprint?: Footprint;
}): TrafficWindow {
  const minutes = w.ms / 60_000;
  const [a, b] = w.counts;
  const [s0, s1] = w.scrapes;
  const delta = (k: keyof ClientScrape) => perMinute(counterDelta(s0[k], s1[k]), minutes);
  return {
    pods: w.pods,
    seconds: round2(w.ms / 1000),
    upKBPerMin: round2((b.up - a.up) / 1000 / minutes),
    downKBPerMin: round2((b.down - a.down) / 1000 / minutes),
    connections: b.connections - a.connections,
    requestsPerMin: perMinute(
      auditCounts(w.audit.log, { user: w.audit.user, fromMs: w.window[0], toMs: w.window[1] }),
      minutes,
    ),
    client: {
      requests: delta("requests"),
      sent: delta("sent"),
      received: delta("received"),
      body: delta("body"),
    },
    ...(w.footprint
      ? { rssMB: round2(w.footprint.rssMB), cpuPct: round2(w.footprint.cpuPct) }
      : {}),
  };
}

/** `sinceStartMs` of each log line that has one, by message (the first line of each). */
export function startPhases(log: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of log.split("\n")) {
    const since = /\bsinceStartMs=(\d+(?:\.\d+)?)/.exec(line);
    const msg = /\bmsg=(?:"((?:[^"\\]|\\.)*)"|(\S+))/.exec(line);
    if (!since || !msg) continue;
    const key = msg[1] ?? msg[2];
    if (!(key in out)) out[key] = Number(since[1]);
  }
  return out;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export interface TrafficTarget {
  value: number;
  target: string;
  met: boolean;
}

/**
 * Issue 31's "done when": denolet's KB per minute, both ways, at every level no more than the
 * kubelet's (value: denolet / kubelet), and its start to Ready no later (medians when start
 * rounds ran, else the windows' own starts).
 */
export function trafficTargets(r: TrafficResult): Record<string, TrafficTarget> {
  const out: Record<string, TrafficTarget> = {};
  for (const d of r.denolet.windows) {
    const k = r.kubelet.windows.find((w) => w.pods === d.pods);
    if (!k) continue;
    for (const [dir, key] of [["to", "upKBPerMin"], ["from", "downKBPerMin"]] as const) {
      const ratio = round2(d[key] / k[key]);
      out[`API traffic ${dir} the API server, ${d.pods} pods, denolet/kubelet`] = {
        value: ratio,
        target: "<= 1.00",
        met: d[key] <= k[key],
      };
    }
  }
  const ours = r.starts.denolet.length ? median(r.starts.denolet) : r.denolet.startToReadyMs;
  const theirs = r.starts.kubelet.length ? median(r.starts.kubelet) : r.kubelet.startToReadyMs;
  out["start to Ready Node, denolet/kubelet"] = {
    value: round2(ours / theirs),
    target: "<= 1.00",
    met: ours <= theirs,
  };
  if (r.packed?.laterMs.length) {
    const later = median(r.packed.laterMs);
    out["start to Ready Node, packed file (later starts)/kubelet"] = {
      value: round2(later / theirs),
      target: "<= 1.00",
      met: later <= theirs,
    };
  }
  return out;
}

const kb = (x: number) => x.toFixed(1);
const s = (ms: number) => (ms / 1000).toFixed(2);

/** The report's section: the table the README takes, then where the bytes go. */
export function formatTraffic(r: TrafficResult): string[] {
  const lines = [
    `API traffic (issue 31): ${r.kubeletVersion} vs denolet (${r.denoletForm}), ` +
    `${r.windowSeconds} s windows after ${r.settleSeconds} s settling, through a counting ` +
    `proxy (TLS included); load ${fmtLoad(r.loadavg.before)} → ${fmtLoad(r.loadavg.after)}`,
    "",
    "| per minute, to / from the API server | kubelet | denolet | ratio |",
    "|---|---:|---:|---:|",
  ];
  for (const d of r.denolet.windows) {
    const k = r.kubelet.windows.find((w) => w.pods === d.pods);
    if (!k) continue;
    const level = d.pods === 0 ? "idle, no pods" : `${d.pods} running pods`;
    lines.push(
      `| ${level} | ${kb(k.upKBPerMin)} / ${kb(k.downKBPerMin)} KB | ` +
        `${kb(d.upKBPerMin)} / ${kb(d.downKBPerMin)} KB | ` +
        `${(d.upKBPerMin / k.upKBPerMin).toFixed(2)}× / ` +
        `${(d.downKBPerMin / k.downKBPerMin).toFixed(2)}× |`,
    );
  }
  const startK = [r.kubelet.startToReadyMs, ...r.starts.kubelet];
  const startD = [r.denolet.startToReadyMs, ...r.starts.denolet];
  lines.push(
    `| start to Ready Node (median, s) | ${s(median(startK))} | ${s(median(startD))} | ` +
      `${(median(startD) / median(startK)).toFixed(2)}× |`,
  );
  if (r.packed) {
    const later = median(r.packed.laterMs);
    lines.push(
      `| start to Ready Node, packed file: first start (unpacks) / later (median, s) | | ` +
        `${s(r.packed.firstMs)} / ${s(later)} | |`,
    );
  }
  lines.push("");
  lines.push(
    `start to Ready, every start (s): kubelet ${startK.map(s).join(", ")}; ` +
      `denolet ${startD.map(s).join(", ")}` +
      (r.packed
        ? `; packed first ${s(r.packed.firstMs)}, later ${r.packed.laterMs.map(s).join(", ")}`
        : ""),
  );
  for (const side of ["kubelet", "denolet"] as const) {
    lines.push(`${side}, whole run (audit): ${top(r[side].requests, 40)}`);
    const body = r[side].bodyBytes;
    if (body) lines.push(`${side}, body bytes from start to the last window: ${top(body, 40)}`);
    for (const w of r[side].windows) {
      lines.push(
        `${side}, ${w.pods} pods: RSS ${w.rssMB ?? "?"} MB, CPU ${w.cpuPct ?? "?"} %, ` +
          `${w.connections} new connections; requests/min (audit) ` +
          top(w.requestsPerMin) + `; body bytes/min sent ${top(w.client.sent)}, ` +
          `received ${top(w.client.received)}`,
      );
      if (Object.keys(w.client.body).length) {
        lines.push(`  denolet body bytes/min by verb and resource: ${top(w.client.body, 12)}`);
      }
    }
  }
  return lines;
}

function top(rec: Record<string, number>, n = 8): string {
  const e = Object.entries(rec).sort((a, b) => b[1] - a[1]).slice(0, n);
  return e.length ? e.map(([k, v]) => `${k} ${v}`).join(", ") : "none";
}

function fmtLoad(l: number[]): string {
  return l.map((x) => x.toFixed(2)).join(" ");
}
