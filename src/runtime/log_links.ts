/**
 * The `/var/log/containers` symlinks log shippers tail (Fluent Bit's and Fluentd's Kubernetes
 * inputs, Promtail, Vector): `<pod>_<namespace>_<container>-<containerId>.log`, pointing at the
 * container's log under the pod log directory (upstream kuberuntime legacy.go). Made when a
 * container starts, removed with the container, and swept when dangling.
 */
import { posix } from "node:path";
import type { Logger } from "../util/log.ts";

/** Upstream's fixed location (kubelet ContainerLogsDir). */
export const CONTAINER_LOGS_DIR = "/var/log/containers";
const SUFFIX = ".log";
/** ext4's longest file name; upstream cuts the name (not the suffix) to fit. */
const MAX_NAME = 255;

export interface LogLinkName {
  podName: string;
  podNamespace: string;
  containerName: string;
  containerId: string;
}

/** `<dir>/<pod>_<ns>_<container>-<id>.log`, cut to 255 characters as upstream does. */
export function logLinkPath(dir: string, n: LogLinkName): string {
  let name = `${n.podName}_${n.podNamespace}_${n.containerName}-${n.containerId}`;
  if (name.length > MAX_NAME - SUFFIX.length) name = name.slice(0, MAX_NAME - SUFFIX.length);
  return posix.join(dir, name + SUFFIX);
}

/** The container id a link names (the part after the last "-"), if it looks like one. */
export function containerIdOfLink(file: string): string | undefined {
  if (!file.endsWith(SUFFIX)) return undefined;
  const id = file.slice(0, -SUFFIX.length).split("-").at(-1) ?? "";
  // Upstream accepts ids as short as 6 characters (a cut name may shorten it).
  return id.length >= 6 ? id : undefined;
}

export interface LogLinks {
  /** Links the started container's log; a failure is logged, never thrown (as upstream). */
  create(n: LogLinkName, target: string): Promise<void>;
  /** Removes the links of these containers; missing links are fine. Never throws. */
  remove(containerIds: readonly string[]): Promise<void>;
  /**
   * Removes links whose log is gone and whose container `isLive` does not vouch for (a running
   * container's log may be missing for a moment during rotation). `isLive` gets the id as the
   * link names it, which a long name may have cut short. Never throws.
   */
  sweep(isLive: (containerId: string) => boolean): Promise<void>;
}

export function createLogLinks(dir: string, logger: Logger): LogLinks {
  const entries = async (): Promise<string[]> => {
    try {
      return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) {
        logger.warn("Cannot list the container log links", { dir, err });
      }
      return [];
    }
  };
  const unlink = async (file: string) => {
    try {
      await Deno.remove(posix.join(dir, file));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) {
        logger.warn("Cannot remove a container log link", { path: posix.join(dir, file), err });
      }
    }
  };
  return {
    async create(n, target) {
      const link = logLinkPath(dir, n);
      try {
        // Only for a log that exists: a dangling link would just wait for the sweep.
        await Deno.lstat(target);
        await Deno.mkdir(dir, { recursive: true, mode: 0o755 });
        await Deno.symlink(target, link);
      } catch (err) {
        if (err instanceof Deno.errors.AlreadyExists) return;
        if (err instanceof Deno.errors.NotFound) return;
        logger.warn("Failed to create legacy symbolic link", { path: link, target, err });
      }
    },
    async remove(containerIds) {
      if (containerIds.length === 0) return;
      const ids = new Set(containerIds);
      for (const file of await entries()) {
        const id = containerIdOfLink(file);
        if (id && [...ids].some((full) => full.startsWith(id))) await unlink(file);
      }
    },
    async sweep(isLive) {
      for (const file of await entries()) {
        const id = containerIdOfLink(file);
        if (!id) continue;
        try {
          await Deno.stat(posix.join(dir, file));
          continue; // its log is there
        } catch (err) {
          if (!(err instanceof Deno.errors.NotFound)) continue;
        }
        if (!isLive(id)) await unlink(file);
      }
    },
  };
}
