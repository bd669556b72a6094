/**
 * CSI support loaded on demand (API mode): nothing of src/csi is imported until a plugin puts
 * a socket in `<root-dir>/plugins_registry` (looked for every few seconds, as cheap as a
 * directory read) or a pod has a CSI volume, or one to tear down. Then the CSI node starts:
 * registration, CSINode entries, mounts. The CSINode object itself is made at start, as
 * upstream's kubelet does, with a small module of its own (src/csi/csinode.ts).
 */
import type { V1Pod, V1Volume } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/types.ts";
import type { CsiNode } from "../csi/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { type PersistentMount, type ResolvedClaim, systemMounter } from "../volumes/mod.ts";

const LOOK_MS = 3_000;

export interface LazyCsiDeps {
  rootDir: string;
  nodeName: string;
  client: ApiClient;
  clock: Clock;
  logger: Logger;
  /** A driver registered or went away. */
  onChange: () => void;
  /** readinessErrors() changed: the node status may be posted again. */
  onReadinessChange?: () => void;
  /** The Node's UID as the agent's watch has it; undefined until the Node is seen. */
  nodeUid: () => string | undefined;
}

export interface LazyCsi {
  persistent(pod: V1Pod, resolved: ResolvedClaim, signal?: AbortSignal): Promise<PersistentMount>;
  inline(pod: V1Pod, volume: V1Volume, signal?: AbortSignal): Promise<string>;
  tearDown(uid: string, signal?: AbortSignal): Promise<void>;
  /**
   * Why the node is not Ready as far as CSI goes (upstream's storage errors): the CSINode not
   * made yet. Never blocks.
   */
  readinessErrors(): string[];
  /**
   * Makes the CSINode; waits for a plugin socket, then runs the CSI node; until the signal
   * aborts. Never rejects.
   */
  run(opts: { signal: AbortSignal }): Promise<void>;
}

export function lazyCsi(deps: LazyCsiDeps): LazyCsi {
  const registryDir = `${deps.rootDir}/plugins_registry`;
  const stop = new AbortController();
  let node: Promise<CsiNode> | undefined;
  let running: Promise<void> | undefined;
  // As upstream, the node is not Ready from the start until the CSINode is there.
  let storageError: string | undefined = "CSINode is not yet initialized";
  const initCsiNode = async (signal: AbortSignal) => {
    const m = await import("../csi/csinode.ts");
    await m.initializeCsiNode({
      client: deps.client,
      nodeName: deps.nodeName,
      clock: deps.clock,
      logger: deps.logger,
      nodeUid: deps.nodeUid,
      onState: (error) => {
        if (error === storageError) return;
        storageError = error;
        deps.onReadinessChange?.();
      },
    }, { signal });
  };
  const load = () =>
    node ??= import("../csi/mod.ts").then((m) => {
      deps.logger.info("Loading CSI support");
      const n = m.createCsiNode({ ...deps, mounter: systemMounter() });
      running = n.run({ signal: stop.signal });
      return n;
    });
  const hasSocket = async () => {
    try {
      for await (const e of Deno.readDir(registryDir)) if (!e.name.startsWith(".")) return true;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    return false;
  };
  return {
    async persistent(pod, resolved, signal) {
      const readOnly = resolved.readOnly || resolved.volume.spec?.csi?.readOnly === true;
      const n = await load();
      const hostPath = await n.mountPersistent(pod, resolved.volume, { readOnly, signal });
      const stats = (opts?: { signal?: AbortSignal }) =>
        n.volumeStats(resolved.volume, hostPath, opts);
      return { hostPath, readOnly, source: "csi", stats };
    },
    async inline(pod, volume, signal) {
      return await (await load()).mountInline(pod, volume.name, volume.csi!, { signal });
    },
    async tearDown(uid, signal) {
      const dir = `${deps.rootDir}/pods/${uid}/volumes/kubernetes.io~csi`;
      const there = await Deno.stat(dir).then(() => true, () => false);
      if (there) await (await load()).tearDownPod(uid, { signal });
    },
    readinessErrors: () => storageError === undefined ? [] : [storageError],
    async run({ signal }) {
      signal.addEventListener("abort", () => stop.abort(), { once: true });
      const plugins = async () => {
        // Upstream's plugin manager makes the directory at start, for registrars to find.
        await Deno.mkdir(registryDir, { recursive: true, mode: 0o750 }).catch((err) =>
          deps.logger.warn("Cannot create the plugin registration directory", { err })
        );
        while (!signal.aborted && node === undefined) {
          if (await hasSocket().catch(() => false)) await load();
          else await deps.clock.sleep(LOOK_MS, { signal }).catch(() => undefined);
        }
        if (node === undefined) return;
        await node;
        await running;
      };
      await Promise.all([initCsiNode(signal), plugins()]);
    },
  };
}
