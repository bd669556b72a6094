/**
 * The benchmark's pods: a pause-like static pod per name (busybox pods with probes for the
 * probe load), and what the CRI says about them.
 * Pods are recognised by their name suffix `-<node>` (static pod names carry the node name),
 * so the agent's pods, the baseline's and other suites' never mix.
 */
import type { V1Container, V1Pod, V1Probe } from "@kubernetes/client-node";
import type { RuntimeService } from "../../src/cri/types.ts";
import { realClock } from "../../src/util/clock.ts";
import { waitFor } from "../support/wait.ts";

/** The manifest every benchmark pod uses: one container of the tiny pause image. */
export function manifest(name: string, image: string): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - name: main
    image: ${image}
    imagePullPolicy: IfNotPresent
`;
}

/** The probe load's probes run every this many seconds (the upstream default). */
export const PROBE_PERIOD_SECONDS = 10;

/**
 * A pod for the probe load: busybox `web` serving :8080 and a `side` container, with three
 * probes that keep running (a startup probe stops once it has succeeded, and a container has
 * one readiness and one liveness probe, hence two containers): HTTP readiness and TCP liveness
 * on `web`, exec readiness on `side` — one third of each kind. With `probes: false` the same
 * pod without them, so the two differ only in the probes. Every probe succeeds; the 5 s
 * timeout keeps a slow ExecSync on a loaded machine from counting as a failure.
 */
export function probePod(name: string, image: string, opts: { probes: boolean }): V1Pod {
  const probe = (handler: V1Probe): V1Probe | undefined =>
    opts.probes
      ? { ...handler, periodSeconds: PROBE_PERIOD_SECONDS, timeoutSeconds: 5 }
      : undefined;
  const web: V1Container = {
    name: "web",
    image,
    imagePullPolicy: "IfNotPresent",
    command: [
      "sh",
      "-c",
      "mkdir -p /www && echo ok >/www/index.html && exec httpd -f -p 8080 -h /www",
    ],
    ports: [{ name: "http", containerPort: 8080 }],
    readinessProbe: probe({ httpGet: { path: "/index.html", port: "http" } }),
    livenessProbe: probe({ tcpSocket: { port: 8080 } }),
  };
  const side: V1Container = {
    name: "side",
    image,
    imagePullPolicy: "IfNotPresent",
    // A shell as PID 1 ignores SIGTERM unless it traps it; this one stops at once.
    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 3600 & wait $!; done"],
    readinessProbe: probe({ exec: { command: ["true"] } }),
  };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { terminationGracePeriodSeconds: 2, containers: [web, side] },
  };
}

/** A pod as a manifest file's text (JSON is YAML; undefined fields drop out). */
export function manifestText(pod: V1Pod): string {
  return JSON.stringify(pod, null, 2);
}

/** Pod names for one scenario run; unique per run so no state carries over. */
export function podNames(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
}

/**
 * Waits until every named pod of `node` has a running container, then returns each pod's
 * container start time (ms since the epoch) from ContainerStatus.startedAt: the runtime's own
 * record, so polling resolution does not blur the latency.
 */
export async function waitContainersRunning(
  rs: RuntimeService,
  what: { node: string; names: string[] },
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<Map<string, number>> {
  const suffix = `-${what.node}`;
  const wanted = new Set(what.names.map((n) => n + suffix));
  const ids = await waitFor(async () => {
    const cs = await rs.listContainers({ state: { state: "CONTAINER_RUNNING" } });
    const found = new Map<string, string>();
    for (const c of cs) {
      const pod = c.labels["io.kubernetes.pod.name"];
      if (wanted.has(pod)) found.set(pod.slice(0, -suffix.length), c.id);
    }
    return found.size === wanted.size ? found : undefined;
  }, {
    timeoutMs: opts.timeoutMs ?? 300_000,
    intervalMs: 100,
    what: `${wanted.size} containers running on ${what.node}`,
    signal: opts.signal,
  });
  return await startTimes(rs, ids, opts);
}

/** ContainerStatus.startedAt (ms since the epoch) for each pod's container id. */
export async function startTimes(
  rs: RuntimeService,
  ids: Map<string, string>,
  opts: { signal?: AbortSignal } = {},
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [pod, id] of ids) {
    const st = await rs.containerStatus(id, { signal: opts.signal });
    out.set(pod, nsToMs(st.startedAt));
  }
  return out;
}

/**
 * PodSandbox.createdAt (ms since the epoch) of each named pod of `node`: containerd stamps it
 * as RunPodSandbox begins, so it splits a pod's latency into "until the runtime was asked"
 * and "the runtime's work plus what the client does between calls".
 */
export async function sandboxCreatedAt(
  rs: RuntimeService,
  what: { node: string; names: string[] },
): Promise<Map<string, number>> {
  const suffix = `-${what.node}`;
  const wanted = new Set(what.names);
  const out = new Map<string, number>();
  for (const s of await rs.listPodSandbox()) {
    const name = s.metadata.name;
    if (!name.endsWith(suffix)) continue;
    const short = name.slice(0, -suffix.length);
    // After a restart the newest attempt counts; the benchmark's pods have one.
    if (wanted.has(short)) out.set(short, Math.max(out.get(short) ?? 0, nsToMs(s.createdAt)));
  }
  return out;
}

/** Waits until no sandbox of the named pods of `node` remains; returns when that was seen. */
export async function waitSandboxesGone(
  rs: RuntimeService,
  what: { node: string; names: string[] },
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const wanted = new Set(what.names.map((n) => `${n}-${what.node}`));
  await waitFor(async () => {
    const sbs = await rs.listPodSandbox();
    return !sbs.some((s) => wanted.has(s.metadata.name));
  }, {
    timeoutMs: opts.timeoutMs ?? 300_000,
    intervalMs: 50,
    what: `${wanted.size} sandboxes of ${what.node} removed`,
    signal: opts.signal,
  });
  return realClock.now();
}

/** CRI timestamps are nanoseconds since the epoch (as a JS number, so sub-µs is lost). */
export function nsToMs(ns: number | undefined): number {
  return (ns ?? NaN) / 1e6;
}
