/**
 * Mounting a claim's PersistentVolume for a pod, as upstream's operation generator does it
 * (GenerateMountVolumeFunc): the volume's node affinity checked against the node's labels, then
 * the plugin of its source — hostPath (pkg/volume/hostpath: the node path itself) and local
 * (pkg/volume/local: a bind mount at `<pod>/volumes/kubernetes.io~local-volume/<pv>`, read-only
 * for a read-only claim, the pod's fsGroup given on first mount). CSI volumes go to the CSI
 * plugin, loaded only then. Errors are upstream's event text:
 * `MountVolume.NodeAffinity check failed for volume "pv" : no matching NodeSelectorTerms`.
 */
import type { FsCapacity } from "../util/statfs.ts";
import type { V1PersistentVolume, V1Pod } from "@kubernetes/client-node";
import { ConfigError, DenoletError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { nodeSelectorTermsMatch } from "../util/node_selector.ts";
import { setUpHostPath } from "./_host_path.ts";
import type { Mounter } from "./_mounter.ts";
import { podFsGroup, setVolumeOwnership } from "./_ownership.ts";
import type { ResolvedClaim } from "./_claims.ts";

export const LOCAL_VOLUME_PLUGIN_DIR = "kubernetes.io~local-volume";

/**
 * A volume operation failed; the message is upstream's event text, `<operation> for volume
 * "<spec name>" : <why>` (the spec name of a claim's volume is its PersistentVolume's).
 */
export class VolumeOperationError extends DenoletError {
  constructor(
    readonly operation: string,
    readonly volumeName: string,
    why: string,
    options?: ErrorOptions,
  ) {
    super(`${operation} for volume ${JSON.stringify(volumeName)} : ${why}`, options);
  }
}

/** Where a claim's volume is, for the container mounts. */
export interface PersistentMount {
  hostPath: string;
  /** The claim is read-only for this pod: every mount of it is. */
  readOnly: boolean;
  /** The PV's source kind, for logs and stats. */
  source: "hostPath" | "local" | "csi";
  /** A CSI volume's usage from its driver (NodeGetVolumeStats); undefined when it has none. */
  stats?: (opts?: { signal?: AbortSignal }) => Promise<FsCapacity | undefined>;
}

export interface PersistentMountContext {
  pod: V1Pod;
  /** `<pod dir>/volumes`. */
  volumesDir: string;
  mounter: Mounter;
  /** The node's labels as the API server has them; the ones the agent sets when unknown. */
  nodeLabels: () => Record<string, string>;
  /** CSI volumes, loaded on first use; undefined when no CSI support is wired. */
  csi?: (resolved: ResolvedClaim, signal?: AbortSignal) => Promise<PersistentMount>;
  log: Logger;
  signal?: AbortSignal;
}

/** PersistentVolumeSpec fields that are not its source. */
const PV_SPEC_FIELDS = new Set([
  "accessModes",
  "capacity",
  "claimRef",
  "mountOptions",
  "nodeAffinity",
  "persistentVolumeReclaimPolicy",
  "storageClassName",
  "volumeAttributesClassName",
  "volumeMode",
]);

/** Upstream storagehelpers.CheckNodeAffinity, against a node that is its labels only. */
export function checkNodeAffinity(
  pv: V1PersistentVolume,
  labels: Record<string, string>,
): string | undefined {
  const required = pv.spec?.nodeAffinity?.required;
  if (!required) return undefined;
  const node = { metadata: { labels } };
  return nodeSelectorTermsMatch(required.nodeSelectorTerms ?? [], node)
    ? undefined
    : "no matching NodeSelectorTerms";
}

/** Mounts (or finds mounted) the claim's volume for the pod. Idempotent. */
export async function setUpPersistentVolume(
  resolved: ResolvedClaim,
  ctx: PersistentMountContext,
): Promise<PersistentMount> {
  const pv = resolved.volume;
  const pvName = pv.metadata?.name ?? "";
  const why = checkNodeAffinity(pv, ctx.nodeLabels());
  if (why) throw new VolumeOperationError("MountVolume.NodeAffinity check failed", pvName, why);
  const spec = pv.spec ?? {};
  if (spec.hostPath) {
    try {
      const path = await setUpHostPath(pvName, spec.hostPath);
      return { hostPath: path, readOnly: resolved.readOnly, source: "hostPath" };
    } catch (err) {
      const message = err instanceof ConfigError
        ? err.message.slice(err.field.length + 2)
        : errorMessage(err);
      throw new VolumeOperationError("MountVolume.SetUp failed", pvName, message, { cause: err });
    }
  }
  if (spec.local) return await setUpLocal(resolved, ctx);
  if (spec.csi) {
    if (!ctx.csi) {
      throw new VolumeOperationError(
        "MountVolume.FindPluginBySpec failed",
        pvName,
        `no volume plugin matched: CSI driver ${JSON.stringify(spec.csi.driver)} is not registered`,
      );
    }
    return await ctx.csi(resolved, ctx.signal);
  }
  const kind = Object.keys(spec).find((k) => !PV_SPEC_FIELDS.has(k)) ?? "unknown";
  throw new VolumeOperationError(
    "MountVolume.FindPluginBySpec failed",
    pvName,
    `${kind} persistent volumes are not supported on this node`,
  );
}

/** pkg/volume/local SetUpAt: a bind mount of the local path into the pod's directory. */
async function setUpLocal(
  resolved: ResolvedClaim,
  ctx: PersistentMountContext,
): Promise<PersistentMount> {
  const pv = resolved.volume;
  const pvName = pv.metadata?.name ?? "";
  const source = pv.spec?.local?.path ?? "";
  const failed = (why: string, cause?: unknown) =>
    new VolumeOperationError("MountVolume.SetUp failed", pvName, why, { cause });
  if (source === "") throw failed(`LocalVolume volume ${JSON.stringify(pvName)} path is empty`);
  if (!source.startsWith("/") || source.split("/").includes("..")) {
    throw failed(`invalid path: ${source} must be absolute and must not contain '..'`);
  }
  const dir = `${ctx.volumesDir}/${LOCAL_VOLUME_PLUGIN_DIR}/${pvName}`;
  const readOnly = resolved.readOnly;
  if (await ctx.mounter.isMountPoint(dir)) return { hostPath: dir, readOnly, source: "local" };
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(source);
  } catch (err) {
    throw failed(`local volume path ${source} cannot be used: ${errorMessage(err)}`, err);
  }
  if (!info.isDirectory) {
    // Upstream formats and mounts a block device first; this node does not.
    throw failed(
      `local volume path ${source} is not a directory (block devices are not supported)`,
    );
  }
  try {
    await Deno.mkdir(dir, { recursive: true, mode: 0o750 });
    await ctx.mounter.bind(source, dir, { readOnly, signal: ctx.signal });
  } catch (err) {
    ctx.signal?.throwIfAborted();
    // Upstream removes the directory it made for a mount that failed.
    await Deno.remove(dir).catch((e) =>
      ctx.log.debug(4, "Cannot remove the local volume's directory", { dir, err: errorMessage(e) })
    );
    throw failed(errorMessage(err), err);
  }
  ctx.log.info("MountVolume.SetUp succeeded", { volume: pvName, path: dir });
  const fsGroup = podFsGroup(ctx.pod);
  if (fsGroup !== undefined && !readOnly) {
    const policy = ctx.pod.spec?.securityContext?.fsGroupChangePolicy;
    const root = await Deno.stat(dir);
    if (policy !== "OnRootMismatch" || root.gid !== fsGroup) {
      await setVolumeOwnership(dir, { fsGroup, readOnly: false }, { logger: ctx.log });
    }
  }
  return { hostPath: dir, readOnly, source: "local" };
}
