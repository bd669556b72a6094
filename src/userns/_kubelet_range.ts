/**
 * The host IDs this node may hand out to pods (upstream getKubeletMappings): the subordinate
 * range of the user `kubelet` when that user exists, else every ID from `idsPerPod` up (IDs below
 * stay unmapped: a pod's range never holds the host's root or system users).
 */
import { UsernsError } from "./types.ts";

/** A range of host IDs, the same for users and groups. */
export interface IdRange {
  firstId: number;
  length: number;
  /** Where it came from, for the start-up log. */
  source: "default" | "subid";
}

/** Reads a host file; undefined when it does not exist. */
export type ReadHostFile = (path: string) => Promise<string | undefined>;

/** The user whose subordinate IDs the pods get, as upstream names it. */
export const KUBELET_USER = "kubelet";
const ID_SPACE = 2 ** 32;

/**
 * Upstream looks the user up (NSS) and asks `getsubids` for its ranges; this reads
 * /etc/passwd, /etc/subuid and /etc/subgid, which is what both consult on a host without
 * directory services. Exactly one range, the same for users and groups, is accepted, as
 * upstream; the range's own checks (alignment, size) are the manager's.
 */
export async function kubeletIdRange(
  read: ReadHostFile,
  opts: { idsPerPod: number; etc?: string },
): Promise<IdRange> {
  const etc = opts.etc ?? "/etc";
  const uid = passwdUid(await read(`${etc}/passwd`) ?? "", KUBELET_USER);
  if (uid === undefined) {
    return { firstId: opts.idsPerPod, length: ID_SPACE - opts.idsPerPod, source: "default" };
  }
  const uids = subidRanges(await read(`${etc}/subuid`) ?? "", [KUBELET_USER, uid]);
  const gids = subidRanges(await read(`${etc}/subgid`) ?? "", [KUBELET_USER, uid]);
  for (const [kind, ranges, file] of [["uids", uids, "subuid"], ["gids", gids, "subgid"]]) {
    if (ranges.length === 0) {
      throw new UsernsError(
        `error retrieving additional ${kind} for user "${KUBELET_USER}": ` +
          `no range in ${etc}/${file}`,
      );
    }
    if (ranges.length > 1) {
      throw new UsernsError(
        `error parsing the ranges of user "${KUBELET_USER}" in ${etc}/${file}: ` +
          `it must contain only one (found ${ranges.length})`,
      );
    }
  }
  if (uids[0].start !== gids[0].start || uids[0].count !== gids[0].count) {
    throw new UsernsError(`mismatched subuids and subgids for user "${KUBELET_USER}"`);
  }
  return { firstId: uids[0].start, length: uids[0].count, source: "subid" };
}

/** The user's uid from passwd(5) text, as a string; undefined when the user is not listed. */
function passwdUid(text: string, name: string): string | undefined {
  for (const line of text.split("\n")) {
    const f = line.split(":");
    if (f[0] === name && f.length >= 3) return f[2];
  }
  return undefined;
}

/** subuid(5) ranges whose first field is the login name or the numeric uid. */
function subidRanges(text: string, owners: string[]): { start: number; count: number }[] {
  const out: { start: number; count: number }[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const f = line.split(":");
    if (f.length !== 3 || !owners.includes(f[0])) continue;
    const start = toUint32(f[1]);
    const count = toUint32(f[2]);
    if (start === undefined || count === undefined) {
      throw new UsernsError(`invalid line ${JSON.stringify(line)}`);
    }
    out.push({ start, count });
  }
  return out;
}

function toUint32(s: string): number | undefined {
  if (!/^\d+$/.test(s)) return undefined;
  const n = Number(s);
  return n < ID_SPACE ? n : undefined;
}
