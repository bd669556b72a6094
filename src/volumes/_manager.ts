/**
 * The volume manager: sets up a pod's volumes before its containers start and on every sync —
 * emptyDir and hostPath itself, the kinds whose files the kubelet writes (configMap, secret,
 * downwardAPI, projected) through the plugins it is given — binds their subPaths for containers,
 * and removes the pod's directory after it is gone. Claims (persistentVolumeClaim, generic
 * ephemeral) are resolved to their PersistentVolumes once per pod and those mounted (hostPath,
 * local; CSI through its plugin). Kinds without a plugin (configMap, secret, projected and
 * claims need the API server; the rest are not supported) are refused by name.
 */
import type { V1Pod, V1Volume } from "@kubernetes/client-node";
import type { PodClaims } from "../objects/types.ts";
import { type Clock, realClock } from "../util/clock.ts";
import { ConfigError, DenoletError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { writeAtomically } from "./_atomic_writer.ts";
import { EMPTY_DIR_PLUGIN_DIR, type EmptyDirMemoryBounds, setUpEmptyDir } from "./_empty_dir.ts";
import { type FdFs, libcFdFs } from "./_fd_fs.ts";
import { setUpHostPath } from "./_host_path.ts";
import { type Mounter, systemMounter } from "./_mounter.ts";
import { podFsGroup, setVolumeOwnership } from "./_ownership.ts";
import { podDir } from "./_pod_files.ts";
import { claimNameOf, processClaims, type ResolvedClaim } from "./_claims.ts";
import { ClaimUsers } from "./_claim_users.ts";
import {
  type PersistentMount,
  setUpPersistentVolume,
  VolumeOperationError,
} from "./_persistent.ts";
import { bindSubPath, cleanSubPaths } from "./_subpath_mounts.ts";
import type {
  ClaimVolume,
  MountedVolume,
  SubPathMountOptions,
  VolumeManager,
  VolumePlugin,
} from "./_types.ts";

/**
 * A plugin volume's content could not be had or written; the message is upstream's FailedMount
 * text, `MountVolume.SetUp failed for volume "x" : configmap "y" not found`, and the cause the
 * plugin's error (a NotFoundError for a missing object).
 */
export class VolumeSetUpError extends DenoletError {
  constructor(readonly volumeName: string, message: string, options?: ErrorOptions) {
    super(
      `MountVolume.SetUp failed for volume ${JSON.stringify(volumeName)} : ${message}`,
      options,
    );
  }
}

export interface VolumeManagerDeps {
  /** --root-dir, e.g. /var/lib/kubelet. */
  rootDir: string;
  logger: Logger;
  /** Defaults to the system mounter (mount(8)/umount(8)). */
  mounter?: Mounter;
  /** Descriptor-based path walking for subPath mounts; defaults to libc, loaded on first use. */
  fdFs?: FdFs;
  /** Volume kinds whose files the kubelet writes (downwardAPI; the API mode adds the rest). */
  plugins?: VolumePlugin[];
  /** For the names of the timestamped data directories; default the real clock. */
  clock?: Clock;
  /** Node allocatable memory, the most a Memory-medium volume holds; default total memory. */
  nodeAllocatableMemoryBytes?: number;
  /**
   * The pod cgroup's memory limit (src/cm resourceConfigForPod), which also caps Memory-medium
   * volumes; undefined when the pod has none. Without this dep only the node bounds them.
   */
  podMemoryLimitBytes?: (pod: V1Pod) => number | undefined;
  /** PersistentVolumeClaims and PersistentVolumes (the API mode's object managers). */
  claims?: PodClaims;
  /** The node's labels for PersistentVolume node affinity; default none. */
  nodeLabels?: () => Record<string, string>;
  /** CSI volumes of claims (src/csi), loaded when a pod first has one. */
  csi?: (pod: V1Pod, resolved: ResolvedClaim, signal?: AbortSignal) => Promise<PersistentMount>;
  /** Inline ephemeral CSI volumes (`volumes[].csi`): the published path. */
  csiInline?: (pod: V1Pod, volume: V1Volume, signal?: AbortSignal) => Promise<string>;
  /** Unpublishes the pod's CSI volumes before its directory goes (throws to be retried). */
  csiTearDown?: (uid: string, signal?: AbortSignal) => Promise<void>;
}

/** Kinds a plugin serves in the API-server mode; standalone, their refusal says why. */
const API_KINDS = new Set([
  "csi",
  "configMap",
  "secret",
  "projected",
  "persistentVolumeClaim",
  "ephemeral",
]);

/** The volume source key of a V1Volume ("emptyDir", "secret", ...), or undefined if none. */
function volumeKind(v: V1Volume): string | undefined {
  const fields = v as unknown as Record<string, unknown>;
  return Object.keys(fields).find((k) =>
    k !== "name" && fields[k] !== undefined && fields[k] !== null
  );
}

export function createVolumeManager(deps: VolumeManagerDeps): VolumeManager {
  const mounter = deps.mounter ?? systemMounter();
  const fs = deps.fdFs ?? libcFdFs();
  const volumesDir = (uid: string) => `${podDir(deps.rootDir, uid)}/volumes`;
  const plugins = new Map((deps.plugins ?? []).map((p) => [p.kind as string, p]));
  const clock = deps.clock ?? realClock;
  // A thunk: the pod's limit parses every container's quantities, which only the first mount
  // of a memory-backed volume needs, not each sync of each volume.
  /** Per pod UID: its claims as resolved once, the volumes set up at least once. */
  const pods = new Map<
    string,
    { claims: Map<string, ResolvedClaim>; setUp: Set<string>; mounted: Map<string, ClaimVolume> }
  >();
  /** Per PersistentVolume, the pods it is set up for (ReadWriteOncePod is for one of them). */
  const pvUsers = new ClaimUsers(deps);
  const podState = (uid: string) => {
    let state = pods.get(uid);
    if (!state) {
      pods.set(uid, state = { claims: new Map(), setUp: new Set(), mounted: new Map() });
    }
    return state;
  };
  const memoryBounds = (pod: V1Pod) => (): EmptyDirMemoryBounds => ({
    nodeAllocatableBytes: deps.nodeAllocatableMemoryBytes,
    podLimitBytes: deps.podMemoryLimitBytes?.(pod),
  });

  /**
   * A plugin volume: its directory (a tmpfs for medium Memory, made as an emptyDir is), then
   * its files, rewritten only when they changed. Upstream mounts these read-only. The writer
   * gives the pod's fsGroup to each new version, the volume's root included.
   */
  async function setUpPluginVolume(
    plugin: VolumePlugin,
    ctx: { pod: V1Pod; volume: V1Volume; uid: string; log: Logger; signal?: AbortSignal },
  ): Promise<MountedVolume> {
    const { pod, volume, uid, log, signal } = ctx;
    const dir = `${volumesDir(uid)}/${plugin.dirName}/${volume.name}`;
    let payload;
    try {
      payload = await plugin.payload(pod, volume, { signal });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw new VolumeSetUpError(volume.name, errorMessage(err), { cause: err });
    }
    await setUpEmptyDir(volume.name, dir, { medium: plugin.medium }, {
      mounter,
      memory: memoryBounds(pod),
      signal,
    });
    let written;
    try {
      written = await writeAtomically(dir, payload, {
        now: clock.now(),
        fsGroup: podFsGroup(pod),
        logger: log,
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw new VolumeSetUpError(volume.name, errorMessage(err), { cause: err });
    }
    if (written) {
      log.debug(3, "Volume content written", { volume: volume.name, files: payload.size });
    }
    return {
      hostPath: dir,
      readOnly: true,
      kind: plugin.kind,
      medium: plugin.medium,
      bindSubPath: subPathBinder({ uid, name: volume.name, hostPath: dir }, log),
    };
  }

  /** Upstream ignores an emptyDir's ownership failure (the pod still runs); it is logged. */
  async function ownEmptyDir(dir: string, fsGroup: number, log: Logger): Promise<void> {
    try {
      await setVolumeOwnership(dir, { fsGroup, readOnly: false }, { logger: log });
    } catch (err) {
      log.warn("Cannot set the emptyDir's ownership", { dir, fsGroup, err });
    }
  }

  /** MountedVolume.bindSubPath for one volume of one pod. */
  function subPathBinder(
    volume: { uid: string; name: string; hostPath: string },
    log: Logger,
  ): MountedVolume["bindSubPath"] {
    return async (subPath: string, opts: SubPathMountOptions) => {
      try {
        const target = await bindSubPath(volume.hostPath, subPath, {
          podDir: podDir(deps.rootDir, volume.uid),
          volumeName: volume.name,
          containerName: opts.containerName,
          mountIndex: opts.mountIndex,
          fs,
          mounter,
          signal: opts.signal,
        });
        log.debug(4, "SubPath bound", { volume: volume.name, subPath, target });
        return target;
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason;
        log.warn("Cannot prepare subPath", {
          volume: volume.name,
          container: opts.containerName,
          subPath,
          err,
        });
        // As upstream: node paths stay out of the pod's status; the line above has them.
        throw new ConfigError(
          opts.field,
          `failed to prepare subPath for volumeMount ${JSON.stringify(volume.name)} of container ${
            JSON.stringify(opts.containerName)
          }`,
        );
      }
    };
  }

  async function setUpPod(
    pod: V1Pod,
    opts: { signal?: AbortSignal } = {},
  ): Promise<Map<string, MountedVolume>> {
    const uid = pod.metadata?.uid ?? "";
    const log = deps.logger.child({ pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, uid });
    const out = new Map<string, MountedVolume>();
    const state = podState(uid);
    const hasClaims = (pod.spec?.volumes ?? []).some((v) => claimNameOf(pod, v) !== undefined);
    const claims = hasClaims && deps.claims
      ? await processClaims(pod, {
        claims: deps.claims,
        known: state.claims,
        setUp: state.setUp,
        signal: opts.signal,
      })
      : new Map<string, ResolvedClaim>();
    for (const v of pod.spec?.volumes ?? []) {
      opts.signal?.throwIfAborted();
      const field = `volume ${JSON.stringify(v.name)}`;
      const resolved = claims.get(v.name);
      if (resolved) {
        const pvName = resolved.volume.metadata?.name ?? "";
        if (onlyReadWriteOncePod(resolved) && (await pvUsers.others(pvName, uid)).length) {
          throw new VolumeOperationError(
            "MountVolume.SetUp failed",
            pvName,
            "volume uses the ReadWriteOncePod access mode and is already in use by another pod",
          );
        }
        const m = await setUpPersistentVolume(resolved, {
          pod,
          volumesDir: volumesDir(uid),
          mounter,
          nodeLabels: () => deps.nodeLabels?.() ?? {},
          csi: deps.csi && ((r, signal) => deps.csi!(pod, r, signal)),
          log,
          signal: opts.signal,
        });
        out.set(v.name, {
          hostPath: m.hostPath,
          readOnly: m.readOnly,
          kind: m.source,
          bindSubPath: subPathBinder({ uid, name: v.name, hostPath: m.hostPath }, log),
        });
        state.setUp.add(v.name);
        state.mounted.set(v.name, {
          name: v.name,
          claimName: resolved.claim.metadata?.name ?? "",
          namespace: resolved.claim.metadata?.namespace ?? "",
          path: m.hostPath,
          source: m.source,
          stats: m.stats,
        });
        await pvUsers.add(pvName, uid);
      } else if (v.csi && deps.csiInline) {
        const path = await deps.csiInline(pod, v, opts.signal);
        out.set(v.name, {
          hostPath: path,
          readOnly: v.csi.readOnly === true,
          kind: "csi",
          bindSubPath: subPathBinder({ uid, name: v.name, hostPath: path }, log),
        });
      } else if (claimNameOf(pod, v) !== undefined && deps.claims) {
        // Not mounted by any container: upstream skips it.
        continue;
      } else if (v.emptyDir) {
        const dir = `${volumesDir(uid)}/${EMPTY_DIR_PLUGIN_DIR}/${v.name}`;
        const { medium, fresh } = await setUpEmptyDir(v.name, dir, v.emptyDir, {
          mounter,
          memory: memoryBounds(pod),
          pod,
          signal: opts.signal,
        });
        const fsGroup = podFsGroup(pod);
        // Only on the set-up that made it, as upstream: later the pod owns what is inside.
        if (fresh && fsGroup !== undefined) await ownEmptyDir(dir, fsGroup, log);
        out.set(v.name, {
          hostPath: dir,
          readOnly: false,
          kind: "emptyDir",
          medium,
          bindSubPath: subPathBinder({ uid, name: v.name, hostPath: dir }, log),
        });
      } else if (v.hostPath) {
        const path = await setUpHostPath(v.name, v.hostPath);
        out.set(v.name, {
          hostPath: path,
          readOnly: false,
          kind: "hostPath",
          bindSubPath: subPathBinder({ uid, name: v.name, hostPath: path }, log),
        });
      } else {
        const kind = volumeKind(v) ?? "unknown";
        const plugin = plugins.get(kind);
        if (!plugin) {
          const why = API_KINDS.has(kind) ? " (no API server is configured)" : "";
          throw new ConfigError(field, `${kind} volumes are not supported${why}`);
        }
        out.set(
          v.name,
          await setUpPluginVolume(plugin, { pod, volume: v, uid, log, signal: opts.signal }),
        );
      }
      state.setUp.add(v.name);
      log.debug(4, "Volume set up", { volume: v.name, path: out.get(v.name)?.hostPath });
    }
    return out;
  }

  async function tearDownPod(uid: string, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const dir = podDir(deps.rootDir, uid);
    pods.delete(uid);
    await pvUsers.remove(uid);
    // SubPath bind mounts go first, as upstream unmounts them before the volume itself; the
    // removal below must never reach through one into volume or host contents.
    await cleanSubPaths(dir, { mounter, signal: opts.signal });
    // CSI volumes are the driver's to unmount (NodeUnpublish, NodeUnstage).
    await deps.csiTearDown?.(uid, opts.signal);
    // Then the volumes' own mounts (the tmpfs of emptyDir Memory, secret and projected
    // volumes), deepest first; a mount listed twice is stacked and popped twice.
    const mounts = await mounter.mountPointsUnder(volumesDir(uid));
    for (const m of mounts.sort((x, y) => y.length - x.length)) {
      opts.signal?.throwIfAborted();
      await mounter.unmount(m, { signal: opts.signal });
    }
    opts.signal?.throwIfAborted();
    // Recursive removal would empty anything still mounted below (a leaked bind mount of a
    // hostPath); refuse instead.
    const busy = await mounter.mountPointsUnder(dir);
    if (busy.length) {
      throw new DenoletError(
        `Cannot remove pod directory ${dir}: still mounted: ${busy.join(", ")}`,
      );
    }
    try {
      await Deno.remove(dir, { recursive: true });
      deps.logger.debug(3, "Removed pod directory", { uid, dir });
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) {
        throw new DenoletError(`Cannot remove pod directory ${dir}`, { cause: err });
      }
    }
  }

  return {
    setUpPod,
    tearDownPod,
    claimVolumes: (uid) => [...(pods.get(uid)?.mounted.values() ?? [])],
  };
}

/** Upstream enforces ReadWriteOncePod only when it is the volume's one access mode. */
function onlyReadWriteOncePod(r: ResolvedClaim): boolean {
  const modes = r.volume.spec?.accessModes ?? [];
  return modes.length === 1 && modes[0] === "ReadWriteOncePod";
}
