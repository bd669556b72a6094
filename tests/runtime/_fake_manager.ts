/** A runtime manager over the fake CRI, with the deps every runtime test shares filled in. */
import {
  createRuntimeManager,
  type RuntimeManager,
  type RuntimeManagerDeps,
} from "../../src/runtime/mod.ts";
import type { VolumeManager } from "../../src/volumes/mod.ts";
import type { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import type { FakeRuntime } from "../support/fake_cri.ts";

/** Volumes that set up nothing and tear down nothing. */
export const noVolumes = {
  setUpPod: () => Promise.resolve(new Map()),
  tearDownPod: () => Promise.resolve(),
} as unknown as VolumeManager;

export function fakeRuntimeManager(
  base: { cri: FakeRuntime; clock: FakeClock; logsDir: string; hostDNSServers?: string[] },
  deps: Partial<RuntimeManagerDeps> = {},
): RuntimeManager {
  return createRuntimeManager({
    runtime: base.cri,
    image: base.cri,
    volumes: noVolumes,
    clock: base.clock,
    logger: nullLogger,
    nodeName: "node1",
    podLogsDir: base.logsDir,
    sandboxOptions: {
      podLogsDir: base.logsDir,
      clusterDNS: [],
      clusterDomain: "cluster.local",
      hostDNS: { servers: base.hostDNSServers ?? [], searches: [], options: [] },
    },
    ...deps,
  });
}
