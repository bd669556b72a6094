/**
 * The node's CSINode object made at start in API mode, before any driver registers, as
 * upstream's CSI plugin does it (csi_plugin.go initializeCSINode): the scheduler counts on it
 * (the migrated in-tree plugins annotation, volume limits), and the Node is not Ready until it
 * is there — the readiness error `CSINode is not yet initialized`, then upstream's
 * `failed to initialize CSINode: ...` while tries fail. First the API server is waited for
 * (a GET of the CSINode every second until it answers, found or not) and the Node (the agent's
 * watch of it), then tries follow upstream's back-off (30 ms, x8, six tries). Upstream exits the kubelet after the sixth failed
 * try; this agent keeps its pods and tries again every two minutes.
 *
 * Public on its own, without the rest of src/csi (gRPC), so the agent loads only this at start.
 */
import { type ApiClient, ApiError } from "../apiclient/types.ts";
import type { Clock } from "../util/clock.ts";
import { DenoletError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { initializeCSINodeOnce } from "./_node_info.ts";

export const CSINODE_NOT_INITIALIZED = "CSINode is not yet initialized";

/** Upstream's initBackoff (Duration 30 ms, Factor 8, Steps 6): the waits between the tries. */
const INIT_WAITS_MS = [30, 240, 1_920, 15_360, 122_880];
/** Upstream nodeinfomanager updateBackoff (10 ms, x5, four tries) inside each try. */
const UPDATE_WAITS_MS = [10, 50, 250];
const API_POLL_MS = 1_000;
/** How often the agent's own view of its Node is looked at until the Node is there. */
const NODE_POLL_MS = 200;

export interface CsiNodeInitDeps {
  client: ApiClient;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  /**
   * The Node's UID as the agent's watch of it has it; undefined until the Node is seen (not
   * registered yet). Cheap, never blocks.
   */
  nodeUid: () => string | undefined;
  /** The readiness error: a message while not initialised, undefined once it is. */
  onState: (error: string | undefined) => void;
}

/** Makes or fixes the node's CSINode; returns once done or aborted. Never rejects. */
export async function initializeCsiNode(
  deps: CsiNodeInitDeps,
  opts: { signal: AbortSignal },
): Promise<void> {
  const { signal } = opts;
  const log = deps.logger.child({ component: "csinode" });
  try {
    await waitForApiServer(deps, signal);
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        await initializeWithAnnotation(deps, await waitForNode(deps, signal), signal);
        deps.onState(undefined);
        log.info("CSINode initialized", { node: deps.nodeName });
        return;
      } catch (err) {
        if (signal.aborted) return;
        const why = `failed to initialize CSINode: ${errorMessage(err)}`;
        deps.onState(why);
        log.error("Failed to initialize CSINode", { err: errorMessage(err), attempt });
        const waitMs = INIT_WAITS_MS[Math.min(attempt, INIT_WAITS_MS.length - 1)];
        await deps.clock.sleep(waitMs, { signal });
      }
    }
  } catch (err) {
    if (!signal.aborted) log.error("CSINode initialization stopped", { err });
  }
}

/** Upstream waitForAPIServerForever: the CSINode answered, found or not. */
async function waitForApiServer(deps: CsiNodeInitDeps, signal: AbortSignal): Promise<void> {
  for (;;) {
    try {
      await deps.client.request({
        method: "GET",
        path: `/apis/storage.k8s.io/v1/csinodes/${encodeURIComponent(deps.nodeName)}`,
      }, { signal });
      return;
    } catch (err) {
      signal.throwIfAborted();
      if (err instanceof ApiError && err.status === 404) return;
      deps.logger.debug(2, "Failed to contact API server when waiting for CSINode publishing", {
        err: errorMessage(err),
      });
    }
    await deps.clock.sleep(API_POLL_MS, { signal });
  }
}

/**
 * The Node's UID once the agent has seen its Node. Upstream's tries GET the Node and fail until
 * it is registered, waiting ever longer (15 s after the fourth); this waits on the watch
 * instead, so the node is Ready as soon as it can be, and asks the API server nothing.
 */
async function waitForNode(deps: CsiNodeInitDeps, signal: AbortSignal): Promise<string> {
  for (;;) {
    const uid = deps.nodeUid();
    if (uid) return uid;
    await deps.clock.sleep(NODE_POLL_MS, { signal });
  }
}

/** Upstream InitializeCSINodeWithAnnotation: a few quick tries, the last error quoted. */
async function initializeWithAnnotation(
  deps: CsiNodeInitDeps,
  nodeUid: string,
  signal: AbortSignal,
) {
  for (let i = 0;; i++) {
    try {
      return await initializeCSINodeOnce(deps.client, {
        nodeName: deps.nodeName,
        nodeUid,
        signal,
      });
    } catch (err) {
      signal.throwIfAborted();
      if (i >= UPDATE_WAITS_MS.length) {
        throw new CsiNodeInitError(
          "error updating CSINode annotation: timed out waiting for the condition; caused by: " +
            errorMessage(err),
          { cause: err },
        );
      }
      deps.logger.debug(2, "Failed to publish CSINode", { err: errorMessage(err) });
      await deps.clock.sleep(UPDATE_WAITS_MS[i], { signal });
    }
  }
}

/** The CSINode could not be made or fixed; the message is upstream's. */
export class CsiNodeInitError extends DenoletError {}
