/**
 * The API-server mode: the agent as a node of a cluster. Imported dynamically, only when
 * --kubeconfig is given, so the standalone agent never loads any of it.
 */
import type { V1ServiceAccount } from "@kubernetes/client-node";
import {
  type ApiClientOptions,
  createApiClient,
  requestMetrics,
  runReflector,
} from "../apiclient/mod.ts";
import {
  type Checkpoint,
  checkpointDir,
  openCheckpoint,
  removeCheckpoint,
} from "../checkpoint/mod.ts";
import { createApiEventRecorder } from "../events/mod.ts";
import { createNodeLeaseController } from "../node/lease.ts";
import { createNodeRegistrar } from "../node/registrar.ts";
import { createObjectManagers } from "../objects/mod.ts";
import { downwardAPIValues } from "../runtime/mod.ts";
import { configMapPlugin, projectedPlugin, secretPlugin } from "../volumes/mod.ts";
import { createApiSource } from "../sources/api_source.ts";
import { createMirrorPods } from "./mirror_pods.ts";
import { apiServerCheck } from "./_health.ts";
import { createNodeView } from "./node_view.ts";
import { createServiceCache } from "./services.ts";
import { createRuntimeClasses } from "./runtime_classes.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import { processUptimeMs } from "../util/clock.ts";
import { createStatusWriter } from "./status_writer.ts";
import { clientIdentity } from "./_client_identity.ts";
import type { AgentParts, ClusterDeps, ClusterMode } from "./types.ts";

export type { AgentParts, ClusterDeps, ClusterMode } from "./types.ts";

const ARCH: Record<string, string> = { x86_64: "amd64", aarch64: "arm64" };
/** After closing every connection, further heartbeat failures close nothing for this long. */
const CLOSE_ALL_QUIET_MS = 5_000;

/**
 * Loads the kubeconfig (bootstrapping the client certificate first where asked) and builds the
 * cluster parts. Throws KubeconfigError or BootstrapError naming the file or field.
 */
export async function startClusterMode(deps: ClusterDeps): Promise<ClusterMode> {
  const { config, clock, logger } = deps;
  const arch = ARCH[Deno.build.arch] ?? Deno.build.arch;
  const common: ApiClientOptions = {
    clock,
    logger,
    qps: config.kubeAPIQPS,
    burst: config.kubeAPIBurst,
    userAgent: `denolet/v${deps.version} (linux/${arch})`,
  };
  const identity = await clientIdentity({
    config,
    clock,
    logger,
    clientOptions: common,
    signal: deps.signal,
  });
  const { connection } = identity;
  // rest_client_* counts the clients below (the certificate requests above are rare).
  if (deps.registry) common.observe = requestMetrics(deps.registry, connection.server);
  // Pods, their statuses, watches, events, objects: the --kube-api-qps budget.
  const client = createApiClient(connection, common);
  // The Lease and the Node status, as upstream's heartbeat client: connections of their own, no
  // rate limit, and a deadline of the shorter of the status period and the lease duration, so
  // nothing else the node does (a burst of pod work, a flood of reviews) can make them late.
  const heartbeat = createApiClient(connection, {
    ...common,
    qps: 0,
    burst: 0,
    timeoutMs: Math.min(config.nodeStatusUpdateFrequencyMs, config.nodeLeaseDurationSeconds * 1000),
  });
  // TokenReviews and SubjectAccessReviews for the node API: anyone who reaches the port can make
  // the agent ask, so they have a budget of their own that refuses excess (the reviewers hold
  // it) and a connection of their own, not the pods' rate limit. Dials only when first used.
  const reviewClient = createApiClient(connection, { ...common, qps: 0, burst: 0 });
  const clients = [client, heartbeat, reviewClient];
  const heartbeatFailures = new RepeatedFailures(logger, { clock, everyMs: 60_000 });
  let closedAt = -Infinity;
  // The kubelet's closeAllConns: a heartbeat that fails twice in a row may be stuck on a
  // connection gone silent, and so may every watch; new connections are dialled for the retry.
  // Not again within a few seconds: the requests the close itself failed (the other heartbeat
  // loop's) would close the fresh connections their retries just opened.
  const closeAllConnections = () => {
    if (clock.monotonic() - closedAt < CLOSE_ALL_QUIET_MS) return;
    closedAt = clock.monotonic();
    heartbeatFailures.warn(
      "heartbeat",
      "Heartbeat failed repeatedly; closing every connection to the API server",
    );
    for (const c of clients) c.closeConnections?.("a heartbeat failed repeatedly");
  };
  logger.info("API-server mode", {
    server: connection.server,
    node: config.nodeName,
    sinceStartMs: processUptimeMs(),
  });
  const loops: Array<(parts: AgentParts, signal: AbortSignal) => Promise<void>> = [];
  // The client certificate's rotation: every client moves to each new certificate.
  const { run: keepIdentity } = identity;
  if (keepIdentity) {
    loops.push((_parts, signal) => keepIdentity(clients, { signal, fail: deps.fail }));
  }
  // Edge autonomy: the desired state as last seen, to start from while the API server is away.
  const dir = checkpointDir(config.rootDir);
  let checkpoint: Checkpoint | undefined;
  if (config.apiCheckpoint) {
    const opened = checkpoint = await openCheckpoint({
      dir,
      clock,
      logger,
      secrets: config.apiCheckpointSecrets,
    });
    loops.push((_parts, signal) => opened.run({ signal }));
  } else {
    await removeCheckpoint(dir, { logger });
  }
  const events = createApiEventRecorder({ client, nodeName: config.nodeName, clock, logger });
  loops.push((_parts, signal) => events.run({ signal }));
  // The Node and its Lease. As upstream, status and lease run with --register-node=false too:
  // the flag only decides whether the agent creates the Node or expects someone else to.
  loops.push(async (parts, signal) => {
    const node = {
      client: heartbeat,
      nodeName: config.nodeName,
      clock,
      logger,
      onRepeatedHeartbeatFailure: closeAllConnections,
    };
    await Promise.all([
      createNodeRegistrar({
        ...node,
        node: (o) => parts.nodeStatus.node(o),
        register: config.registerNode,
        externalCloudProvider: config.cloudProvider === "external",
        updateFrequencyMs: config.nodeStatusUpdateFrequencyMs,
        reportFrequencyMs: config.nodeStatusReportFrequencyMs,
        recorder: events,
        onUpdateRequest: (fn) => parts.nodeStatus.onUpdateRequest(fn),
        cachedNode: () => nodeView.current(),
      }).run({ signal }),
      createNodeLeaseController({
        ...node,
        leaseDurationSeconds: config.nodeLeaseDurationSeconds,
      }).run({ signal }),
    ]);
  });
  // ConfigMaps, Secrets and tokens: a change syncs the pods using it, so their volumes follow.
  const synced: { kubelet?: AgentParts["kubelet"] } = {};
  const objects = createObjectManagers({
    client,
    clock,
    logger,
    onPodsChanged: (uids) => uids.forEach((uid) => synced.kubelet?.requestSync(uid)),
    checkpoint,
  });
  loops.push(async (parts, signal) => {
    synced.kubelet = parts.kubelet;
    await objects.run(() => parts.kubelet.podManager.pods(), { signal });
  });
  // Pods bound to this node, their statuses, the static pods' mirrors, and the Node for
  // admission and the mirrors' owner reference.
  const pods = { client, nodeName: config.nodeName, clock, logger };
  const podSource = createApiSource({
    ...pods,
    reflector: runReflector,
    checkpoint: checkpoint?.pods,
  });
  const nodeView = createNodeView({ ...pods, reflector: runReflector });
  // All Services, for the service-link env every API pod gets (KUBERNETES_SERVICE_HOST, ...).
  // An API pod cannot start before their first list; once it is in, such pods go on at once.
  const services = createServiceCache({
    client,
    clock,
    logger,
    reflector: runReflector,
    checkpoint: checkpoint?.services,
    onSynced: () =>
      synced.kubelet?.podManager.pods().forEach((p) =>
        synced.kubelet?.requestSync(p.metadata!.uid!)
      ),
  });
  const resyncAll = () =>
    synced.kubelet?.podManager.pods().forEach((p) => synced.kubelet?.requestSync(p.metadata!.uid!));
  const runtimeClasses = createRuntimeClasses({
    client,
    clock,
    logger,
    reflector: runReflector,
    onSynced: resyncAll,
  });
  const mirrorPods = createMirrorPods({
    ...pods,
    store: podSource.store,
    node: () => nodeView.current(),
  });
  const statusSink = createStatusWriter({
    client,
    store: podSource.store,
    clock,
    logger,
    onStaticPod: () => mirrorPods.trigger(),
  });
  loops.push(
    (_parts, signal) => nodeView.run({ signal }),
    (_parts, signal) => services.run({ signal }),
    (_parts, signal) => runtimeClasses.run({ signal }),
    (parts, signal) => statusSink.run(parts.kubelet, { signal }),
    (parts, signal) => mirrorPods.run(parts.kubelet, { signal }),
  );
  return {
    client,
    reviewClient,
    podSource,
    statusSink,
    admissionNode: () => nodeView.current(),
    healthChecks: checkpoint
      ? () => [
        apiServerCheck(podSource.state(), { server: connection.server, nodeName: config.nodeName }),
      ]
      : undefined,
    events,
    objects,
    claims: objects,
    services: (namespace) => services.list(namespace),
    serviceAccounts: {
      async get(namespace, name) {
        const sa = await client.request<V1ServiceAccount>({
          method: "GET",
          path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${
            encodeURIComponent(name)
          }`,
        });
        return { uid: sa.metadata?.uid ?? "", annotations: sa.metadata?.annotations ?? {} };
      },
      // As upstream's request: no expiration asked, the API server's default (one hour).
      token: (pod, audience) =>
        objects.serviceAccountToken({
          metadata: { namespace: pod.namespace, name: pod.name, uid: pod.uid },
          spec: { serviceAccountName: pod.serviceAccountName, containers: [] },
        }, { audience, expirationSeconds: 3600 }),
    },
    runtimeHandler: (pod) => runtimeClasses.handler(pod.spec?.runtimeClassName),
    volumePlugins: [
      configMapPlugin(objects),
      secretPlugin(objects),
      projectedPlugin({ objects, downward: downwardAPIValues() }),
    ],
    async run(parts, { signal }) {
      await Promise.all(loops.map((loop) => loop(parts, signal)));
    },
    close: () => {
      clients.forEach((c) => c.close());
      identity.close();
    },
  };
}
