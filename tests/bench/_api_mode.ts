/**
 * The API-server mode under load (issue 10): a real control plane and an agent joined to it,
 * pods created through the API server (bound to the node, so the scheduler's latency is not in
 * the figure) and timed until the API server reports them Running and Ready, as a user watching
 * `kubectl get pods -w` sees it. Pods keep the default service-account token volume, so each
 * start includes a TokenRequest and a tmpfs mount, as on a real node. Then the agent's RSS and
 * CPU idle and with 110 pods.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { type ApiClient, createApiClient, loadKubeconfig } from "../../src/apiclient/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { errorMessage, nullLogger } from "../../src/util/log.ts";
import { type ClusterE2E, setupCluster } from "../e2e/_cluster.ts";
import { waitFor } from "../support/wait.ts";
import { type Footprint, sampleFootprint } from "./_proc.ts";
import { isRunningReady, watchReady } from "./_ready_watch.ts";
import { summarize, type Summary } from "./_stats.ts";

export interface ApiModeResult {
  /** create → Running and Ready, ms, per pod. */
  burst: { pods: number; perPod: Summary; allMs: number };
  paced: { pods: number; ratePerSecond: number; perPod: Summary; allMs: number };
  idle: Footprint;
  loaded: { pods: number; footprint: Footprint };
}

const NS = "default";
/** After the last pod is Ready, let its start-up work (status writes, events) finish. */
export const API_SETTLE_MS = 10_000;
/** How long after the first create every pod must be Ready in the API. */
const READY_DEADLINE_MS = 180_000;

export async function apiModeBench(opts: {
  image: string;
  sampleMs: number;
  burst: number;
  paced: number;
  ratePerSecond: number;
  loaded: number;
  progress: (s: string) => void;
  /** The agent's program (`--agent bundle`); default main.ts. */
  agentMain?: string;
}): Promise<ApiModeResult> {
  const { progress } = opts;
  progress("API mode: starting the control plane and a joined agent");
  const c = await setupCluster({
    mainModule: opts.agentMain,
    // Upstream defaults where the e2e harness differs.
    extraArgs: ["--sync-frequency", "1m", "--file-check-frequency", "20s", "-v", "0"],
  });
  let api: ApiClient | undefined;
  try {
    api = await readyApi(c);
    await realClock.sleep(5_000);
    progress(`API mode: idle footprint (${opts.sampleMs / 1000} s)`);
    const idle = await sampleFootprint(c.agent.pid, opts.sampleMs);

    progress(`API mode: ${opts.burst} pods created at once`);
    const burst = await timedStarts(api, c.nodeName, podNames("apib", opts.burst), {
      image: opts.image,
      ratePerSecond: 0,
    });
    await deleteAll(api, podNames("apib", opts.burst));

    progress(`API mode: ${opts.paced} pods at ${opts.ratePerSecond}/s`);
    const paced = await timedStarts(api, c.nodeName, podNames("apit", opts.paced), {
      image: opts.image,
      ratePerSecond: opts.ratePerSecond,
    });
    await deleteAll(api, podNames("apit", opts.paced));

    progress(`API mode: steady state with ${opts.loaded} pods (${opts.sampleMs / 1000} s)`);
    const names = podNames("apil", opts.loaded);
    await timedStarts(api, c.nodeName, names, { image: opts.image, ratePerSecond: 0 });
    await realClock.sleep(API_SETTLE_MS);
    const footprint = await sampleFootprint(c.agent.pid, opts.sampleMs);
    await deleteAll(api, names);
    return {
      burst: { pods: opts.burst, ...burst },
      paced: { pods: opts.paced, ratePerSecond: opts.ratePerSecond, ...paced },
      idle,
      loaded: { pods: opts.loaded, footprint },
    };
  } finally {
    api?.close();
    await c.close();
  }
}

/**
 * An admin client (no rate limit) once the cluster takes pods: the node is Ready and the
 * `default` service account exists (a pod created before it is refused).
 */
export async function readyApi(c: ClusterE2E): Promise<ApiClient> {
  const api = createApiClient(await loadKubeconfig(c.cp.adminKubeconfig), {
    clock: realClock,
    logger: nullLogger,
    qps: 0,
    burst: 0,
    userAgent: "denolet-bench",
  });
  try {
    await waitFor(async () => {
      const node = await api.request<
        { status?: { conditions?: { type: string; status: string }[] } }
      >(
        { method: "GET", path: `/api/v1/nodes/${c.nodeName}` },
      ).catch(() => undefined);
      return node?.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True");
    }, { what: "the node to be Ready", timeoutMs: 60_000 });
    await waitFor(
      () =>
        api.request({ method: "GET", path: `/api/v1/namespaces/${NS}/serviceaccounts/default` })
          .then(() => true, () => false),
      { what: "the default service account", timeoutMs: 60_000 },
    );
    return api;
  } catch (err) {
    api.close();
    throw err;
  }
}

export function podNames(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`);
}

function podOf(name: string, node: string, image: string, token = true): V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NS, labels: { bench: "api" } },
    spec: {
      nodeName: node,
      terminationGracePeriodSeconds: 2,
      ...(token ? {} : { automountServiceAccountToken: false }),
      containers: [{ name: "main", image, imagePullPolicy: "IfNotPresent" }],
    },
  };
}

/**
 * Creates the pods (all at once, or paced at `ratePerSecond`) and watches them until each is
 * Running and Ready in the API; returns the per-pod latencies and the time until the last.
 */
export async function timedStarts(
  api: ApiClient,
  node: string,
  names: string[],
  opts: {
    image: string;
    ratePerSecond: number;
    /** false: no service-account token volume (to tell its cost apart); default true. */
    token?: boolean;
  },
): Promise<{ perPod: Summary; allMs: number }> {
  const created = new Map<string, number>();
  const stop = new AbortController();
  const watch = watchReady(api, {
    namespace: NS,
    fieldSelector: `spec.nodeName=${node}`,
    labelSelector: "bench=api",
    names,
    signal: stop.signal,
  });
  const { ready } = watch;
  const deadline = new AbortController();
  try {
    // Let the watch open before the first create.
    await realClock.sleep(500);
    const t0 = performance.now();
    const creates: Promise<unknown>[] = [];
    for (const [i, name] of names.entries()) {
      if (opts.ratePerSecond > 0) {
        const due = t0 + (i * 1000) / opts.ratePerSecond;
        const wait = due - performance.now();
        if (wait > 0) await realClock.sleep(wait);
      }
      created.set(name, performance.now());
      creates.push(api.request({
        method: "POST",
        path: `/api/v1/namespaces/${NS}/pods`,
        body: podOf(name, node, opts.image, opts.token),
      }));
    }
    await Promise.all(creates);
    // From the first create, however long the creates themselves took.
    const left = Math.max(0, READY_DEADLINE_MS - (performance.now() - t0));
    const timer = realClock.sleep(left, { signal: deadline.signal }).then(
      async () => {
        // Tell a slow agent from a blind watch: what does the API server itself say?
        const inApi = await countReady(api, node, names).catch((e) => errorMessage(e));
        throw new Error(
          `only ${ready.size} of ${names.length} pods were Ready within ` +
            `${READY_DEADLINE_MS / 1000} s of the first create ` +
            `(the API server lists ${inApi} Ready; ${watch.describe()})`,
        );
      },
      () => undefined,
    );
    await Promise.race([watch.all, timer]);
    const latencies = names.map((n) => ready.get(n)! - created.get(n)!);
    return {
      perPod: summarize(latencies),
      allMs: Math.max(...names.map((n) => ready.get(n)!)) - t0,
    };
  } finally {
    deadline.abort();
    stop.abort();
    await watch.stopped;
  }
}

export async function deleteAll(api: ApiClient, names: string[]): Promise<void> {
  await Promise.all(names.map((name) =>
    api.request({
      method: "DELETE",
      path: `/api/v1/namespaces/${NS}/pods/${name}`,
      body: { gracePeriodSeconds: 2 },
    }).catch(() => undefined) // already gone
  ));
  await waitFor(async () => {
    const list = await api.request<{ items: V1Pod[] }>({
      method: "GET",
      path: `/api/v1/namespaces/${NS}/pods`,
      query: { labelSelector: "bench=api" },
    });
    // A DELETE of the hundred sent at once can fail (the client's rate limit and deadline make
    // the last ones wait longest): ask again for any pod not being deleted yet.
    await Promise.all(
      list.items.filter((p) => !p.metadata?.deletionTimestamp).map((p) =>
        api.request({
          method: "DELETE",
          path: `/api/v1/namespaces/${NS}/pods/${p.metadata?.name}`,
          body: { gracePeriodSeconds: 2 },
        }).catch(() => undefined)
      ),
    );
    return list.items.length === 0;
  }, { what: "the bench pods to leave the API", timeoutMs: 180_000, intervalMs: 1000 });
}

async function countReady(api: ApiClient, node: string, names: string[]): Promise<number> {
  const wanted = new Set(names);
  const list = await api.request<{ items: V1Pod[] }>({
    method: "GET",
    path: `/api/v1/namespaces/${NS}/pods`,
    query: { fieldSelector: `spec.nodeName=${node}`, labelSelector: "bench=api" },
  });
  return list.items.filter((p) => wanted.has(p.metadata?.name ?? "") && isRunningReady(p)).length;
}
