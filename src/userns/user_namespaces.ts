/**
 * User namespaces for pods with `spec.hostUsers: false` (upstream pkg/kubelet/userns): each
 * such pod gets its own range of `idsPerPod` host IDs, mapped to 0..idsPerPod-1 inside, taken
 * from the range this node may use (`kubeletIdRange`). Every other pod runs in the host's user
 * namespace. A pod whose runtime handler cannot create user namespaces is refused with
 * upstream's message, never run in the host's namespace instead.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { UserNamespace } from "../cri/types.ts";
import type { Logger } from "../util/log.ts";
import type { IdRange } from "./_kubelet_range.ts";
import type { PodAllocations } from "./_allocations.ts";
import {
  DEFAULT_IDS_PER_POD,
  MAPPINGS_FILE,
  UsernsError,
  type UsernsFs,
  UsernsUnsupportedError,
} from "./types.ts";

export interface UserNamespacesDeps {
  fs: UsernsFs;
  /** `<root-dir>/pods/<uid>`, where the pod's `userns` file lives. */
  podDir(uid: string): string;
  /**
   * Upstream HandlerSupportsUserNamespaces: whether the runtime handler ("" is the default)
   * serves user namespaces; "unknown" when the runtime lists handlers and not this one.
   */
  handlerSupport(handler: string): Promise<boolean | "unknown">;
  logger: Logger;
  /** Where the search for a free range starts, in [0, 1); default Math.random. */
  random?: () => number;
}

export interface UserNamespacesConfig {
  /** The host IDs pods may get (from `kubeletIdRange`). */
  range: IdRange;
  /** userNamespaces.idsPerPod; default 65536. */
  idsPerPod?: number;
  /** maxPods: the range must hold one slot per pod. */
  maxPods: number;
}

const NODE: UserNamespace = { mode: "NODE" };
const ID_SPACE = 2 ** 32;

export class UserNamespaces {
  readonly #deps: UserNamespacesDeps;
  readonly #slots: { offset: number; slots: number; idsPerPod: number };
  #allocations?: Promise<PodAllocations>;
  /** Serialises every allocation and release (upstream's lock). */
  #tail: Promise<unknown> = Promise.resolve();

  /**
   * Checks the range as upstream MakeUserNsManager does (its messages) and throws UsernsError
   * when pods could not all get one; nothing is read from disk until a pod asks.
   */
  constructor(deps: UserNamespacesDeps, cfg: UserNamespacesConfig) {
    this.#deps = deps;
    const per = cfg.idsPerPod ?? DEFAULT_IDS_PER_POD;
    const { firstId, length } = cfg.range;
    if (per % DEFAULT_IDS_PER_POD !== 0) {
      throw new UsernsError(
        `kubelet user namespace length ${per} is not a multiple of ${DEFAULT_IDS_PER_POD}`,
      );
    }
    if (firstId % per !== 0) {
      throw new UsernsError(`kubelet user assigned ID ${firstId} is not a multiple of ${per}`);
    }
    if (firstId < per) {
      // Mapping host ID 0 into a pod would undo the point of the namespace.
      throw new UsernsError(
        `kubelet user assigned ID ${firstId} must be greater or equal to ${per}`,
      );
    }
    if (length % per !== 0) {
      throw new UsernsError(
        `kubelet user assigned IDs length ${length} is not a multiple of ${per}`,
      );
    }
    // The kernel refuses a mapping that reaches 2^32 (4294967295 is the invalid ID). Upstream's
    // default range ends there, so its last range would fail every sandbox of the pod that
    // drew it, for good (the range is persisted): it is never handed out here.
    const slots = Math.floor(Math.min(length, ID_SPACE - 1 - firstId) / per);
    if (slots < cfg.maxPods) {
      throw new UsernsError(
        `kubelet user assigned IDs are not enough to support ${cfg.maxPods} pods`,
      );
    }
    this.#slots = { offset: firstId / per, slots, idsPerPod: per };
  }

  /**
   * The pod's CRI `userns_options` (upstream GetOrCreateUserNamespaceMappings): NODE unless
   * `hostUsers` is false; then POD with the pod's range, allocated and persisted on first use.
   * Throws UsernsUnsupportedError when the handler cannot create user namespaces, UsernsError
   * when no range can be had. Safe to call concurrently; calls for one pod agree.
   */
  async namespaceFor(pod: V1Pod, opts: { handler?: string } = {}): Promise<UserNamespace> {
    if (pod.spec?.hostUsers !== false) return NODE;
    const handler = opts.handler ?? "";
    const support = await this.#deps.handlerSupport(handler);
    if (support !== true) {
      let msg = handler === ""
        ? "can't set `spec.hostUsers: false`, runtime does not support user namespaces"
        : `can't set \`spec.hostUsers: false\`, RuntimeClass handler ${
          JSON.stringify(handler)
        } does not support user namespaces`;
      if (support === "unknown") msg += `: the handler ${JSON.stringify(handler)} is not known`;
      throw new UsernsUnsupportedError(msg);
    }
    const uid = pod.metadata?.uid ?? "";
    if (uid === "") throw new UsernsError("Cannot allocate a user namespace: the pod has no UID");
    const hostId = await this.#serial(async () => (await this.#loaded()).getOrCreate(uid));
    const ids = [{ hostId, containerId: 0, length: this.#slots.idsPerPod }];
    return { mode: "POD", uids: ids, gids: ids };
  }

  /** Frees the pod's range and removes its file (the pod was terminated). Idempotent. */
  release(uid: string): Promise<void> {
    return this.#serial(async () => {
      if (this.#allocations) return (await this.#allocations).release(uid);
      // Nothing loaded: no range is held in memory, only the file (if any) must go.
      await this.#deps.fs.remove(`${this.#deps.podDir(uid)}/${MAPPINGS_FILE}`);
    });
  }

  /** The allocations, read from the pod directories on first use; a failed read is retried. */
  #loaded(): Promise<PodAllocations> {
    if (this.#allocations) return this.#allocations;
    const loading = import("./_allocations.ts").then(async ({ PodAllocations }) => {
      const a = new PodAllocations(this.#deps, this.#slots);
      await a.load();
      return a;
    });
    this.#allocations = loading;
    loading.catch((err) => {
      this.#deps.logger.error("Cannot read the pods' user namespace allocations", { err });
      if (this.#allocations === loading) this.#allocations = undefined;
    });
    return loading;
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(fn, fn);
    this.#tail = run.catch(() => undefined);
    return run;
  }
}
