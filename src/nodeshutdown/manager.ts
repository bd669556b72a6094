/**
 * Graceful node shutdown (upstream nodeshutdown_manager_linux.go), the logind inhibitor pattern:
 *
 * 1. At start, make sure logind lets an inhibitor hold a shutdown as long as the grace periods
 *    add up to (a logind.conf drop-in and a reload when not), take a "shutdown" delay
 *    inhibitor, and watch PrepareForShutdown.
 * 2. On PrepareForShutdown(true): refuse new pods, turn the Node NotReady, stop the pods group by
 *    group (lowest priority first) with their hooks and grace periods, then release the
 *    inhibitor so the shutdown goes on.
 * 3. On PrepareForShutdown(false) (cancelled): admit pods again and take a new inhibitor.
 *
 * A lost bus connection is made again a second later.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { EventRecorder } from "../events/mod.ts";
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import type { MetricsRegistry } from "../util/metrics.ts";
import type { ShutdownGracePeriodByPodPriority } from "../config/mod.ts";
import { groupByPriority, periodRequestedMs } from "./_groups.ts";
import { type KillPod, killPods } from "./_kill_pods.ts";
import { type ShutdownState, shutdownStateStore } from "./_state.ts";

/** What the manager needs of logind and systemd (upstream's dbusInhibiter). */
export interface ShutdownInhibitor {
  /** logind's InhibitDelayMaxUSec, in ms. */
  currentInhibitDelayMs(): Promise<number>;
  /** Takes a "shutdown" delay inhibitor; `release` lets the shutdown go on. */
  inhibitShutdown(): Promise<{ release(): void }>;
  /** Writes the logind.conf drop-in raising InhibitDelayMaxSec to `ms`. */
  overrideInhibitDelay(ms: number): Promise<void>;
  /** Makes logind read its configuration again (SIGHUP through systemd). */
  reloadLogindConf(): Promise<void>;
  /** Calls `fn` on every PrepareForShutdown. */
  monitorShutdown(fn: (shuttingDown: boolean) => void): Promise<void>;
  /** Resolves when the bus connection has ended. */
  readonly closed: Promise<void>;
  close(): void;
}

export interface ShutdownManagerDeps {
  /** Connects to the system bus (a new connection after one ends). */
  connect: () => Promise<ShutdownInhibitor>;
  /** The ranges in force, lowest priority first (shutdownPeriods); not empty. */
  periods: readonly ShutdownGracePeriodByPodPriority[];
  /** Pods admitted and not finished. */
  activePods: () => V1Pod[];
  kill: KillPod;
  /** Posts the Node's status now (it turns NotReady); optional in standalone mode. */
  syncNodeStatus?: () => void;
  events?: EventRecorder;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  /** <root-dir>/graceful_node_shutdown_state: when the last shutdown started and ended. */
  stateFile?: string;
  /** Registers kubelet_graceful_shutdown_{start,end}_time_seconds when given. */
  metrics?: MetricsRegistry;
}

export interface ShutdownManager {
  /**
   * Starts watching and keeps at it until the signal aborts. A failure of the first start is
   * logged and ends the watch, as upstream (graceful shutdown is then off); never rejects.
   */
  run(opts: { signal: AbortSignal }): Promise<void>;
  /** Upstream's admit handler: no new pods while the node shuts down. */
  admit(pod: V1Pod): { admit: boolean; reason?: string; message?: string };
  /** "node is shutting down" while it is (a Ready condition error), else undefined. */
  shutdownStatus(): string | undefined;
}

export const NODE_SHUTDOWN_NOT_ADMITTED_REASON = "NodeShutdown";
export const NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE = "Pod was rejected as the node is shutting down.";
export const NODE_SHUTDOWN_REASON = "Terminated";
export const NODE_SHUTDOWN_MESSAGE = "Pod was terminated in response to imminent node shutdown.";
/** kubeletevents.NodeShutdown. */
const EVENT_REASON = "Shutdown";
const RECONNECT_MS = 1_000;
/** upstream's wait for logind's new InhibitDelayMaxUSec: 100 ms doubling, five tries. */
const RELOAD_BACKOFF_MS = [100, 200, 400, 800, 1600];

export function createShutdownManager(deps: ShutdownManagerDeps): ShutdownManager {
  const log = deps.logger.child({ component: "nodeshutdown" });
  let shuttingDown = false;
  let lock: { release(): void } | undefined;
  const store = deps.stateFile ? shutdownStateStore(deps.stateFile) : undefined;
  const gauges = deps.metrics && {
    start: deps.metrics.gauge({
      name: "kubelet_graceful_shutdown_start_time_seconds",
      help: "Last graceful shutdown start time since unix epoch in seconds",
      stability: "ALPHA",
    }),
    end: deps.metrics.gauge({
      name: "kubelet_graceful_shutdown_end_time_seconds",
      help: "Last graceful shutdown end time since unix epoch in seconds",
      stability: "ALPHA",
    }),
  };
  const nodeRef = {
    kind: "Node" as const,
    apiVersion: "v1",
    name: deps.nodeName,
    uid: deps.nodeName,
  };

  const acquireInhibitLock = async (bus: ShutdownInhibitor) => {
    const next = await bus.inhibitShutdown();
    lock?.release();
    lock = next;
  };

  const releaseInhibitLock = () => {
    lock?.release();
    lock = undefined;
  };

  /** upstream start(): returns once watching; the connection's end says when to start again. */
  const start = async (): Promise<ShutdownInhibitor> => {
    const bus = await deps.connect();
    try {
      const current = await bus.currentInhibitDelayMs();
      const requested = periodRequestedMs(deps.periods);
      if (requested > current) await raiseInhibitDelay(bus, requested);
      await acquireInhibitLock(bus);
      try {
        await bus.monitorShutdown(onEvent);
      } catch (err) {
        releaseInhibitLock();
        throw new Error(`failed to monitor shutdown: ${errorMessage(err)}`, { cause: err });
      }
      return bus;
    } catch (err) {
      bus.close();
      throw err;
    }
  };

  const raiseInhibitDelay = async (bus: ShutdownInhibitor, requested: number) => {
    try {
      await bus.overrideInhibitDelay(requested);
    } catch (err) {
      throw new Error(
        `unable to override inhibit delay by shutdown manager: ${errorMessage(err)}`,
        {
          cause: err,
        },
      );
    }
    await bus.reloadLogindConf();
    // The reload is asynchronous: read the delay again until it is there.
    let updated = 0;
    for (const [attempt, ms] of RELOAD_BACKOFF_MS.entries()) {
      await deps.clock.sleep(ms);
      updated = await bus.currentInhibitDelayMs();
      if (requested <= updated) return;
      log.debug(3, "InhibitDelayMaxSec still less than requested, retrying", {
        attempt: attempt + 1,
        current: updated,
        requested,
      });
    }
    throw new Error(
      `node shutdown manager was timed out after ${RELOAD_BACKOFF_MS.length} attempts waiting ` +
        `for logind InhibitDelayMaxSec to update to ${requested / 1000}s (ShutdownGracePeriod), ` +
        `current value is ${updated / 1000}s`,
    );
  };

  /** PrepareForShutdown events, handled one at a time as upstream's loop does. */
  const queue: boolean[] = [];
  let wake: () => void = () => {};
  const onEvent = (active: boolean) => {
    queue.push(active);
    wake();
  };

  const handle = async (active: boolean, bus: ShutdownInhibitor, signal: AbortSignal) => {
    log.info("Shutdown manager detected new shutdown event", {
      event: active ? "shutdown" : "cancelled",
    });
    deps.events?.event(
      nodeRef,
      "Normal",
      EVENT_REASON,
      active
        ? "Shutdown manager detected shutdown event"
        : "Shutdown manager detected shutdown cancellation",
    );
    shuttingDown = active;
    if (!active) {
      await acquireInhibitLock(bus).catch((err) =>
        log.error("Cannot take the shutdown inhibitor again", { err: errorMessage(err) })
      );
      return;
    }
    deps.syncNodeStatus?.();
    await processShutdownEvent(signal);
  };

  const processShutdownEvent = async (signal: AbortSignal) => {
    log.info("Shutdown manager processing shutdown event");
    const pods = deps.activePods();
    const started = deps.clock.now();
    await record({ startTime: started }, "start");
    try {
      await killPods(groupByPriority(deps.periods, pods), {
        kill: deps.kill,
        clock: deps.clock,
        logger: log,
        signal,
      });
    } finally {
      releaseInhibitLock();
      log.info("Shutdown manager completed processing shutdown event, node will shutdown shortly");
      await record({ startTime: started, endTime: deps.clock.now() }, "end");
    }
  };

  const record = async (state: ShutdownState, which: "start" | "end") => {
    if (which === "start") {
      gauges?.start.set(Math.floor(state.startTime! / 1000));
      gauges?.end.set(0);
    } else gauges?.end.set(Math.floor(state.endTime! / 1000));
    try {
      await store?.save(state);
    } catch (err) {
      log.error("Failed to store graceful shutdown state", { err: errorMessage(err) });
    }
  };

  const watch = async (bus: ShutdownInhibitor, signal: AbortSignal) => {
    const ended = bus.closed.then(() => "closed" as const);
    const stopped = new Promise<"stopped">((resolve) => {
      if (signal.aborted) resolve("stopped");
      signal.addEventListener("abort", () => resolve("stopped"), { once: true });
    });
    for (;;) {
      while (queue.length > 0) await handle(queue.shift()!, bus, signal);
      const woken = new Promise<"event">((resolve) => wake = () => resolve("event"));
      const why = await Promise.race([woken, ended, stopped]);
      if (why === "closed") {
        log.error("Ended to watching the node for shutdown events");
        return;
      }
      if (why === "stopped") return;
    }
  };

  return {
    async run({ signal }) {
      log.info("Creating node shutdown manager", {
        shutdownGracePeriodByPodPriority: deps.periods,
      });
      const state = await store?.load().catch((err) => {
        log.error("Failed to load graceful shutdown state", { err: errorMessage(err) });
        return undefined;
      });
      if (state?.startTime) gauges?.start.set(Math.floor(state.startTime / 1000));
      if (state?.endTime) gauges?.end.set(Math.floor(state.endTime / 1000));
      let bus: ShutdownInhibitor | undefined;
      try {
        bus = await start();
      } catch (err) {
        log.error("Failed to start node shutdown manager", { err: errorMessage(err) });
        return;
      }
      try {
        for (;;) {
          await watch(bus, signal);
          bus.close();
          bus = undefined;
          // A lost connection is made again a second later, and every second until it works.
          while (!bus) {
            await deps.clock.sleep(RECONNECT_MS, { signal });
            log.info("Restarting watch for node shutdown events");
            try {
              bus = await start();
            } catch (err) {
              log.error("Unable to watch the node for shutdown events", { err: errorMessage(err) });
            }
          }
        }
      } catch (err) {
        if (!signal.aborted) log.error("Node shutdown watch ended", { err: errorMessage(err) });
      } finally {
        bus?.close();
        // The agent stopping is not a shutdown: the inhibitor goes with the process anyway.
        releaseInhibitLock();
      }
    },
    admit() {
      if (!shuttingDown) return { admit: true };
      return {
        admit: false,
        reason: NODE_SHUTDOWN_NOT_ADMITTED_REASON,
        message: NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE,
      };
    },
    shutdownStatus: () => (shuttingDown ? "node is shutting down" : undefined),
  };
}
