/**
 * Volume ownership for a pod's `securityContext.fsGroup` (pkg/volume/volume_linux.go
 * SetVolumeOwnership): every file and directory of the volume gets the group, group read (and
 * write, on a writable volume) bits, directories also group search and setgid, so files the
 * containers create later inherit the group. Upstream's in-tree emptyDir, configMap, secret,
 * downwardAPI and projected plugins call it without the pod's fsGroupChangePolicy, so the
 * policy changes nothing for them; hostPath volumes are never changed.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { lchown } from "node:fs/promises";
import type { Logger } from "../util/log.ts";

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const S_ISGID = 0o2000;

export interface VolumeOwnership {
  /** The pod's securityContext.fsGroup. */
  fsGroup: number;
  /**
   * The volume is mounted read-only whatever the pod asks (configMap, secret, downwardAPI,
   * projected: upstream's ReadOnly attribute): group read bits only, no write.
   */
  readOnly: boolean;
}

/** The pod's fsGroup, or undefined when it sets none. */
export function podFsGroup(pod: V1Pod): number | undefined {
  const g = pod.spec?.securityContext?.fsGroup;
  return g === undefined || g === null ? undefined : g;
}

/**
 * Upstream FsUserFrom: the runAsUser every container of the pod runs as (container over pod),
 * or undefined when one has none or two differ. Projected token files are owned by it.
 */
export function podFsUser(pod: V1Pod): number | undefined {
  const spec = pod.spec;
  const containers: V1Container[] = [
    ...(spec?.initContainers ?? []),
    ...(spec?.containers ?? []),
    ...((spec?.ephemeralContainers ?? []) as V1Container[]),
  ];
  let user: number | undefined;
  for (const c of containers) {
    const u = c.securityContext?.runAsUser ?? spec?.securityContext?.runAsUser;
    if (u === undefined || u === null) return undefined;
    if (user !== undefined && user !== u) return undefined;
    user = u;
  }
  return user;
}

/** The permission bits `mode` has after ownership is applied to a file or directory. */
export function ownedMode(mode: number, opts: { readOnly: boolean; dir: boolean }): number {
  let mask = opts.readOnly ? RO_MASK : RW_MASK;
  if (opts.dir) mask |= EXEC_MASK | S_ISGID;
  return (mode & 0o7777) | mask;
}

/**
 * Applies `ownership` to `dir` and everything below it, deepest first, never following a
 * symlink (a link's own group changes; its mode, which chmod would apply to its target, does
 * not). As upstream, a failed chown or chmod is logged and the walk goes on; a directory that
 * cannot be read or an entry that cannot be stat'ed ends it with that error. Not abortable:
 * volumes it runs on are the kubelet's own small ones.
 */
export async function setVolumeOwnership(
  dir: string,
  ownership: VolumeOwnership,
  opts: { logger: Logger },
): Promise<void> {
  const change = async (path: string, info: Deno.FileInfo) => {
    try {
      await lchown(path, -1, ownership.fsGroup);
    } catch (err) {
      opts.logger.warn("Cannot change the group of a volume file", { path, err });
    }
    if (info.isSymlink) return;
    const mode = ownedMode(info.mode ?? 0, { readOnly: ownership.readOnly, dir: info.isDirectory });
    try {
      await Deno.chmod(path, mode);
    } catch (err) {
      opts.logger.warn("Cannot change the mode of a volume file", { path, err });
    }
  };
  const walk = async (path: string, info: Deno.FileInfo): Promise<void> => {
    if (info.isDirectory) {
      for await (const entry of Deno.readDir(path)) {
        const child = `${path}/${entry.name}`;
        await walk(child, await Deno.lstat(child));
      }
    }
    await change(path, info);
  };
  await walk(dir, await Deno.lstat(dir));
}
