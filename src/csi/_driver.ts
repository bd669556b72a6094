/**
 * A registered CSI driver's Node service (and Identity probe) over its socket, as upstream's
 * csiDriverClient calls it: NodeGetInfo at registration, NodeGetCapabilities (asked once per
 * driver, as the answer cannot change while it runs), Stage/Unstage/Publish/Unpublish and
 * NodeGetVolumeStats, each with upstream's 2-minute CSI operation timeout.
 */
import type { Clock } from "../util/clock.ts";
import { Node } from "./_csi_codec.ts";
import { callPlugin, openSocket } from "./_grpc.ts";

/** Upstream csiTimeout for node operations. */
const CSI_TIMEOUT_MS = 2 * 60_000;

type Msg = Record<string, unknown>;

export interface NodeInfo {
  nodeId: string;
  maxVolumesPerNode: number;
  /** Topology segments the driver reports for this node (labels on the Node). */
  topology: Record<string, string>;
}

export interface VolumeUsage {
  available: number;
  total: number;
  used: number;
  unit: "BYTES" | "INODES" | "UNKNOWN";
}

export interface CsiDriverClient {
  readonly name: string;
  /** The driver's socket. */
  readonly endpoint: string;
  nodeGetInfo(opts?: { signal?: AbortSignal }): Promise<NodeInfo>;
  /** The Node service's RPC capabilities (`STAGE_UNSTAGE_VOLUME`, `GET_VOLUME_STATS`, ...). */
  capabilities(opts?: { signal?: AbortSignal }): Promise<Set<string>>;
  /** One Node RPC by name ("NodePublishVolume", ...) with a request in the codec's shape. */
  call<Res = Msg>(rpc: NodeRpc, request: Msg, opts?: { signal?: AbortSignal }): Promise<Res>;
  /** The volume's usage entries (NodeGetVolumeStats). */
  volumeStats(
    req: { volumeId: string; volumePath: string; stagingTargetPath?: string },
    opts?: { signal?: AbortSignal },
  ): Promise<VolumeUsage[]>;
  close(): void;
}

export type NodeRpc =
  | "NodeStageVolume"
  | "NodeUnstageVolume"
  | "NodePublishVolume"
  | "NodeUnpublishVolume"
  | "NodeGetVolumeStats"
  | "NodeGetCapabilities"
  | "NodeGetInfo";

export function createDriverClient(
  name: string,
  endpoint: string,
  deps: { clock: Clock },
): CsiDriverClient {
  const channel = openSocket(endpoint);
  let caps: Promise<Set<string>> | undefined;
  const call = <Res>(rpc: NodeRpc, request: Msg, opts: { signal?: AbortSignal } = {}) =>
    callPlugin<Res>(channel, Node[rpc], request, {
      timeoutMs: CSI_TIMEOUT_MS,
      clock: deps.clock,
      signal: opts.signal,
    });
  return {
    name,
    endpoint,
    call,
    async nodeGetInfo(opts) {
      const res = await call<Msg>("NodeGetInfo", {}, opts);
      const topology = (res.accessibleTopology as { segments?: Record<string, string> } | undefined)
        ?.segments ?? {};
      return {
        nodeId: String(res.nodeId ?? ""),
        maxVolumesPerNode: Number(res.maxVolumesPerNode ?? 0),
        topology,
      };
    },
    capabilities(opts) {
      caps ??= call<{ capabilities?: { rpc?: { type?: string } }[] }>(
        "NodeGetCapabilities",
        {},
        opts,
      ).then(
        (res) =>
          new Set((res.capabilities ?? []).map((c) => c.rpc?.type ?? "").filter((t) => t !== "")),
        (err) => {
          caps = undefined; // asked again next time
          throw err;
        },
      );
      return caps;
    },
    async volumeStats(req, opts) {
      const res = await call<{ usage?: Msg[] }>("NodeGetVolumeStats", {
        volumeId: req.volumeId,
        volumePath: req.volumePath,
        stagingTargetPath: req.stagingTargetPath ?? "",
      }, opts);
      return (res.usage ?? []).map((u) => ({
        available: Number(u.available ?? 0),
        total: Number(u.total ?? 0),
        used: Number(u.used ?? 0),
        unit: (u.unit as VolumeUsage["unit"]) ?? "UNKNOWN",
      }));
    },
    close: () => channel.close(),
  };
}
