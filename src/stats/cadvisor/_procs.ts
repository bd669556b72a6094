/**
 * What cAdvisor's processStatsFromProcs reads from /proc for a cgroup's processes: open file
 * descriptors and how many are sockets, the root process's "Max open files", and the network
 * namespace's counters of a sandbox (or, for the machine, of PID 1).
 */
import { readOptionalSync } from "../_cgroup.ts";
import { type InterfaceCounters, parseMaxOpenFiles, parseNetDevFull } from "./_parse.ts";

/** Open fds of `pids` and how many of them are sockets; a process that is gone counts 0. */
export function countFds(procRoot: string, pids: number[]): { fds: number; sockets: number } {
  let fds = 0;
  let sockets = 0;
  for (const pid of pids) {
    const dir = `${procRoot}/${pid}/fd`;
    let names: string[];
    try {
      names = [...Deno.readDirSync(dir)].map((e) => e.name);
    } catch (err) {
      if (isGone(err)) continue;
      throw err;
    }
    fds += names.length;
    for (const fd of names) {
      try {
        if (Deno.readLinkSync(`${dir}/${fd}`).startsWith("socket")) sockets++;
      } catch (err) {
        // fds close while we look.
        if (!isGone(err)) throw err;
      }
    }
  }
  return { fds, sockets };
}

/** The soft "Max open files" of `pid`; undefined when it is gone. */
export function maxOpenFiles(procRoot: string, pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  return parseMaxOpenFiles(readOptionalSync(`${procRoot}/${pid}/limits`) ?? "");
}

/** The interfaces of `pid`'s network namespace; undefined when it is gone. */
export function netDev(procRoot: string, pid: number | undefined): InterfaceCounters[] | undefined {
  if (pid === undefined) return undefined;
  const text = readOptionalSync(`${procRoot}/${pid}/net/dev`);
  return text === undefined ? undefined : parseNetDevFull(text);
}

function isGone(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied;
}
