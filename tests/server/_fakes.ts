import type { V1Pod } from "@kubernetes/client-node";
import type { NodeApiDeps } from "../../src/server/mod.ts";
import type { RunningPod } from "../../src/runtime/types.ts";
import { createLogger } from "../../src/util/log.ts";

/** Fake node API deps; `lines` collects what the handler logged. */
export function fakeDeps(overrides: Partial<NodeApiDeps> = {}): NodeApiDeps & { lines: string[] } {
  const lines: string[] = [];
  return {
    nodeName: "node-a",
    pods: () => [],
    runningPods: () => Promise.resolve([]),
    healthChecks: () => [{ name: "syncloop", ok: true }],
    manifestProblems: () => [],
    logger: createLogger({ verbosity: 10, write: (l) => lines.push(l), now: () => 0 }),
    lines,
    ...overrides,
  };
}

export function staticPod(): V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "web-node-a",
      namespace: "default",
      uid: "u-1",
      creationTimestamp: new Date(Date.UTC(2026, 10, 22, 2, 13, 24, 789)),
      annotations: { "kubernetes.io/config.source": "file" },
    },
    spec: { containers: [{ name: "web", image: "busybox:latest" }] },
    status: {
      phase: "Running",
      startTime: new Date(Date.UTC(2026, 10, 22, 2, 13, 25)),
      conditions: [{
        type: "Ready",
        status: "True",
        lastTransitionTime: new Date(Date.UTC(2026, 10, 22, 2, 13, 26, 1)),
      }],
      containerStatuses: [{
        name: "web",
        image: "busybox:latest",
        imageID: "sha256:abc",
        ready: true,
        restartCount: 0,
        state: { running: { startedAt: new Date(Date.UTC(2026, 10, 22, 2, 13, 26)) } },
      }],
    },
  };
}

export function runningPod(): RunningPod {
  return {
    uid: "u-1",
    name: "web-node-a",
    namespace: "default",
    sandboxes: [{ id: "s1", state: "ready", createdAt: 1 }],
    containers: [
      { id: "c2", name: "web", sandboxId: "s1", state: "running", createdAt: 3 },
      { id: "c1", name: "init", sandboxId: "s1", state: "exited", createdAt: 2 },
    ],
  };
}
