/**
 * The kubelet core wired to the real runtime manager and PLEG over the in-memory CRI, driven by
 * a fake clock, as the core's tests start it: a source the test feeds by hand, no volumes.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { Kubelet, type KubeletDeps } from "../../src/kubelet/mod.ts";
import { createPleg, createPodStatusCache } from "../../src/pleg/mod.ts";
import { createRuntimeManager } from "../../src/runtime/mod.ts";
import type { PodSource, PodSourceUpdate } from "../../src/sources/types.ts";
import type { VolumeManager } from "../../src/volumes/mod.ts";
import type { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import type { FakeRuntime } from "../support/fake_cri.ts";

/** A file source whose pod list the test sets with `emit`. */
export class ManualSource implements PodSource {
  readonly name = "file" as const;
  #emit?: (u: PodSourceUpdate) => void;
  run(onUpdate: (u: PodSourceUpdate) => void, opts: { signal: AbortSignal }): Promise<void> {
    this.#emit = onUpdate;
    return new Promise((resolve) => opts.signal.addEventListener("abort", () => resolve()));
  }
  emit(pods: V1Pod[]) {
    this.#emit!({ source: "file", pods, problems: [] });
  }
}

const volumes: VolumeManager = {
  setUpPod: () => Promise.resolve(new Map()),
  tearDownPod: () => Promise.resolve(),
};

export interface CoreOptions {
  clock: FakeClock;
  /** The pod log directory (and the sandboxes'). */
  logsDir: string;
  nodeName: string;
  /** Over the defaults; `sources` defaults to the returned ManualSource, `logger` to none. */
  deps?: Partial<KubeletDeps>;
}

/** Starts an agent's core over `cri`; a new call is an agent restart (fresh in-memory state). */
export function startKubeletCore(cri: FakeRuntime, o: CoreOptions) {
  const { clock, logsDir } = o;
  const runtime = createRuntimeManager({
    runtime: cri,
    image: cri,
    volumes,
    clock,
    logger: nullLogger,
    nodeName: o.nodeName,
    podLogsDir: logsDir,
    sandboxOptions: {
      podLogsDir: logsDir,
      clusterDNS: [],
      clusterDomain: "cluster.local",
      hostDNS: { servers: [], searches: [], options: [] },
    },
  });
  const cache = createPodStatusCache({ clock });
  const source = new ManualSource();
  const { sources, logger, ...deps } = o.deps ?? {};
  const kubelet = new Kubelet({
    sources: sources ?? [source],
    runtime,
    pleg: createPleg({ runtime, cache, clock, logger: nullLogger }),
    cache,
    clock,
    logger: logger ?? nullLogger,
    syncFrequencyMs: 60_000,
    checkRuntime: async () => {
      await cri.status();
    },
    ...deps,
  });
  const ac = new AbortController();
  const done = kubelet.run(ac.signal);
  return {
    kubelet,
    source,
    async stop() {
      ac.abort();
      await done;
    },
  };
}

/** Lets time pass in small steps, yielding to real I/O (log dirs) in between. */
export async function pass(clock: FakeClock, ms: number) {
  for (let t = 0; t < ms; t += 250) {
    await clock.advance(250);
    await new Promise((r) => setTimeout(r, 0));
  }
}
