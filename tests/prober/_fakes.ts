/** Fakes for prober tests: a pod builder, a mutable status source and a scripted ExecSync. */
import type { V1Container, V1Pod, V1PodStatus, V1Probe } from "@kubernetes/client-node";
import type { ExecSyncResponse, RuntimeService } from "../../src/cri/types.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import {
  createProbeManager,
  type ProbeManagerDeps,
  type ProbeUpdate,
} from "../../src/prober/mod.ts";

export const UID = "uid-1";

export function probePod(
  probes: Partial<Record<"livenessProbe" | "readinessProbe" | "startupProbe", V1Probe>>,
  extra: Partial<V1Container> = {},
): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: UID },
    spec: {
      restartPolicy: "Always",
      containers: [{ name: "app", image: "busybox", ...probes, ...extra }],
    },
  };
}

export function execProbe(opts: Partial<V1Probe> = {}): V1Probe {
  return { exec: { command: ["check"] }, ...opts };
}

/** Pod statuses the tests edit in place, like the status manager would. */
export class FakeStatuses {
  readonly byUid = new Map<string, V1PodStatus>();
  get = (uid: string): V1PodStatus | undefined => this.byUid.get(uid);

  /** The container is running as `id` since `startedAt` (ms). */
  running(id: string, startedAt: number, uid = UID): void {
    this.byUid.set(uid, {
      phase: "Running",
      podIP: "10.0.0.5",
      containerStatuses: [{
        name: "app",
        containerID: `containerd://${id}`,
        image: "busybox",
        imageID: "",
        ready: false,
        restartCount: 0,
        state: { running: { startedAt: new Date(startedAt) } },
      }],
    });
  }

  exited(id: string, uid = UID): void {
    this.byUid.set(uid, {
      phase: "Running",
      containerStatuses: [{
        name: "app",
        containerID: `containerd://${id}`,
        image: "busybox",
        imageID: "",
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: 1 } },
      }],
    });
  }
}

export type ExecReply = number | Error;

/** ExecSync whose exit codes come from `next()`; records the container id of each call. */
export class FakeExec implements Pick<RuntimeService, "execSync"> {
  readonly calls: string[] = [];
  constructor(public next: () => ExecReply = () => 0) {}
  execSync(containerId: string, _cmd: string[], _t: number): Promise<ExecSyncResponse> {
    this.calls.push(containerId);
    const r = this.next();
    if (r instanceof Error) return Promise.reject(r);
    return Promise.resolve({
      stdout: new TextEncoder().encode(r === 0 ? "ok" : "bad"),
      stderr: new Uint8Array(),
      exitCode: r,
    });
  }
}

/** Advances the fake clock, then lets the async probe chains run to their next timer. */
export async function tick(clock: FakeClock, ms: number): Promise<void> {
  await flush();
  await clock.advance(ms);
  await flush();
}

async function flush(): Promise<void> {
  for (let i = 0; i < 200; i++) await Promise.resolve();
}

/** A probe manager on a fake clock, statuses and ExecSync; `random` is 0 unless given. */
export function setupManager(over: Partial<ProbeManagerDeps> = {}) {
  const clock = new FakeClock();
  const statuses = new FakeStatuses();
  const exec = new FakeExec();
  const updates: ProbeUpdate[] = [];
  const manager = createProbeManager({
    runtime: exec,
    clock,
    logger: nullLogger,
    getStatus: statuses.get,
    onUpdate: (u) => updates.push(u),
    random: () => 0,
    ...over,
  });
  return { clock, statuses, exec, updates, manager };
}
