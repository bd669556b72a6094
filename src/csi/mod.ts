/**
 * CSI on the node (API mode): plugin registration through `<root-dir>/plugins_registry`, the
 * CSINode object, and CSI volumes mounted for pods (a claim's CSI PersistentVolume, inline
 * ephemeral volumes) and torn down with them. Imported dynamically, only once a plugin puts a
 * socket in the registration directory or a pod has a CSI volume, so a node without CSI
 * never loads any of it.
 */
import type { FsCapacity } from "../util/statfs.ts";
import type { V1CSIVolumeSource, V1PersistentVolume, V1Pod } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/types.ts";
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import type { Mounter } from "../volumes/_mounter.ts";
import { VolumeOperationError } from "../volumes/_persistent.ts";
import { PluginCsiError } from "./_errors.ts";
import { createCsiMounts } from "./_mount.ts";
import { DriverNotRegisteredError, PluginRegistry } from "./_registry.ts";

export { CSI_PLUGIN_DIR } from "./_mount.ts";

export interface CsiNodeDeps {
  rootDir: string;
  nodeName: string;
  client: ApiClient;
  clock: Clock;
  logger: Logger;
  mounter: Mounter;
  /** A driver registered or went away: pods waiting for one may go on. */
  onChange?: () => void;
}

export interface CsiNode {
  /** Registered driver names. */
  drivers(): string[];
  /** Mounts a claim's CSI volume for the pod; the path to give containers. */
  mountPersistent(
    pod: V1Pod,
    pv: V1PersistentVolume,
    opts: { readOnly: boolean; signal?: AbortSignal },
  ): Promise<string>;
  /** A published claim volume's usage from its driver (NodeGetVolumeStats), if it serves it. */
  volumeStats(
    pv: V1PersistentVolume,
    target: string,
    opts?: { signal?: AbortSignal },
  ): Promise<FsCapacity | undefined>;
  /** Mounts an inline CSI volume for the pod. */
  mountInline(
    pod: V1Pod,
    name: string,
    src: V1CSIVolumeSource,
    opts?: { signal?: AbortSignal },
  ): Promise<string>;
  /** Unpublishes (and unstages) the pod's CSI volumes; throws to be retried later. */
  tearDownPod(uid: string, opts?: { signal?: AbortSignal }): Promise<void>;
  /** Registration until the signal aborts. Never rejects. */
  run(opts: { signal: AbortSignal }): Promise<void>;
}

/** Upstream's event text for a CSI mount failure, on the volume's spec name. */
function asOperationError(err: unknown, specName: string): VolumeOperationError {
  if (err instanceof DriverNotRegisteredError) {
    return new VolumeOperationError(
      "MountVolume.SetUp failed",
      specName,
      `kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: ${err.message}`,
      { cause: err },
    );
  }
  const op = err instanceof PluginCsiError ? err.operation : "MountVolume.SetUp failed";
  return new VolumeOperationError(op, specName, errorMessage(err), { cause: err });
}

export function createCsiNode(deps: CsiNodeDeps): CsiNode {
  const registry = new PluginRegistry({
    dir: `${deps.rootDir}/plugins_registry`,
    nodeName: deps.nodeName,
    client: deps.client,
    clock: deps.clock,
    logger: deps.logger,
    onChange: deps.onChange,
  });
  const mounts = createCsiMounts({
    rootDir: deps.rootDir,
    nodeName: deps.nodeName,
    client: deps.client,
    mounter: deps.mounter,
    logger: deps.logger,
    clock: deps.clock,
    driver: (name) => registry.driver(name),
  });
  return {
    drivers: () => registry.drivers(),
    async mountPersistent(pod, pv, opts) {
      try {
        return await mounts.mountPersistent(pod, pv, opts);
      } catch (err) {
        opts.signal?.throwIfAborted();
        throw asOperationError(err, pv.metadata?.name ?? "");
      }
    },
    async mountInline(pod, name, src, opts = {}) {
      try {
        return await mounts.mountInline(pod, name, src, opts);
      } catch (err) {
        opts.signal?.throwIfAborted();
        throw asOperationError(err, name);
      }
    },
    volumeStats: (pv, target, opts) => mounts.volumeStats(pv, target, opts),
    tearDownPod: (uid, opts) => mounts.tearDownPod(uid, opts),
    run: (opts) => registry.run(opts),
  };
}
