/**
 * Watches a node's Lease from outside (cluster admin, straight to the API server, not through
 * the agent's proxy) as the node lifecycle controller does: what counts is when a new
 * renewTime is first seen, on the observer's clock, not the time written in it (an agent whose
 * wall clock stepped back writes old times, and the controller does not mind).
 *
 * A Lease is late when, with the API server up, no renewal has been seen for longer than the
 * lease duration. While the API server is down nothing can be renewed: the time it is away does
 * not count, and after it returns the agent has `graceMs` to renew.
 */
import type { V1Lease } from "@kubernetes/client-node";
import { type ApiClient, createApiClient, loadKubeconfig } from "../../src/apiclient/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";

export interface LeaseMonitor {
  /** The API server is going away (a planned fault): lateness is not counted until `up`. */
  down(): void;
  /** The API server is back: the agent has the grace period from now. */
  up(): void;
  /** Samples where the lease was late: [seconds since start, seconds since the last renewal]. */
  late(): Array<[number, number]>;
  /** Renewals seen so far. */
  renewals(): number;
  /** The longest time between two renewals seen while the server was up (ms). */
  longestGapMs(): number;
  stop(): Promise<void>;
}

export async function startLeaseMonitor(opts: {
  adminKubeconfig: string;
  nodeName: string;
  leaseDurationMs: number;
  graceMs: number;
  intervalMs?: number;
}): Promise<LeaseMonitor> {
  const client: ApiClient = createApiClient(await loadKubeconfig(opts.adminKubeconfig), {
    clock: realClock,
    logger: nullLogger,
    qps: 0,
    burst: 0,
    userAgent: "denolet-fault-campaign",
    timeoutMs: 3_000,
  });
  const path = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${opts.nodeName}`;
  const t0 = performance.now();
  const late: Array<[number, number]> = [];
  let lastRenew: string | undefined;
  /** When a renewal was last seen, or when the agent's grace after an outage began. */
  let since = performance.now();
  let lastSeenAt = performance.now();
  let longest = 0;
  let renewals = 0;
  let serverDown = false;
  const stop = new AbortController();
  const loop = (async () => {
    while (!stop.signal.aborted) {
      try {
        const lease = await client.request<V1Lease>({ method: "GET", path }, {
          signal: stop.signal,
        });
        const now = performance.now();
        const renew = String(lease.spec?.renewTime ?? "");
        if (renew !== lastRenew) {
          if (lastRenew !== undefined && !serverDown) longest = Math.max(longest, now - lastSeenAt);
          lastRenew = renew;
          renewals++;
          since = now;
          lastSeenAt = now;
        } else if (!serverDown && now - since > opts.leaseDurationMs) {
          late.push([Math.round((now - t0) / 1000), Math.round((now - lastSeenAt) / 1000)]);
        }
      } catch {
        // The API server is away (a fault under test): nothing to sample this time.
      }
      await realClock.sleep(opts.intervalMs ?? 1_000, { signal: stop.signal }).catch(() => {
        // stopped
      });
    }
  })();
  return {
    down() {
      serverDown = true;
    },
    up() {
      serverDown = false;
      // The grace period counts as if a renewal had just been seen, lease duration included.
      since = performance.now() + opts.graceMs - opts.leaseDurationMs;
      lastSeenAt = performance.now();
    },
    late: () => [...late],
    renewals: () => renewals,
    longestGapMs: () => Math.round(longest),
    async stop() {
      stop.abort();
      await loop;
      client.close();
    },
  };
}
