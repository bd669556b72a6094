/**
 * The node's heartbeat Lease `kube-node-lease/<node>` (upstream component-helpers lease
 * controller with the kubelet's settings): renewed every quarter of nodeLeaseDurationSeconds,
 * created when missing with the Node as its owner (so it goes when the Node is deleted). A
 * renewal updates the last Lease seen without reading it first; a conflict or a failed update
 * falls back to reading (or creating) it, with back-off while the API server is away. Renewals
 * strip the Lease's managedFields, which would otherwise come back in every answer.
 */
import { LEASE_CODEC } from "./_lease_proto.ts";
import type { ProtobufCodec } from "../apiclient/protobuf.ts";
import type { V1Lease, V1Node, V1ObjectMeta } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/types.ts";
import { isApiStatus } from "../apiclient/types.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { errorMessage } from "../util/log.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";

const LEASE_PROTOBUF = LEASE_CODEC as ProtobufCodec<unknown>;

export const LEASE_NAMESPACE = "kube-node-lease";
/** The renew interval as a fraction of the duration (upstream nodeLeaseRenewIntervalFraction). */
export const RENEW_INTERVAL_FRACTION = 0.25;
/** Back-off of the read-or-create step: 200 ms doubling to 7 s (upstream maxBackoff). */
export const LEASE_BACKOFF_INITIAL_MS = 200;
export const LEASE_BACKOFF_MAX_MS = 7_000;
/** Updates tried per renewal (upstream maxUpdateRetries). */
export const LEASE_UPDATE_RETRIES = 5;
/** Upstream's wait.JitterUntil factor for the renew loop. */
const JITTER = 0.04;

export interface NodeLeaseDeps {
  client: ApiClient;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  /** nodeLeaseDurationSeconds (default 40): the renew interval is a quarter of it. */
  leaseDurationSeconds: number;
  /** [0, 1) for the loop's jitter; tests pass `() => 0`. */
  random?: () => number;
  /**
   * A renewal failed again (not a conflict): the kubelet's onRepeatedHeartbeatFailure, which
   * closes every connection to the API server in case the one in use went silent.
   */
  onRepeatedHeartbeatFailure?: () => void;
}

export interface NodeLeaseController {
  /** Renews the Lease until the signal aborts. Never rejects; failures are logged and retried. */
  run(opts: { signal: AbortSignal }): Promise<void>;
}

export function createNodeLeaseController(deps: NodeLeaseDeps): NodeLeaseController {
  return new LeaseController(deps);
}

/** metav1.MicroTime on the wire: RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

class LeaseController implements NodeLeaseController {
  readonly #deps: NodeLeaseDeps;
  readonly #log: Logger;
  readonly #failures: RepeatedFailures;
  readonly #path: string;
  /** The Lease as the last successful write returned it. */
  #latest?: V1Lease;

  constructor(deps: NodeLeaseDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ lease: `${LEASE_NAMESPACE}/${deps.nodeName}` });
    this.#failures = new RepeatedFailures(this.#log, { clock: deps.clock, everyMs: 60_000 });
    this.#path = `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases`;
  }

  async run({ signal }: { signal: AbortSignal }): Promise<void> {
    const { clock } = this.#deps;
    const intervalMs = this.#deps.leaseDurationSeconds * 1000 * RENEW_INTERVAL_FRACTION;
    try {
      for (;;) {
        await this.#sync(signal);
        const jitter = 1 + JITTER * (this.#deps.random ?? Math.random)();
        await clock.sleep(intervalMs * jitter, { signal });
      }
    } catch (err) {
      if (!signal.aborted) this.#log.error("Node lease loop ended", { err: errorMessage(err) });
    }
  }

  async #sync(signal: AbortSignal): Promise<void> {
    if (this.#latest) {
      // The Lease is only ever written here: the last version seen is almost always current,
      // which saves a read per renewal.
      if (await this.#retryUpdate(this.#latest, signal)) return;
      this.#log.debug(2, "Cannot renew the lease from the last version; reading it again");
    }
    const { lease, created } = await this.#backoffEnsure(signal);
    this.#latest = lease;
    if (!created) await this.#retryUpdate(lease, signal);
  }

  /** Reads the Lease, or creates it, until that works; waits 200 ms doubling to 7 s between. */
  async #backoffEnsure(signal: AbortSignal): Promise<{ lease: V1Lease; created: boolean }> {
    let sleep = LEASE_BACKOFF_INITIAL_MS / 2;
    for (;;) {
      try {
        const out = await this.#ensure(signal);
        this.#failures.clear("ensure");
        return out;
      } catch (err) {
        if (signal.aborted) throw err;
        sleep = Math.min(sleep * 2, LEASE_BACKOFF_MAX_MS);
        this.#failures.warn("ensure", "Failed to ensure lease exists, will retry", {
          err,
          interval: `${sleep}ms`,
        });
      }
      await this.#deps.clock.sleep(sleep, { signal });
    }
  }

  async #ensure(signal: AbortSignal): Promise<{ lease: V1Lease; created: boolean }> {
    const { client, nodeName } = this.#deps;
    try {
      const lease = await client.request<V1Lease>({
        method: "GET",
        path: `${this.#path}/${encodeURIComponent(nodeName)}`,
        protobuf: LEASE_PROTOBUF,
      }, { signal });
      return { lease, created: false };
    } catch (err) {
      if (!isApiStatus(err, 404)) throw err;
    }
    // Upstream skips the creation until the next renewal when the Node cannot be read; the
    // back-off retries it sooner, so the Lease follows a registration within a second.
    const owner = await this.#ownerReference(signal);
    const lease = await client.request<V1Lease>({
      method: "POST",
      path: this.#path,
      protobuf: LEASE_PROTOBUF,
      body: {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: nodeName, namespace: LEASE_NAMESPACE, ownerReferences: [owner] },
        spec: {
          holderIdentity: nodeName,
          leaseDurationSeconds: this.#deps.leaseDurationSeconds,
          renewTime: microTime(this.#deps.clock.now()),
        },
      },
    }, { signal });
    this.#log.info("Created the node lease");
    return { lease, created: true };
  }

  /** Up to five updates; a conflict reads the Lease again first. True when one succeeded. */
  async #retryUpdate(base: V1Lease, signal: AbortSignal): Promise<boolean> {
    let current = base;
    for (let i = 0; i < LEASE_UPDATE_RETRIES; i++) {
      try {
        this.#latest = await this.#deps.client.request<V1Lease>({
          method: "PUT",
          path: `${this.#path}/${encodeURIComponent(this.#deps.nodeName)}`,
          // protobuf, as the kubelet: the renewal every 10 s is most of an idle node's traffic.
          protobuf: LEASE_PROTOBUF,
          body: await this.#renewed(current, signal),
        }, { signal });
        this.#failures.clear("update");
        return true;
      } catch (err) {
        if (signal.aborted) throw err;
        this.#failures.warn("update", "Failed to update lease", { err });
        if (isApiStatus(err, 409)) {
          current = (await this.#backoffEnsure(signal)).lease;
          continue;
        }
        if (i > 0) this.#deps.onRepeatedHeartbeatFailure?.();
      }
    }
    return false;
  }

  /** A copy of `lease` renewed now, with the Node as owner once the Node can be read. */
  async #renewed(lease: V1Lease, signal: AbortSignal): Promise<V1Lease> {
    // The API server keeps the live managedFields for an update without them, and sends them
    // back in every answer: half of each renewal's answer, every 10 s, on a metered uplink. One
    // empty entry is the documented reset that strips them, after which the API server tracks
    // no fields of the Lease until someone applies it server-side, so every later answer is half
    // the size (and this is sent again only if they come back). Only the node writes its Lease;
    // nothing reads who managed which of its fields.
    const { managedFields, ...rest } = lease.metadata ?? {};
    const metadata: V1ObjectMeta = managedFields?.length ? { ...rest, managedFields: [{}] } : rest;
    const out: V1Lease = {
      ...lease,
      metadata,
      spec: { ...lease.spec, renewTime: microTime(this.#deps.clock.now()) as unknown as Date },
    };
    if (!out.metadata?.ownerReferences?.length) {
      try {
        out.metadata!.ownerReferences = [await this.#ownerReference(signal)];
      } catch (err) {
        if (signal.aborted) throw err;
        // A renewal without the owner still keeps the node alive; the next one tries again.
        this.#log.debug(2, "Cannot set the node as the lease's owner", {
          err: errorMessage(err),
        });
      }
    }
    return out;
  }

  async #ownerReference(signal: AbortSignal) {
    const node = await this.#deps.client.request<V1Node>({
      method: "GET",
      path: `/api/v1/nodes/${encodeURIComponent(this.#deps.nodeName)}`,
    }, { signal });
    return { apiVersion: "v1", kind: "Node", name: this.#deps.nodeName, uid: node.metadata!.uid! };
  }
}
