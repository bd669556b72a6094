/** The CRI services denolet calls (RuntimeService, ImageService, streaming) and their call options. */
import type {
  AuthConfig,
  Container,
  ContainerConfig,
  ContainerEvent,
  ContainerFilter,
  ContainerStatus,
  ExecSyncResponse,
  FilesystemUsage,
  Image,
  ImageSpec,
  LinuxContainerResources,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxFilter,
  PodSandboxStatus,
  RuntimeConfigResponse,
  StatusResponse,
  VersionResponse,
} from "./types.ts";
import type {
  ContainerStats,
  ContainerStatsFilter,
  PodSandboxStats,
  PodSandboxStatsFilter,
} from "./_stats_types.ts";

export interface CallOptions {
  /** Aborting cancels the RPC on the wire. */
  signal?: AbortSignal;
  /** Overrides the client's default deadline (--runtime-request-timeout), in ms. */
  timeoutMs?: number;
}

/**
 * CRI RuntimeService. Every call is a single unary RPC with a deadline (the client's default,
 * or `timeoutMs`); aborting `signal` cancels it. Failures are thrown as errors whose chain
 * contains `NotFoundError` for gRPC NOT_FOUND and `RuntimeUnavailableError` when the runtime
 * cannot be reached. Stop/Remove calls are idempotent on the runtime side.
 */
export interface RuntimeService {
  version(opts?: CallOptions): Promise<VersionResponse>;
  /** Creates and starts a sandbox; returns its id. */
  runPodSandbox(
    config: PodSandboxConfig,
    runtimeHandler?: string,
    opts?: CallOptions,
  ): Promise<string>;
  stopPodSandbox(podSandboxId: string, opts?: CallOptions): Promise<void>;
  removePodSandbox(podSandboxId: string, opts?: CallOptions): Promise<void>;
  podSandboxStatus(podSandboxId: string, opts?: CallOptions): Promise<PodSandboxStatus>;
  /**
   * Sandboxes matching `filter`. The items are frozen and may be the same objects as in an
   * earlier answer when they did not change (the client decodes only what changed).
   */
  listPodSandbox(filter?: PodSandboxFilter, opts?: CallOptions): Promise<PodSandbox[]>;
  /** Returns the new container's id. */
  createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
    opts?: CallOptions,
  ): Promise<string>;
  startContainer(containerId: string, opts?: CallOptions): Promise<void>;
  /** Sends the stop signal, then SIGKILL after `timeoutSeconds`. Blocks until the container exits. */
  stopContainer(containerId: string, timeoutSeconds: number, opts?: CallOptions): Promise<void>;
  removeContainer(containerId: string, opts?: CallOptions): Promise<void>;
  /** Containers matching `filter`; frozen items, shared between answers like listPodSandbox's. */
  listContainers(filter?: ContainerFilter, opts?: CallOptions): Promise<Container[]>;
  containerStatus(containerId: string, opts?: CallOptions): Promise<ContainerStatus>;
  execSync(
    containerId: string,
    cmd: string[],
    timeoutSeconds: number,
    opts?: CallOptions,
  ): Promise<ExecSyncResponse>;
  /** The runtime's conditions, and (CRI 1.30+ runtimes) its handlers and features. */
  status(opts?: CallOptions): Promise<StatusResponse>;
  /**
   * The runtime's own configuration (CRI 1.34+: its cgroup driver). Older runtimes reject it
   * with an error for which `isUnimplemented` is true.
   */
  runtimeConfig(opts?: CallOptions): Promise<RuntimeConfigResponse>;
  /** Applies new resource limits to a running container (in-place resize). */
  updateContainerResources(
    containerId: string,
    linux: LinuxContainerResources,
    opts?: CallOptions,
  ): Promise<void>;
  /**
   * Tells the runtime a pod's new resources after an in-place resize (CRI 1.33+), before the
   * pod cgroup changes. Runtimes without it (containerd 1.6, 2.0) reject it with an error for
   * which `isUnimplemented` is true; containerd 2.2 answers "not implemented yet" instead.
   */
  updatePodSandboxResources(
    podSandboxId: string,
    update: { overhead?: LinuxContainerResources; resources?: LinuxContainerResources },
    opts?: CallOptions,
  ): Promise<void>;
  /** Asks the runtime to reopen the container's log file (after rotation). Errors if not running. */
  reopenContainerLog(containerId: string, opts?: CallOptions): Promise<void>;
  /** Stats of one container; NotFoundError if it does not exist. */
  containerStats(containerId: string, opts?: CallOptions): Promise<ContainerStats>;
  /** Stats of the running containers matching `filter`. */
  listContainerStats(filter?: ContainerStatsFilter, opts?: CallOptions): Promise<ContainerStats[]>;
  /**
   * Stats of the ready sandboxes matching `filter`. containerd 1.6 fails the whole call if a
   * matching sandbox has no cgroup parent.
   */
  listPodSandboxStats(
    filter?: PodSandboxStatsFilter,
    opts?: CallOptions,
  ): Promise<PodSandboxStats[]>;
  /**
   * Streams the runtime's container events (CRI GetContainerEvents, read by the evented PLEG) to
   * `onEvent` until `signal` aborts, then resolves. Rejects when the stream fails or ends; a
   * runtime that does not serve it (containerd before 1.7) rejects at once with an error for
   * which `isUnimplemented` is true. `onReady` runs once the runtime has accepted the stream.
   * Optional: fakes and runtimes without events leave it out.
   */
  containerEvents?(
    onEvent: (e: ContainerEvent) => void,
    opts: { signal: AbortSignal; onReady?: () => void },
  ): Promise<void>;
}

/** Which streams an exec or attach session carries (CRI ExecRequest/AttachRequest). */
export interface StreamFlags {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  /** With a TTY there is no separate stderr: the runtime merges it into stdout. */
  tty: boolean;
}

/**
 * The CRI's streaming calls: each prepares a session on the runtime's streaming server and
 * returns its one-shot URL, to which the caller then connects (or proxies a client's upgraded
 * connection). Same error and cancellation contract as RuntimeService.
 */
export interface StreamingService {
  exec(containerId: string, cmd: string[], flags: StreamFlags, opts?: CallOptions): Promise<string>;
  attach(containerId: string, flags: StreamFlags, opts?: CallOptions): Promise<string>;
  portForward(podSandboxId: string, ports: number[], opts?: CallOptions): Promise<string>;
}

/** CRI ImageService. Same error and cancellation contract as RuntimeService. */
export interface ImageService {
  listImages(opts?: CallOptions): Promise<Image[]>;
  /** Returns undefined when the image is not present. */
  imageStatus(image: ImageSpec, opts?: CallOptions): Promise<Image | undefined>;
  /**
   * Returns the image reference (usually the digest/id) of the pulled image. `opts.auth`: the
   * registry credentials to pull with; anonymous without.
   */
  pullImage(
    image: ImageSpec,
    sandboxConfig?: PodSandboxConfig,
    opts?: CallOptions & { auth?: AuthConfig },
  ): Promise<string>;
  removeImage(image: ImageSpec, opts?: CallOptions): Promise<void>;
  imageFsInfo(opts?: CallOptions): Promise<FilesystemUsage[]>;
}
