/**
 * The Node in the API server (upstream kubelet_node_status.go): registers it (creates it, or
 * adopts one that exists), then every nodeStatusUpdateFrequency compares the server's Node with
 * the computed one and patches `nodes/<name>/status` when something changed or when
 * nodeStatusReportFrequency passed since the last report. Until the server shows the Node
 * Ready, readiness is checked every 100 ms so a Ready node is posted at once (upstream's
 * fastStatusUpdateOnce). An unreachable server is retried with back-off; nothing here blocks or
 * fails the agent.
 *
 * A Node deleted from the API server while the agent runs (an admin cleaning up a node that was
 * offline too long, say) is registered again at the next status update when the agent registers
 * its Node (upstream needs a kubelet restart for that): an edge node coming back keeps its place
 * in the cluster.
 */
import type { V1Node } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/types.ts";
import { isApiStatus } from "../apiclient/types.ts";
import type { EventRecorder } from "../events/types.ts";
import { type Clock, processUptimeMs } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { errorMessage } from "../util/log.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import {
  initialNode,
  readyStatus,
  reconcileExisting,
  statusUpdate,
  withConditions,
} from "./_node_patch.ts";

/** Registration back-off: 100 ms doubling to 7 s (upstream registerWithAPIServer). */
export const REGISTER_BACKOFF_INITIAL_MS = 100;
export const REGISTER_BACKOFF_MAX_MS = 7_000;
/** Attempts per status update (upstream nodeStatusUpdateRetry). */
export const STATUS_UPDATE_RETRIES = 5;
/** How often readiness is checked while the server does not show the Node Ready yet. */
export const FAST_STATUS_PERIOD_MS = 100;
/** How long after the start the fast checks go on (upstream nodeReadyGracePeriod). */
export const FAST_STATUS_WINDOW_MS = 120_000;
/** Upstream's wait.JitterUntil factor for the status loop. */
const JITTER = 0.04;

const STRATEGIC = "application/strategic-merge-patch+json";

/** Event reasons for condition transitions (upstream node status setters). */
const EVENT_REASONS: Record<string, { True: string; False: string }> = {
  Ready: { True: "NodeReady", False: "NodeNotReady" },
  MemoryPressure: { True: "NodeHasInsufficientMemory", False: "NodeHasSufficientMemory" },
  DiskPressure: { True: "NodeHasDiskPressure", False: "NodeHasNoDiskPressure" },
  PIDPressure: { True: "NodeHasInsufficientPID", False: "NodeHasSufficientPID" },
};

export interface NodeRegistrarDeps {
  client: ApiClient;
  nodeName: string;
  /** The Node as the agent sees it now: the node status provider's `node`. */
  node: (opts: { signal?: AbortSignal }) => Promise<V1Node>;
  clock: Clock;
  logger: Logger;
  /** --register-node: create or adopt the Node before posting its status. */
  register: boolean;
  /** nodeStatusUpdateFrequency: how often the status is computed and compared. */
  updateFrequencyMs: number;
  /** nodeStatusReportFrequency: the longest time between two posts of an unchanged status. */
  reportFrequencyMs: number;
  /** Node events (NodeReady, NodeHasSufficientMemory, ...); none when absent. */
  recorder?: EventRecorder;
  /**
   * --cloud-provider=external: addresses the server's Node already has are the cloud
   * controller's and are not overwritten.
   */
  externalCloudProvider?: boolean;
  /** [0, 1) for the loop's jitter; tests pass `() => 0`. */
  random?: () => number;
  /** A status update failed again: as the lease's (the kubelet closes every connection). */
  onRepeatedHeartbeatFailure?: () => void;
  /** Requests to post the status now (NodeStatusProvider.onUpdateRequest). */
  onUpdateRequest?: (fn: () => void) => () => void;
  /**
   * The Node as a watch last showed it (upstream's node lister): the first try of each status
   * update reads it there instead of GETting the whole Node every period. Cheap, never blocks;
   * undefined until the watch has listed it.
   */
  cachedNode?: () => V1Node | undefined;
}

export interface NodeRegistrar {
  /**
   * Registers the Node (when asked to), then keeps its status current until the signal aborts.
   * Never rejects; failures are logged and retried.
   */
  run(opts: { signal: AbortSignal }): Promise<void>;
  /** Whether the Node was created or adopted (always false with `register: false`). */
  readonly registered: boolean;
}

export function createNodeRegistrar(deps: NodeRegistrarDeps): NodeRegistrar {
  return new Registrar(deps);
}

class Registrar implements NodeRegistrar {
  readonly #deps: NodeRegistrarDeps;
  readonly #log: Logger;
  readonly #failures: RepeatedFailures;
  readonly #path: string;
  #registered = false;
  /** When the status was last posted (0: never, so the first update always posts). */
  #lastReport = 0;
  /** The Node as the server last showed it. */
  #serverNode?: V1Node;
  /** The start-up fast path has not fired yet (it fires once, as upstream's). */
  #fastPending = true;

  constructor(deps: NodeRegistrarDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ node: deps.nodeName });
    this.#failures = new RepeatedFailures(this.#log, { clock: deps.clock, everyMs: 60_000 });
    this.#path = `/api/v1/nodes/${encodeURIComponent(deps.nodeName)}`;
  }

  get registered(): boolean {
    return this.#registered;
  }

  async run({ signal }: { signal: AbortSignal }): Promise<void> {
    const { clock } = this.#deps;
    let fastUntil = clock.monotonic() + FAST_STATUS_WINDOW_MS;
    try {
      if (this.#deps.register) await this.#register(signal);
      for (;;) {
        const gone = await this.#updateStatus(signal);
        if (gone && this.#deps.register) {
          this.#log.warn("The Node is gone from the API server; registering it again");
          this.#registered = false;
          this.#serverNode = undefined;
          this.#fastPending = true;
          fastUntil = clock.monotonic() + FAST_STATUS_WINDOW_MS;
          await this.#register(signal);
          continue;
        }
        const jitter = 1 + JITTER * (this.#deps.random ?? Math.random)();
        await this.#waitNextUpdate(clock.monotonic() + this.#deps.updateFrequencyMs * jitter, {
          fastUntil,
          signal,
        });
      }
    } catch (err) {
      if (!signal.aborted) this.#log.error("Node status loop ended", { err: errorMessage(err) });
    }
  }

  /** Tries until the Node is created or adopted; waits 100 ms, doubling to 7 s, between tries. */
  async #register(signal: AbortSignal): Promise<void> {
    let step = REGISTER_BACKOFF_INITIAL_MS;
    for (;;) {
      await this.#deps.clock.sleep(step, { signal });
      step = Math.min(step * 2, REGISTER_BACKOFF_MAX_MS);
      if (await this.#tryRegister(signal)) {
        this.#registered = true;
        this.#failures.clear("register");
        this.#log.info("Successfully registered node", { sinceStartMs: processUptimeMs() });
        return;
      }
    }
  }

  async #tryRegister(signal: AbortSignal): Promise<boolean> {
    const { client } = this.#deps;
    let ours: V1Node | undefined;
    try {
      ours = await this.#deps.node({ signal });
      this.#log.info("Attempting to register node");
      this.#serverNode = await client.request<V1Node>({
        method: "POST",
        path: "/api/v1/nodes",
        body: initialNode(ours),
      }, { signal });
      this.#lastReport = this.#deps.clock.monotonic();
      for (const c of ours.status?.conditions ?? []) {
        if (c.type !== "Ready") this.#event(c.type, c.status);
      }
      return true;
    } catch (err) {
      if (signal.aborted) throw err;
      if (!ours || !isApiStatus(err, 409)) {
        this.#failures.warn("register", "Unable to register node with API server", { err });
        return false;
      }
    }
    try {
      const existing = await client.request<V1Node>({ method: "GET", path: this.#path }, {
        signal,
      });
      this.#log.info("Node was previously registered");
      const patch = reconcileExisting(existing, ours);
      if (patch) await this.#patchStatus(patch, signal);
      // The reconciliation touches labels, annotations and resources, not the conditions the
      // registrar reads from this copy.
      this.#serverNode = existing;
      return true;
    } catch (err) {
      if (signal.aborted) throw err;
      this.#failures.warn("register", "Unable to reconcile the existing node with API server", {
        err,
      });
      return false;
    }
  }

  /**
   * Up to five tries, the first read from the API server's cache (resourceVersion=0). Returns
   * true when the Node does not exist (read from storage, not the cache, to be sure).
   */
  async #updateStatus(signal: AbortSignal): Promise<boolean> {
    let lastErr: unknown;
    for (let attempt = 0; attempt < STATUS_UPDATE_RETRIES; attempt++) {
      try {
        await this.#tryUpdateStatus(attempt, signal);
        this.#failures.clear("status");
        return false;
      } catch (err) {
        if (signal.aborted) throw err;
        lastErr = err;
        if (attempt > 0) this.#deps.onRepeatedHeartbeatFailure?.();
        if (attempt > 0 && isApiStatus(err, 404)) break;
        this.#log.debug(2, "Error updating node status, will retry", { err: errorMessage(err) });
      }
    }
    this.#failures.warn("status", "Unable to update node status", { err: lastErr });
    return isApiStatus(lastErr, 404);
  }

  async #tryUpdateStatus(attempt: number, signal: AbortSignal): Promise<void> {
    const { client, clock } = this.#deps;
    // As upstream: the watch's copy first (the data may lag slightly, which at worst costs one
    // more patch); a retry reads it from storage.
    const cached = attempt === 0 ? this.#deps.cachedNode?.() : undefined;
    const server = cached ?? await client.request<V1Node>({
      method: "GET",
      path: this.#path,
      query: attempt === 0 ? { resourceVersion: "0" } : undefined,
    }, { signal });
    this.#serverNode = server;
    const ours = await this.#deps.node({ signal });
    const update = statusUpdate(server, ours, clock.now(), {
      keepServerAddresses: this.#deps.externalCloudProvider,
    });
    if (!update.changed && clock.monotonic() - this.#lastReport < this.#deps.reportFrequencyMs) {
      return;
    }
    await this.#patchStatus(update.patch, signal);
    this.#serverNode = withConditions(server, update.patch);
    this.#lastReport = clock.monotonic();
    for (const t of update.transitions) this.#event(t.type, t.status);
    if (update.transitions.some((t) => t.type === "Ready")) {
      this.#log.info("Node status posted", {
        ready: readyStatus(this.#serverNode),
        sinceStartMs: processUptimeMs(),
      });
    }
  }

  /**
   * The answer is asked for as metadata alone: the whole Node (~3 KB in JSON, each report) would
   * only tell the conditions just sent, and the watch brings the Node anyway.
   */
  async #patchStatus(patch: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    await this.#deps.client.request<unknown>({
      method: "PATCH",
      path: `${this.#path}/status`,
      body: patch,
      patchType: STRATEGIC,
      metadataOnly: true,
    }, { signal });
  }

  /**
   * Sleeps until `until`; while the server does not show the Node Ready (and the start-up window
   * is open), checks readiness every 100 ms and returns early once the Node would be Ready.
   */
  async #waitNextUpdate(
    until: number,
    opts: { fastUntil: number; signal: AbortSignal },
  ): Promise<void> {
    const { clock } = this.#deps;
    const { signal } = opts;
    while (clock.monotonic() < until) {
      if (readyStatus(this.#serverNode) === "True" || clock.monotonic() >= opts.fastUntil) {
        this.#fastPending = false;
      }
      if (!this.#fastPending || this.#serverNode === undefined) {
        await this.#sleepUnlessRequested(until - clock.monotonic(), signal);
        return;
      }
      await clock.sleep(Math.min(FAST_STATUS_PERIOD_MS, until - clock.monotonic()), { signal });
      if (await this.#wouldBeReady(signal)) {
        this.#fastPending = false;
        return;
      }
    }
  }

  /** Sleeps `ms`, or less when an update is requested meanwhile (upstream syncNodeStatus). */
  async #sleepUnlessRequested(ms: number, signal: AbortSignal): Promise<void> {
    const requested = new AbortController();
    const off = this.#deps.onUpdateRequest?.(() => requested.abort());
    try {
      await this.#deps.clock.sleep(ms, { signal: AbortSignal.any([signal, requested.signal]) });
    } catch (err) {
      if (signal.aborted || !requested.signal.aborted) throw err;
    } finally {
      off?.();
    }
  }

  async #wouldBeReady(signal: AbortSignal): Promise<boolean> {
    try {
      return readyStatus(await this.#deps.node({ signal })) === "True";
    } catch (err) {
      if (signal.aborted) throw err;
      this.#log.debug(2, "Cannot compute the node status", { err: errorMessage(err) });
      return false;
    }
  }

  #event(type: string, status: string | undefined): void {
    const reason = status === "True" || status === "False"
      ? EVENT_REASONS[type]?.[status]
      : undefined;
    if (!reason || !this.#deps.recorder) return;
    const name = this.#deps.nodeName;
    // Upstream's node reference uses the node name as its UID.
    this.#deps.recorder.event(
      { kind: "Node", apiVersion: "v1", name, uid: name },
      "Normal",
      reason,
      `Node ${name} status is now: ${reason}`,
    );
  }
}
