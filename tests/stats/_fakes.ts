/** A minimal CRI for stats tests: only the calls the stats provider makes. */
import type {
  Container,
  ContainerStats,
  FilesystemUsage,
  ImageService,
  PodSandbox,
  PodSandboxStats,
  RuntimeService,
} from "../../src/cri/types.ts";
import { DenoletError } from "../../src/util/errors.ts";

export const NODE = "node-s";

export class StatsCri {
  sandboxes: PodSandbox[] = [];
  containers: Container[] = [];
  /** CRI container stats by container id. */
  stats = new Map<string, ContainerStats>();
  sandboxStatsError: Error | undefined = new DenoletError("cgroupPath is empty");
  sandboxStatsCalls = 0;
  containerStatsCalls = 0;
  /** ListPodSandbox answers once this resolves (to hold a sample in flight). */
  gate: Promise<void> | undefined;
  fsUsage: FilesystemUsage[] = [{
    timestamp: 0,
    fsId: { mountpoint: "/images" },
    usedBytes: { value: 5_000_000 },
    inodesUsed: { value: 300 },
  }];

  get runtime(): RuntimeService {
    // deno-lint-ignore no-this-alias -- the fake's methods read the fields at call time
    const self = this;
    return {
      listPodSandbox: async (_filter?: unknown, opts?: { signal?: AbortSignal }) => {
        await self.gate;
        opts?.signal?.throwIfAborted();
        return self.sandboxes;
      },
      listContainers: () => Promise.resolve(self.containers),
      listContainerStats: () => {
        self.containerStatsCalls++;
        return Promise.resolve([...self.stats.values()]);
      },
      listPodSandboxStats: (): Promise<PodSandboxStats[]> => {
        self.sandboxStatsCalls++;
        return self.sandboxStatsError
          ? Promise.reject(self.sandboxStatsError)
          : Promise.resolve([]);
      },
    } as unknown as RuntimeService;
  }

  get image(): ImageService {
    return { imageFsInfo: () => Promise.resolve(this.fsUsage) } as unknown as ImageService;
  }
}

export function sandbox(id: string, uid: string, name: string, createdAtMs: number): PodSandbox {
  return {
    id,
    metadata: { name, uid, namespace: "default", attempt: 0 },
    state: "SANDBOX_READY",
    createdAt: createdAtMs * 1e6,
    labels: { "io.kubernetes.pod.uid": uid, "io.denolet.node-name": NODE },
    annotations: {},
  };
}

export function container(
  id: string,
  sandboxId: string,
  name: string,
  createdAtMs: number,
): Container {
  return {
    id,
    podSandboxId: sandboxId,
    metadata: { name, attempt: 0 },
    image: { image: "busybox" },
    imageRef: "sha256:1",
    state: "CONTAINER_RUNNING",
    createdAt: createdAtMs * 1e6,
    labels: {},
    annotations: {},
  };
}

export function criStats(
  c: Container,
  cpuNs: number,
  opts: { workingSet?: number; writable?: number } = {},
): ContainerStats {
  return {
    attributes: { id: c.id, metadata: c.metadata, labels: {}, annotations: {} },
    cpu: { timestamp: 0, usageCoreNanoSeconds: { value: cpuNs } },
    memory: opts.workingSet === undefined ? undefined : {
      timestamp: 0,
      usageBytes: { value: opts.workingSet + 1000 },
      workingSetBytes: { value: opts.workingSet },
      availableBytes: { value: 0 },
    },
    writableLayer: {
      timestamp: 0,
      usedBytes: { value: opts.writable ?? 0 },
      inodesUsed: { value: 9 },
    },
  };
}
