/**
 * Which pod holds which ID range (upstream UsernsManager's bitmap and usedBy map), persisted in
 * each pod's directory as upstream's `userns` file so that a restarted agent gives every pod
 * the range it had: its running containers' files on disk are owned by those host IDs.
 * Loaded only when a pod first asks for a user namespace; not safe for concurrent calls (the
 * owner serialises them).
 */
import type { Logger } from "../util/log.ts";
import { errorMessage } from "../util/log.ts";
import type { PersistedUserNamespace, UsernsFs } from "./types.ts";
import { MAPPINGS_FILE, UsernsError } from "./types.ts";

export interface AllocationsDeps {
  fs: UsernsFs;
  podDir(uid: string): string;
  logger: Logger;
  /** A number in [0, 1) picking where the search for a free slot starts; default Math.random. */
  random?: () => number;
}

/** The ranges: `slots` ranges of `idsPerPod` IDs, the first at host ID `offset * idsPerPod`. */
export interface Slots {
  offset: number;
  slots: number;
  idsPerPod: number;
}

export class PodAllocations {
  readonly #deps: AllocationsDeps;
  readonly #s: Slots;
  /** Pod UID → first host ID of its range. */
  readonly #byPod = new Map<string, number>();
  /** Slot indexes in use. */
  readonly #used = new Set<number>();

  constructor(deps: AllocationsDeps, slots: Slots) {
    this.#deps = deps;
    this.#s = slots;
  }

  /**
   * Records the ranges persisted in every pod directory. Throws UsernsError naming the pod for a
   * file it cannot use: handing out a range without knowing which are taken could give two
   * pods the same host IDs.
   */
  async load(): Promise<void> {
    for (const uid of await this.#deps.fs.listPodDirs()) {
      const text = await this.#deps.fs.readFile(this.#file(uid));
      if (text === undefined || text === "") continue;
      try {
        this.#record(uid, parseMappings(text));
      } catch (err) {
        throw new UsernsError(
          `record pod mappings for existing pod "${uid}": ${errorMessage(err)}`,
          { cause: err },
        );
      }
    }
    this.#deps.logger.debug(4, "User namespace allocations loaded", { pods: this.#byPod.size });
  }

  /** The pod's first host ID: the one it holds, the one its file names, or a new one. */
  async getOrCreate(uid: string): Promise<number> {
    const held = this.#byPod.get(uid);
    if (held !== undefined) return held;
    const text = await this.#deps.fs.readFile(this.#file(uid));
    if (text) {
      try {
        return this.#record(uid, parseMappings(text));
      } catch (err) {
        throw new UsernsError(`user namespace: ${errorMessage(err)}`, { cause: err });
      }
    }
    const first = this.#allocate(uid);
    const ids = { containerId: 0, hostId: first, length: this.#s.idsPerPod };
    const persisted: PersistedUserNamespace = { uidMappings: [ids], gidMappings: [ids] };
    try {
      await this.#deps.fs.ensureDir(this.#deps.podDir(uid));
      await this.#deps.fs.writeFileAtomic(this.#file(uid), JSON.stringify(persisted));
    } catch (err) {
      this.#forget(uid);
      throw new UsernsError(`create user namespace: ${errorMessage(err)}`, { cause: err });
    }
    this.#deps.logger.debug(5, "New pod user namespace allocation", { uid, hostId: first });
    return first;
  }

  /** Frees the pod's range and removes its file. Idempotent. */
  async release(uid: string): Promise<void> {
    if (this.#forget(uid)) {
      this.#deps.logger.debug(5, "Releasing pod user namespace allocation", { uid });
    }
    await this.#deps.fs.remove(this.#file(uid));
  }

  #file(uid: string): string {
    return `${this.#deps.podDir(uid)}/${MAPPINGS_FILE}`;
  }

  /** Upstream's random-scan strategy: a random start, then the first free slot after it. */
  #allocate(uid: string): number {
    const { slots, offset, idsPerPod } = this.#s;
    const start = Math.floor((this.#deps.random ?? Math.random)() * slots) % slots;
    for (let i = 0; i < slots; i++) {
      const at = (start + i) % slots;
      if (this.#used.has(at)) continue;
      this.#used.add(at);
      const first = (at + offset) * idsPerPod;
      this.#byPod.set(uid, first);
      return first;
    }
    throw new UsernsError("could not find an empty slot to allocate a user namespace");
  }

  /** Upstream record(): a persisted range must fit the slots and be free or already this pod's. */
  #record(uid: string, m: PersistedUserNamespace): number {
    const { hostId: from, length } = m.uidMappings[0];
    const { idsPerPod, offset, slots } = this.#s;
    if (length !== idsPerPod) throw new UsernsError(`wrong user namespace length ${length}`);
    if (from % idsPerPod !== 0) {
      throw new UsernsError(`wrong user namespace offset specified ${from}`);
    }
    const prev = this.#byPod.get(uid);
    if (prev !== undefined && prev !== from) {
      throw new UsernsError(`different user namespace range already used by pod "${uid}"`);
    }
    const index = from / idsPerPod - offset;
    if (index < 0 || index >= slots) throw new UsernsError(`id ${from} is out of range`);
    if (prev === undefined && this.#used.has(index)) {
      throw new UsernsError(`range picked for pod "${uid}" already taken`);
    }
    this.#used.add(index);
    this.#byPod.set(uid, from);
    return from;
  }

  #forget(uid: string): boolean {
    const first = this.#byPod.get(uid);
    if (first === undefined) return false;
    this.#byPod.delete(uid);
    this.#used.delete(first / this.#s.idsPerPod - this.#s.offset);
    return true;
  }
}

/** Upstream parseUserNsFileAndRecord's checks: one mapping, the same for users and groups, root mapped. */
export function parseMappings(text: string): PersistedUserNamespace {
  let m: PersistedUserNamespace;
  try {
    m = JSON.parse(text);
  } catch (err) {
    throw new UsernsError(`invalid user namespace mappings file: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  const uids = Array.isArray(m?.uidMappings) ? m.uidMappings : [];
  const gids = Array.isArray(m?.gidMappings) ? m.gidMappings : [];
  if (uids.length !== 1) {
    throw new UsernsError(
      "invalid user namespace configuration: no more than one mapping allowed.",
    );
  }
  if (gids.length !== uids.length) {
    throw new UsernsError(
      "invalid user namespace configuration: GID and UID mappings should be identical.",
    );
  }
  const [u, g] = [uids[0], gids[0]];
  for (const x of [u, g]) {
    for (const k of ["hostId", "containerId", "length"] as const) {
      if (!Number.isInteger(x?.[k]) || x[k] < 0 || x[k] >= 2 ** 32) {
        throw new UsernsError(`invalid user namespace mappings file: bad ${k}`);
      }
    }
  }
  if (u.hostId !== g.hostId || u.containerId !== g.containerId || u.length !== g.length) {
    throw new UsernsError(
      "invalid user namespace configuration: GID and UID mapping should be identical",
    );
  }
  if (u.containerId !== 0) {
    throw new UsernsError("invalid user namespace configuration: UID 0 must be mapped");
  }
  return m;
}
