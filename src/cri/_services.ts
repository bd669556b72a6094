/**
 * RuntimeService and ImageService over a gRPC channel: each method is one line mapping its
 * arguments to the request and the response to the result; `unary` does the rest.
 */
import type * as grpc from "@grpc/grpc-js";
import type {
  CallOptions,
  Container,
  ContainerEvent,
  ContainerStats,
  ContainerStatus,
  ExecSyncResponse,
  FilesystemUsage,
  Image,
  ImageService,
  PodSandbox,
  PodSandboxStats,
  PodSandboxStatus,
  RuntimeConfigResponse,
  RuntimeService,
  StatusResponse,
  StreamingService,
  VersionResponse,
} from "./types.ts";
import { DenoletError } from "../util/errors.ts";
import { criServices, type MethodDef } from "./_proto.ts";
import { serverStream, unary, type UnaryDeps } from "./_unary.ts";
import { decodeContainer, decodePodSandbox } from "./_codec.ts";
import { ListDecoder } from "./_list_decoder.ts";

/** The kubelet's CRI client version string sent in VersionRequest. */
const KUBELET_API_VERSION = "0.1.0";

export interface ServiceDeps extends UnaryDeps {
  channel: grpc.Client;
  /** Default deadline (--runtime-request-timeout) in ms. */
  timeoutMs: number;
}

/** A call's deadline: ms, or "none" for calls only cancellation may end (image pulls). */
type Deadline = number | "none";

type Caller = <Res>(
  rpc: string,
  req: unknown,
  o?: CallOptions,
  deadline?: Deadline,
) => Promise<Res>;

function caller(deps: ServiceDeps, defs: Record<string, unknown>): Caller {
  return <Res>(rpc: string, req: unknown, o?: CallOptions, deadline: Deadline = deps.timeoutMs) => {
    const def = defs[rpc] as MethodDef | undefined;
    if (!def) {
      return Promise.reject(
        new DenoletError(`CRI method ${rpc} is not in proto/runtime/v1/api.proto`),
      );
    }
    const dflt = deadline === "none" ? undefined : deadline;
    return unary<Res>(deps.channel, def, req, {
      deps,
      signal: o?.signal,
      timeoutMs: o?.timeoutMs ?? dflt,
    });
  };
}

/** Like the kubelet: calls that wait on the container get its timeout on top of the default. */
function plus(deps: ServiceDeps, seconds: number): number {
  return deps.timeoutMs + seconds * 1000;
}

/**
 * The runtime's definitions with list responses decoded by `ListDecoder`: the items that are
 * byte for byte those of a recent list come back as the same frozen objects, undecoded.
 */
function runtimeDefs(): Record<string, MethodDef> {
  const defs = { ...criServices().runtime } as Record<string, MethodDef>;
  // Container: labels = 8, annotations = 9; PodSandbox: labels = 5, annotations = 6 (api.proto).
  const containers = new ListDecoder(1, decodeContainer, { mapFields: [8, 9] });
  const sandboxes = new ListDecoder(1, decodePodSandbox, { mapFields: [5, 6] });
  defs.ListContainers = {
    ...defs.ListContainers,
    responseDeserialize: (b: Uint8Array) => ({ containers: containers.decode(b) }),
  };
  defs.ListPodSandbox = {
    ...defs.ListPodSandbox,
    responseDeserialize: (b: Uint8Array) => ({ items: sandboxes.decode(b) }),
  };
  return defs;
}

export function runtimeService(deps: ServiceDeps): RuntimeService {
  const defs = runtimeDefs();
  const call = caller(deps, defs);
  return {
    version: (o) => call<VersionResponse>("Version", { version: KUBELET_API_VERSION }, o),
    runPodSandbox: async (config, runtimeHandler, o) =>
      (await call<{ podSandboxId: string }>("RunPodSandbox", {
        config,
        runtimeHandler: runtimeHandler ?? "",
      }, o)).podSandboxId,
    stopPodSandbox: async (podSandboxId, o) => {
      await call("StopPodSandbox", { podSandboxId }, o);
    },
    removePodSandbox: async (podSandboxId, o) => {
      await call("RemovePodSandbox", { podSandboxId }, o);
    },
    podSandboxStatus: async (podSandboxId, o) =>
      (await call<{ status: PodSandboxStatus }>("PodSandboxStatus", { podSandboxId }, o)).status,
    listPodSandbox: async (filter, o) =>
      (await call<{ items: PodSandbox[] }>("ListPodSandbox", { filter }, o)).items,
    createContainer: async (podSandboxId, config, sandboxConfig, o) =>
      (await call<{ containerId: string }>("CreateContainer", {
        podSandboxId,
        config,
        sandboxConfig,
      }, o)).containerId,
    startContainer: async (containerId, o) => {
      await call("StartContainer", { containerId }, o);
    },
    stopContainer: async (containerId, timeout, o) => {
      await call("StopContainer", { containerId, timeout }, o, plus(deps, timeout));
    },
    removeContainer: async (containerId, o) => {
      await call("RemoveContainer", { containerId }, o);
    },
    listContainers: async (filter, o) =>
      (await call<{ containers: Container[] }>("ListContainers", { filter }, o)).containers,
    containerStatus: async (containerId, o) =>
      (await call<{ status: ContainerStatus }>("ContainerStatus", { containerId }, o)).status,
    // timeout 0 means "run forever" in CRI, so the kubelet sets no deadline either.
    execSync: (containerId, cmd, timeout, o) =>
      call<ExecSyncResponse>(
        "ExecSync",
        { containerId, cmd, timeout },
        o,
        timeout > 0 ? plus(deps, timeout) : "none",
      ),
    status: (o) => call<StatusResponse>("Status", {}, o),
    runtimeConfig: (o) => call<RuntimeConfigResponse>("RuntimeConfig", {}, o),
    updateContainerResources: async (containerId, linux, o) => {
      await call("UpdateContainerResources", { containerId, linux, annotations: {} }, o);
    },
    updatePodSandboxResources: async (podSandboxId, update, o) => {
      await call("UpdatePodSandboxResources", { podSandboxId, ...update }, o);
    },
    reopenContainerLog: async (containerId, o) => {
      await call("ReopenContainerLog", { containerId }, o);
    },
    containerStats: async (containerId, o) =>
      (await call<{ stats: ContainerStats }>("ContainerStats", { containerId }, o)).stats,
    listContainerStats: async (filter, o) =>
      (await call<{ stats: ContainerStats[] }>("ListContainerStats", { filter }, o)).stats,
    listPodSandboxStats: async (filter, o) =>
      (await call<{ stats: PodSandboxStats[] }>("ListPodSandboxStats", { filter }, o)).stats,
    containerEvents: (onEvent, o) =>
      serverStream<ContainerEvent>(deps.channel, defs.GetContainerEvents, {}, {
        deps,
        signal: o.signal,
        onMessage: onEvent,
        onReady: o.onReady,
      }),
  };
}

/** Exec, Attach and PortForward share RuntimeService's channel and definitions. */
export function streamingService(deps: ServiceDeps): StreamingService {
  const call = caller(deps, criServices().runtime);
  return {
    exec: async (containerId, cmd, f, o) =>
      (await call<{ url: string }>("Exec", { containerId, cmd, ...f }, o)).url,
    attach: async (containerId, f, o) =>
      (await call<{ url: string }>("Attach", { containerId, ...f }, o)).url,
    portForward: async (podSandboxId, port, o) =>
      (await call<{ url: string }>("PortForward", { podSandboxId, port }, o)).url,
  };
}

export function imageService(deps: ServiceDeps): ImageService {
  const call = caller(deps, criServices().image);
  return {
    listImages: async (o) => (await call<{ images: Image[] }>("ListImages", {}, o)).images,
    imageStatus: async (image, o) =>
      (await call<{ image?: Image }>("ImageStatus", { image }, o)).image,
    // Pulls take as long as the registry needs; the kubelet gives them no deadline either.
    pullImage: async (image, sandboxConfig, o) =>
      (await call<{ imageRef: string }>(
        "PullImage",
        { image, auth: o?.auth, sandboxConfig },
        o,
        "none",
      )).imageRef,
    removeImage: async (image, o) => {
      await call("RemoveImage", { image }, o);
    },
    imageFsInfo: async (o) =>
      (await call<{ imageFilesystems: FilesystemUsage[] }>("ImageFsInfo", {}, o))
        .imageFilesystems,
  };
}
