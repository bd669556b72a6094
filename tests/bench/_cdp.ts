/**
 * A minimal Chrome DevTools Protocol client over the inspector's WebSocket (`deno run
 * --inspect`): enough to drive the V8 CPU profiler of another process, and to read what its
 * profile says.
 */

/** One call frame of a V8 CPU profile node. */
export interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based. */
  lineNumber: number;
  columnNumber: number;
}

/** `Profiler.stop`'s profile (the fields used here). */
export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; hitCount?: number; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface CdpSession {
  send<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** Calls `handler` with the params of each `method` event until the returned function runs. */
  on(method: string, handler: (params: unknown) => void): () => void;
  close(): void;
}

/** Connects to the first target the inspector at `host:port` lists. */
export async function connectInspector(host: string, port: number): Promise<CdpSession> {
  const res = await fetch(`http://${host}:${port}/json/list`);
  const targets = await res.json() as { webSocketDebuggerUrl: string }[];
  if (!targets[0]) throw new Error(`no inspector target on ${host}:${port}`);
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = (e) => reject(new Error(`inspector WebSocket: ${(e as ErrorEvent).message}`));
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const handlers = new Set<{ method: string; handler: (params: unknown) => void }>();
  ws.onmessage = (e) => {
    const msg = JSON.parse(e.data as string);
    if (msg.method !== undefined) {
      for (const h of handlers) if (h.method === msg.method) h.handler(msg.params);
      return;
    }
    const p = msg.id !== undefined ? pending.get(msg.id) : undefined;
    if (!p) return; // an answer to a call given up on
    pending.delete(msg.id);
    if (msg.error) p.reject(new Error(`${msg.error.code}: ${msg.error.message}`));
    else p.resolve(msg.result);
  };
  ws.onclose = () => {
    for (const p of pending.values()) p.reject(new Error("inspector WebSocket closed"));
    pending.clear();
  };
  return {
    send<T>(method: string, params: Record<string, unknown> = {}) {
      const id = nextId++;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise<T>((resolve, reject) =>
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
      );
    },
    on(method, handler) {
      const h = { method, handler };
      handlers.add(h);
      return () => handlers.delete(h);
    },
    close: () => ws.close(),
  };
}

export interface ProfileSummary {
  /** Profile span, ms. */
  totalMs: number;
  /** Time in (idle), ms. */
  idleMs: number;
  /**
   * Time in samples of anything else, ms: the isolate's busy time. Not `totalMs - idleMs`, which
   * would count the wait for the first sample (hundreds of ms) as busy.
   */
  busyMs: number;
  /** Self time by function (`name url:line`), ms, highest first. */
  selfByFunction: [string, number][];
  /** Self time by script (url, or `(program)`, `(garbage collector)`), ms, highest first. */
  selfByFile: [string, number][];
  /** Total (self + callees) time by function, counted once per sample, ms, highest first. */
  totalByFunction: [string, number][];
  /** Busy samples longer than `maxSampleUs`, and the time cut from them, ms. */
  clamped: { samples: number; ms: number };
}

/**
 * Self and total time per function and self time per file from a V8 CPU profile. A sample's
 * time is the gap to the next one, so a thread descheduled on a busy machine (or a stalled
 * sampler) books hundreds of ms on whatever function it was in: `maxSampleUs` caps each one.
 */
export function summarizeProfile(
  profile: CpuProfile,
  opts: { root?: string; maxSampleUs?: number } = {},
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // Sample i's time is the gap to the next sample (the last one gets the mean).
  const mean = samples.length ? (profile.endTime - profile.startTime) / samples.length : 0;
  const self = new Map<string, number>();
  const file = new Map<string, number>();
  const total = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  const short = (url: string) =>
    (opts.root && url.startsWith(opts.root)) ? url.slice(opts.root.length) : url;
  const label = (f: CallFrame) =>
    f.url
      ? `${f.functionName || "(anonymous)"} ${short(f.url)}:${f.lineNumber + 1}`
      : f.functionName;
  let idleUs = 0;
  let busyUs = 0;
  const clamped = { samples: 0, ms: 0 };
  for (let i = 0; i < samples.length; i++) {
    let us = i + 1 < deltas.length ? deltas[i + 1] : mean;
    const node = byId.get(samples[i]);
    if (!node) continue;
    if (node.callFrame.functionName === "(idle)") {
      idleUs += us;
      continue;
    }
    if (opts.maxSampleUs !== undefined && us > opts.maxSampleUs) {
      clamped.samples++;
      clamped.ms += (us - opts.maxSampleUs) / 1000;
      idleUs += us - opts.maxSampleUs; // not known to be busy: counted with the idle time
      us = opts.maxSampleUs;
    }
    busyUs += us;
    add(self, label(node.callFrame), us);
    add(file, node.callFrame.url ? short(node.callFrame.url) : node.callFrame.functionName, us);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const l = label(byId.get(id)!.callFrame);
      if (seen.has(l)) continue; // recursion: once per sample
      seen.add(l);
      add(total, l, us);
    }
  }
  const sorted = (m: Map<string, number>) =>
    [...m].map(([k, us]) => [k, us / 1000] as [string, number]).sort((a, b) => b[1] - a[1]);
  return {
    totalMs: (profile.endTime - profile.startTime) / 1000,
    idleMs: idleUs / 1000,
    busyMs: busyUs / 1000,
    selfByFunction: sorted(self),
    selfByFile: sorted(file),
    totalByFunction: sorted(total).filter(([k]) => k !== "(root)"),
    clamped,
  };
}
