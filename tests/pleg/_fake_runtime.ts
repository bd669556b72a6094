/** A PodRuntime whose pods tests set directly; only the PLEG's calls are implemented. */
import type {
  PodRuntime,
  RunningPod,
  RuntimeContainerState,
  RuntimePodStatus,
} from "../../src/runtime/types.ts";
import type { Clock } from "../../src/util/clock.ts";

type ContainerSpec = [id: string, state: RuntimeContainerState];
type SandboxSpec = [id: string, state: "ready" | "notready"];

/** Builds a RunningPod from compact tuples. */
export function runningPod(
  uid: string,
  parts: { sandboxes?: SandboxSpec[]; containers?: ContainerSpec[] },
): RunningPod {
  const sandboxId = parts.sandboxes?.[0]?.[0] ?? "";
  return {
    uid,
    name: `pod-${uid}`,
    namespace: "default",
    sandboxes: (parts.sandboxes ?? []).map(([id, state]) => ({ id, state, createdAt: 1 })),
    containers: (parts.containers ?? []).map(([id, state]) => ({
      id,
      name: `c-${id}`,
      sandboxId,
      state,
      createdAt: 1,
    })),
  };
}

export class FakePodRuntime implements PodRuntime {
  pods: RunningPod[] = [];
  /** IPs reported for a pod's status (defaults to none). */
  ips = new Map<string, string[]>();
  failList = false;
  failStatus = new Set<string>();
  statusCalls: string[] = [];
  listCalls = 0;

  constructor(private readonly clock: Clock) {}

  getPods(): Promise<RunningPod[]> {
    this.listCalls++;
    if (this.failList) return Promise.reject(new Error("connection refused"));
    return Promise.resolve(structuredClone(this.pods));
  }

  getPodStatus(uid: string, name: string, namespace: string): Promise<RuntimePodStatus> {
    this.statusCalls.push(uid);
    if (this.failStatus.has(uid)) return Promise.reject(new Error("deadline exceeded"));
    const p = this.pods.find((x) => x.uid === uid);
    const status: RuntimePodStatus = {
      uid,
      name,
      namespace,
      sandboxes: (p?.sandboxes ?? []).map((s) => ({
        id: s.id,
        state: s.state,
        createdAt: s.createdAt,
        attempt: 0,
        ips: this.ips.get(uid) ?? [],
        hostNetwork: false,
      })),
      containers: (p?.containers ?? []).map((c) => ({
        ...c,
        image: "busybox",
        imageRef: "sha256:abc",
        restartCount: 0,
        hash: "h",
      })),
      ips: this.ips.get(uid) ?? [],
      timestamp: this.clock.now() + 12345, // deliberately off: the PLEG stamps its own time
    };
    return Promise.resolve(status);
  }

  syncPod(): Promise<{ errors: [] }> {
    return Promise.reject(new Error("not used by the PLEG"));
  }
  killPod(): Promise<void> {
    return Promise.reject(new Error("not used by the PLEG"));
  }
  releasePod(): Promise<void> {
    return Promise.resolve();
  }
  removePod(): Promise<void> {
    return Promise.reject(new Error("not used by the PLEG"));
  }
  forgetPod(): void {}
}
