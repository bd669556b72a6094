/**
 * A CSI driver and its registrar as gRPC servers on unix sockets (the Node, Identity and
 * pluginregistration services with the agent's codecs), recording every call; and an API
 * server for what CSI needs (CSIDriver, VolumeAttachment, CSINode, the Node).
 */
import * as grpc from "@grpc/grpc-js";
import type { ApiClient, ApiRequest } from "../../src/apiclient/mod.ts";
import { ApiError } from "../../src/apiclient/mod.ts";
import { Identity, Node } from "../../src/csi/_csi_codec.ts";
import { Registration } from "../../src/csi/_registration_codec.ts";

type Msg = Record<string, unknown>;

export interface FakeDriverOptions {
  name: string;
  /** Node capabilities (RPC types); default stage/unstage and volume stats. */
  capabilities?: string[];
  versions?: string[];
  /** Makes the target path a real directory (a driver that publishes by bind mount would). */
}

export class FakeCsiDriver {
  readonly calls: { rpc: string; req: Msg }[] = [];
  registration?: Msg;
  readonly #servers: grpc.Server[] = [];

  constructor(readonly opts: FakeDriverOptions) {}

  /** Serves the driver at `driverSocket` and its registrar at `registrarSocket`. */
  async start(driverSocket: string, registrarSocket: string): Promise<void> {
    const record =
      (rpc: string, answer: (req: Msg) => Msg) =>
      (call: { request: Msg }, cb: (err: null, res: Msg) => void) => {
        this.calls.push({ rpc, req: call.request });
        cb(null, answer(call.request));
      };
    const driver = new grpc.Server();
    const caps = this.opts.capabilities ?? ["STAGE_UNSTAGE_VOLUME", "GET_VOLUME_STATS"];
    driver.addService(Node, {
      NodeGetInfo: record("NodeGetInfo", () => ({
        nodeId: "fake-node-id",
        maxVolumesPerNode: 7,
        accessibleTopology: { segments: { "topology.fake.csi/zone": "z1" } },
      })),
      NodeGetCapabilities: record("NodeGetCapabilities", () => ({
        capabilities: caps.map((type) => ({ rpc: { type } })),
      })),
      NodeStageVolume: record("NodeStageVolume", () => ({})),
      NodeUnstageVolume: record("NodeUnstageVolume", () => ({})),
      NodePublishVolume: record("NodePublishVolume", (req) => {
        Deno.mkdirSync(String(req.targetPath), { recursive: true });
        return {};
      }),
      NodeUnpublishVolume: record("NodeUnpublishVolume", () => ({})),
      NodeGetVolumeStats: record("NodeGetVolumeStats", () => ({
        usage: [
          { available: 10, total: 30, used: 20, unit: "BYTES" },
          { available: 7, total: 9, used: 2, unit: "INODES" },
        ],
      })),
    });
    driver.addService(Identity, {
      GetPluginInfo: record("GetPluginInfo", () => ({ name: this.opts.name })),
      GetPluginCapabilities: record("GetPluginCapabilities", () => ({})),
      Probe: record("Probe", () => ({})),
    });
    const registrar = new grpc.Server();
    registrar.addService(Registration, {
      GetInfo: record("GetInfo", () => ({
        type: "CSIPlugin",
        name: this.opts.name,
        endpoint: driverSocket,
        supportedVersions: this.opts.versions ?? ["1.0.0"],
      })),
      NotifyRegistrationStatus: record("NotifyRegistrationStatus", (req) => {
        this.registration = req;
        return {};
      }),
    });
    for (const [server, path] of [[driver, driverSocket], [registrar, registrarSocket]] as const) {
      await new Promise<void>((resolve, reject) =>
        server.bindAsync(
          `unix:${path}`,
          grpc.ServerCredentials.createInsecure(),
          (err) => err ? reject(err) : resolve(),
        )
      );
      this.#servers.push(server);
    }
  }

  rpcs(): string[] {
    return this.calls.map((c) => c.rpc).filter((r) => r !== "NodeGetCapabilities");
  }

  stop(): void {
    for (const s of this.#servers) s.forceShutdown();
  }
}

/** The API objects CSI reads and writes, by path; PUT/POST/PATCH recorded. */
export class FakeCsiApi implements ApiClient {
  readonly server = "https://fake";
  readonly objects = new Map<string, Msg>();
  readonly writes: ApiRequest[] = [];
  /** Paths read, in order. */
  readonly reads: string[] = [];
  /** Set to fail requests (the API server unreachable, ...). */
  fail?: (req: ApiRequest) => Error | undefined;
  request<T>(req: ApiRequest): Promise<T> {
    const failure = this.fail?.(req);
    if (failure) return Promise.reject(failure);
    if (req.method === "GET") this.reads.push(req.path);
    if (req.method !== "GET") {
      this.writes.push(req);
      if (req.method === "DELETE") this.objects.delete(req.path);
      if (req.method === "POST") {
        const body = req.body as { metadata: { name: string } };
        this.objects.set(`${req.path}/${body.metadata.name}`, body as Msg);
      } else if (req.method === "PUT") this.objects.set(req.path, req.body as Msg);
      return Promise.resolve({} as T);
    }
    const o = this.objects.get(req.path);
    if (!o) return Promise.reject(new ApiError(404, "NotFound", `${req.path} not found`));
    return Promise.resolve(structuredClone(o) as T);
  }
  watch(): AsyncIterable<never> {
    throw new Error("no watches");
  }
  close(): void {}
}
