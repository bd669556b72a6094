/**
 * An in-memory CRI runtime for unit tests: `FakeRuntime implements RuntimeService, ImageService`.
 *
 * Behaviour (modelled on containerd 1.6's CRI plugin):
 * - runPodSandbox: new sandbox SANDBOX_READY; an IP 10.85.x.y unless the network namespace is
 *   NODE (then `network.ip` is ""). The same metadata (name, uid, namespace, attempt) twice is
 *   refused ("name is reserved"), like the real one.
 * - stopPodSandbox: unknown id → NotFoundError; otherwise running containers exit with
 *   `stopExitCode` and the sandbox becomes SANDBOX_NOTREADY. Repeated stops are fine.
 * - removePodSandbox: unknown id is a no-op; otherwise stops, then removes it and its containers.
 * - createContainer: the sandbox must exist (NotFoundError) and be ready; the image must be
 *   present (NotFoundError); (name, attempt) must be unique in the sandbox. State CONTAINER_CREATED.
 * - startContainer: CREATED → RUNNING (anything else is an error).
 * - stopContainer: RUNNING → EXITED with `stopExitCode` (137, reason "Error"); otherwise a no-op.
 * - removeContainer: unknown id is a no-op; a running container is killed first.
 * - exitContainer(id, code): what a test calls to make a running container exit by itself
 *   (reason "Completed" for 0, "Error" otherwise, or as given, e.g. "OOMKilled").
 * - execSync: container must be running; answers from `execHandler` (default exit 0, no output).
 * - Images: `addImage(ref)` preloads one; pullImage succeeds for any name not in `pullErrors`
 *   and returns the image id; names are normalised like containerd ("busybox" →
 *   "docker.io/library/busybox:latest"). removeImage of an unknown image is a no-op.
 * - Every call is recorded in `calls` (method and arguments) before anything else happens.
 *   `unavailable = true` makes every call throw RuntimeUnavailableError; `failNext(method, err)`
 *   makes the next call of that method throw `err` (queued per method).
 * - Results are copies: mutating them does not change the fake's state.
 * Times come from the injected clock (default a FakeClock) as nanoseconds.
 */
import type {
  AuthConfig,
  CallOptions,
  Container,
  ContainerConfig,
  ContainerFilter,
  ContainerStats,
  ContainerStatsFilter,
  ContainerStatus,
  ExecSyncResponse,
  FilesystemUsage,
  Image,
  ImageService,
  ImageSpec,
  Labels,
  LinuxContainerResources,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxFilter,
  PodSandboxStats,
  PodSandboxStatsFilter,
  PodSandboxStatus,
  RuntimeConfigResponse,
  RuntimeFeatures,
  RuntimeHandler,
  RuntimeService,
  RuntimeStatus,
  StatusResponse,
  VersionResponse,
} from "../../src/cri/types.ts";
import { type Clock, FakeClock } from "../../src/util/clock.ts";
import { DenoletError, NotFoundError, RuntimeUnavailableError } from "../../src/util/errors.ts";
import { FakeImageStore, normalizeImageRef } from "./_fake_cri_images.ts";

export { normalizeImageRef };

export type FakeMethod = keyof RuntimeService | keyof ImageService;

export interface FakeSandbox {
  status: PodSandboxStatus;
  config: PodSandboxConfig;
}

export interface FakeContainer {
  status: ContainerStatus;
  podSandboxId: string;
  config: ContainerConfig;
}

export interface FakeCall {
  method: FakeMethod;
  args: unknown[];
}

export interface FakeRuntimeOptions {
  clock?: Clock;
}

export class FakeRuntime implements RuntimeService, ImageService {
  readonly sandboxes = new Map<string, FakeSandbox>();
  readonly containers = new Map<string, FakeContainer>();
  /** Keyed by image id. */
  readonly images: Map<string, Image>;
  readonly calls: FakeCall[] = [];
  /** When true every call throws RuntimeUnavailableError (the socket is gone). */
  unavailable = false;
  /** Exit code of a container killed by stopContainer / stopPodSandbox. */
  stopExitCode = 137;
  /** Image (normalised or as given) → error thrown by pullImage. */
  readonly pullErrors = new Map<string, Error>();
  /**
   * Private registries: normalised name prefix (`reg.example.com:5000/`) → the username and
   * password a pull needs; other credentials fail as containerd reports a 401 (gRPC Unknown).
   */
  readonly privateRegistries = new Map<string, { username: string; password: string }>();
  /** Memory usage (bytes) containerStats reports, by container id; 0 when absent. */
  readonly memoryUsage = new Map<string, number>();
  /** Answers execSync; default exit 0 with empty output. */
  execHandler: (containerId: string, cmd: string[]) => ExecSyncResponse = () => ({
    stdout: new Uint8Array(),
    stderr: new Uint8Array(),
    exitCode: 0,
  });
  /** Returned by status(); tests flip conditions (e.g. NetworkReady false). */
  runtimeStatus: RuntimeStatus = {
    conditions: [
      { type: "RuntimeReady", status: true, reason: "", message: "" },
      { type: "NetworkReady", status: true, reason: "", message: "" },
    ],
  };
  /** Returned by status(): the handlers the fake serves (containerd 2's shape by default). */
  runtimeHandlers: RuntimeHandler[] = [
    { name: "", features: { recursiveReadOnlyMounts: true, userNamespaces: true } },
    { name: "runc", features: { recursiveReadOnlyMounts: true, userNamespaces: true } },
  ];
  runtimeFeatures: RuntimeFeatures = {
    supplementalGroupsPolicy: true,
    userNamespacesHostNetwork: false,
    mountOptions: false,
  };
  runtimeConfigResponse: RuntimeConfigResponse = { linux: { cgroupDriver: "CGROUPFS" } };

  readonly #clock: Clock;
  readonly #images = new FakeImageStore();
  readonly #failures = new Map<FakeMethod, Error[]>();
  #seq = 0;
  #ipSeq = 0;

  constructor(opts: FakeRuntimeOptions = {}) {
    this.#clock = opts.clock ?? new FakeClock();
    this.images = this.#images.byId;
  }

  // ---- test controls ----

  /** The next call of `method` throws `err` (errors queue up per method). */
  failNext(method: FakeMethod, err: Error = new DenoletError(`CRI ${method} failed: injected`)) {
    const q = this.#failures.get(method) ?? [];
    q.push(err);
    this.#failures.set(method, q);
  }

  /** Arguments of every recorded call to `method`, oldest first. */
  callsTo(method: FakeMethod): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  /** Makes a running container exit by itself, as if its process ended. */
  exitContainer(id: string, exitCode: number, opts: { reason?: string; message?: string } = {}) {
    const c = this.#container(id);
    if (c.status.state !== "CONTAINER_RUNNING") {
      throw new DenoletError(`Cannot exit container ${id}: it is ${c.status.state}`);
    }
    this.#finish(c, exitCode, opts.reason, opts.message);
  }

  /** Preloads an image; returns its id. */
  addImage(ref: string, opts: { id?: string; size?: number; pinned?: boolean } = {}): string {
    return this.#images.add(ref, opts);
  }

  // ---- RuntimeService ----

  version(opts?: CallOptions): Promise<VersionResponse> {
    return this.#call("version", [opts], () => ({
      version: "0.1.0",
      runtimeName: "fake",
      runtimeVersion: "1.6.0-fake",
      runtimeApiVersion: "v1",
    }));
  }

  runPodSandbox(config: PodSandboxConfig, runtimeHandler?: string, opts?: CallOptions) {
    return this.#call("runPodSandbox", [config, runtimeHandler, opts], () => {
      const m = config.metadata;
      for (const s of this.sandboxes.values()) {
        const o = s.status.metadata;
        if (
          o.name === m.name && o.uid === m.uid && o.namespace === m.namespace &&
          o.attempt === m.attempt
        ) {
          throw new DenoletError(
            `CRI RunPodSandbox failed: name "${m.name}_${m.namespace}_${m.uid}_${m.attempt}" is reserved for "${s.status.id}"`,
          );
        }
      }
      const id = this.#nextId("a");
      const hostNetwork = config.linux?.securityContext?.namespaceOptions?.network === "NODE";
      this.sandboxes.set(id, {
        config: structuredClone(config),
        status: {
          id,
          metadata: { ...m },
          state: "SANDBOX_READY",
          createdAt: this.#nowNs(),
          network: { ip: hostNetwork ? "" : this.#nextIp(), additionalIps: [] },
          linux: {
            namespaces: {
              options: {
                network: hostNetwork ? "NODE" : "POD",
                pid: config.linux?.securityContext?.namespaceOptions?.pid ?? "POD",
                ipc: config.linux?.securityContext?.namespaceOptions?.ipc ?? "POD",
              },
            },
          },
          labels: { ...config.labels },
          annotations: { ...config.annotations },
          runtimeHandler: runtimeHandler ?? "",
        },
      });
      return id;
    });
  }

  stopPodSandbox(podSandboxId: string, opts?: CallOptions): Promise<void> {
    return this.#call("stopPodSandbox", [podSandboxId, opts], () => {
      this.#stopSandbox(this.#sandbox(podSandboxId));
    });
  }

  removePodSandbox(podSandboxId: string, opts?: CallOptions): Promise<void> {
    return this.#call("removePodSandbox", [podSandboxId, opts], () => {
      const s = this.sandboxes.get(podSandboxId);
      if (!s) return;
      this.#stopSandbox(s);
      for (const [id, c] of this.containers) {
        if (c.podSandboxId === podSandboxId) this.containers.delete(id);
      }
      this.sandboxes.delete(podSandboxId);
    });
  }

  podSandboxStatus(podSandboxId: string, opts?: CallOptions): Promise<PodSandboxStatus> {
    return this.#call("podSandboxStatus", [podSandboxId, opts], () => {
      return this.#sandbox(podSandboxId).status;
    });
  }

  listPodSandbox(filter?: PodSandboxFilter, opts?: CallOptions): Promise<PodSandbox[]> {
    return this.#call("listPodSandbox", [filter, opts], () =>
      [...this.sandboxes.values()]
        .map((s) => s.status)
        .filter((s) =>
          (!filter?.id || s.id.startsWith(filter.id)) &&
          (!filter?.state || s.state === filter.state.state) &&
          labelsMatch(s.labels, filter?.labelSelector)
        )
        .map(({ network: _n, linux: _l, ...rest }) => rest));
  }

  createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
    opts?: CallOptions,
  ): Promise<string> {
    return this.#call("createContainer", [podSandboxId, config, sandboxConfig, opts], () => {
      const s = this.#sandbox(podSandboxId);
      if (s.status.state !== "SANDBOX_READY") {
        throw new DenoletError(
          `CRI CreateContainer failed: sandbox container "${podSandboxId}" is not running`,
        );
      }
      const image = this.#images.find(config.image.image);
      if (!image) {
        throw new NotFoundError(
          `CRI CreateContainer failed: failed to resolve image "${config.image.image}": not found`,
        );
      }
      for (const c of this.containers.values()) {
        const m = c.status.metadata;
        if (
          c.podSandboxId === podSandboxId && m.name === config.metadata.name &&
          m.attempt === config.metadata.attempt
        ) {
          throw new DenoletError(
            `CRI CreateContainer failed: name "${m.name}" attempt ${m.attempt} is reserved for "${c.status.id}"`,
          );
        }
      }
      const id = this.#nextId("c");
      const logDir = sandboxConfig.logDirectory ?? s.config.logDirectory ?? "";
      this.containers.set(id, {
        podSandboxId,
        config: structuredClone(config),
        status: {
          id,
          metadata: { ...config.metadata },
          state: "CONTAINER_CREATED",
          createdAt: this.#nowNs(),
          startedAt: 0,
          finishedAt: 0,
          exitCode: 0,
          image: { image: config.image.image },
          imageRef: image.id,
          reason: "",
          message: "",
          labels: { ...config.labels },
          annotations: { ...config.annotations },
          mounts: structuredClone(config.mounts ?? []),
          logPath: config.logPath ? joinPath(logDir, config.logPath) : "",
          ...(config.linux?.resources
            ? { resources: { linux: structuredClone(config.linux.resources) } }
            : {}),
        },
      });
      return id;
    });
  }

  startContainer(containerId: string, opts?: CallOptions): Promise<void> {
    return this.#call("startContainer", [containerId, opts], () => {
      const c = this.#container(containerId);
      if (c.status.state !== "CONTAINER_CREATED") {
        throw new DenoletError(
          `CRI StartContainer failed: container "${containerId}" is in ${c.status.state} state`,
        );
      }
      if (this.sandboxes.get(c.podSandboxId)?.status.state !== "SANDBOX_READY") {
        throw new DenoletError(
          `CRI StartContainer failed: sandbox container "${c.podSandboxId}" is not running`,
        );
      }
      c.status.state = "CONTAINER_RUNNING";
      c.status.startedAt = this.#nowNs();
    });
  }

  stopContainer(containerId: string, timeoutSeconds: number, opts?: CallOptions): Promise<void> {
    return this.#call("stopContainer", [containerId, timeoutSeconds, opts], () => {
      const c = this.#container(containerId);
      if (c.status.state === "CONTAINER_RUNNING") this.#finish(c, this.stopExitCode);
    });
  }

  removeContainer(containerId: string, opts?: CallOptions): Promise<void> {
    return this.#call("removeContainer", [containerId, opts], () => {
      const c = this.containers.get(containerId);
      if (!c) return;
      if (c.status.state === "CONTAINER_RUNNING") this.#finish(c, this.stopExitCode);
      this.containers.delete(containerId);
    });
  }

  listContainers(filter?: ContainerFilter, opts?: CallOptions): Promise<Container[]> {
    return this.#call("listContainers", [filter, opts], () =>
      [...this.containers.values()]
        .filter(({ status: s, podSandboxId }) =>
          (!filter?.id || s.id.startsWith(filter.id)) &&
          (!filter?.podSandboxId || podSandboxId.startsWith(filter.podSandboxId)) &&
          (!filter?.state || s.state === filter.state.state) &&
          labelsMatch(s.labels, filter?.labelSelector)
        )
        .map(({ status: s, podSandboxId }) => ({
          id: s.id,
          podSandboxId,
          metadata: s.metadata,
          image: s.image,
          imageRef: s.imageRef,
          state: s.state,
          createdAt: s.createdAt,
          labels: s.labels,
          annotations: s.annotations,
        })));
  }

  containerStatus(containerId: string, opts?: CallOptions): Promise<ContainerStatus> {
    return this.#call("containerStatus", [containerId, opts], () => {
      return this.#container(containerId).status;
    });
  }

  execSync(containerId: string, cmd: string[], timeoutSeconds: number, opts?: CallOptions) {
    return this.#call("execSync", [containerId, cmd, timeoutSeconds, opts], () => {
      this.#running(containerId, "ExecSync");
      return this.execHandler(containerId, cmd);
    });
  }

  status(opts?: CallOptions): Promise<StatusResponse> {
    return this.#call("status", [opts], () => ({
      status: this.runtimeStatus,
      runtimeHandlers: this.runtimeHandlers,
      features: this.runtimeFeatures,
    }));
  }

  runtimeConfig(opts?: CallOptions): Promise<RuntimeConfigResponse> {
    return this.#call("runtimeConfig", [opts], () => this.runtimeConfigResponse);
  }

  updateContainerResources(
    containerId: string,
    linux: LinuxContainerResources,
    opts?: CallOptions,
  ): Promise<void> {
    return this.#call("updateContainerResources", [containerId, linux, opts], () => {
      const c = this.#container(containerId);
      c.config = { ...c.config, linux: { ...c.config.linux, resources: linux } };
      // As containerd: the status reports the resources applied.
      c.status.resources = { linux: structuredClone(linux) };
    });
  }

  /** As containerd 1.6 and 2.0 by default: the RPC is not served (gRPC UNIMPLEMENTED). */
  updatePodSandboxResourcesServed = false;

  updatePodSandboxResources(
    podSandboxId: string,
    update: { overhead?: LinuxContainerResources; resources?: LinuxContainerResources },
    opts?: CallOptions,
  ): Promise<void> {
    return this.#call("updatePodSandboxResources", [podSandboxId, update, opts], () => {
      if (!this.updatePodSandboxResourcesServed) {
        throw Object.assign(new DenoletError("CRI UpdatePodSandboxResources: unimplemented"), {
          code: 12,
        });
      }
      this.#sandbox(podSandboxId);
    });
  }

  reopenContainerLog(containerId: string, opts?: CallOptions): Promise<void> {
    return this.#call("reopenContainerLog", [containerId, opts], () => {
      this.#running(containerId, "ReopenContainerLog");
    });
  }

  containerStats(containerId: string, opts?: CallOptions): Promise<ContainerStats> {
    return this.#call("containerStats", [containerId, opts], () => {
      return this.#stats(this.#container(containerId));
    });
  }

  listContainerStats(filter?: ContainerStatsFilter, opts?: CallOptions) {
    return this.#call("listContainerStats", [filter, opts], () =>
      [...this.containers.values()]
        .filter((c) =>
          c.status.state === "CONTAINER_RUNNING" &&
          (!filter?.id || c.status.id.startsWith(filter.id)) &&
          (!filter?.podSandboxId || c.podSandboxId.startsWith(filter.podSandboxId)) &&
          labelsMatch(c.status.labels, filter?.labelSelector)
        )
        .map((c) => this.#stats(c)));
  }

  listPodSandboxStats(filter?: PodSandboxStatsFilter, opts?: CallOptions) {
    return this.#call(
      "listPodSandboxStats",
      [filter, opts],
      (): PodSandboxStats[] =>
        [...this.sandboxes.values()]
          .filter(({ status: s }) =>
            s.state === "SANDBOX_READY" && (!filter?.id || s.id.startsWith(filter.id)) &&
            labelsMatch(s.labels, filter?.labelSelector)
          )
          .map(({ status: s }) => {
            const ts = this.#nowNs();
            const containers = [...this.containers.values()]
              .filter((c) => c.podSandboxId === s.id && c.status.state === "CONTAINER_RUNNING")
              .map((c) => this.#stats(c));
            return {
              attributes: {
                id: s.id,
                metadata: s.metadata,
                labels: s.labels,
                annotations: s.annotations,
              },
              linux: {
                cpu: {
                  timestamp: ts,
                  usageCoreNanoSeconds: { value: 0 },
                  usageNanoCores: { value: 0 },
                },
                memory: { timestamp: ts, workingSetBytes: { value: 0 }, usageBytes: { value: 0 } },
                containers,
              },
            };
          }),
    );
  }

  // ---- ImageService ----

  listImages(opts?: CallOptions): Promise<Image[]> {
    return this.#call("listImages", [opts], () => [...this.images.values()]);
  }

  imageStatus(image: ImageSpec, opts?: CallOptions): Promise<Image | undefined> {
    return this.#call("imageStatus", [image, opts], () => this.#images.find(image.image));
  }

  pullImage(
    image: ImageSpec,
    sandboxConfig?: PodSandboxConfig,
    opts?: CallOptions & { auth?: AuthConfig },
  ) {
    return this.#call("pullImage", [image, sandboxConfig, opts], () => {
      const err = this.pullErrors.get(image.image) ??
        this.pullErrors.get(normalizeImageRef(image.image));
      if (err) throw err;
      const name = normalizeImageRef(image.image);
      for (const [prefix, want] of this.privateRegistries) {
        if (!name.startsWith(prefix)) continue;
        const auth = opts?.auth;
        if (auth?.username !== want.username || auth?.password !== want.password) {
          const details = `failed to pull and unpack image "${name}": failed to resolve ` +
            `reference "${name}": unexpected status from HEAD request: 401 Unauthorized`;
          // What the CRI client throws: its own message, the gRPC error as the cause.
          throw new DenoletError(`CRI PullImage failed: ${details}`, {
            cause: Object.assign(new Error(details), { code: 2, details }),
          });
        }
      }
      return this.#images.add(image.image);
    });
  }

  removeImage(image: ImageSpec, opts?: CallOptions): Promise<void> {
    return this.#call("removeImage", [image, opts], () => this.#images.remove(image.image));
  }

  imageFsInfo(opts?: CallOptions): Promise<FilesystemUsage[]> {
    return this.#call("imageFsInfo", [opts], () => this.#images.fsUsage(this.#nowNs()));
  }

  // ---- internals ----

  /** Records the call, applies fault injection, runs `fn` and returns a copy of its result. */
  #call<T>(method: FakeMethod, args: unknown[], fn: () => T): Promise<T> {
    this.calls.push({ method, args });
    const signal = (args.at(-1) as CallOptions | undefined)?.signal;
    try {
      if (signal?.aborted) throw signal.reason;
      if (this.unavailable) {
        throw new RuntimeUnavailableError(`CRI ${method} failed: connection refused`);
      }
      const injected = this.#failures.get(method)?.shift();
      if (injected) throw injected;
      const result = fn();
      return Promise.resolve(result === undefined ? result : structuredClone(result));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  #sandbox(id: string): FakeSandbox {
    const s = this.sandboxes.get(id);
    if (!s) throw new NotFoundError(`CRI: sandbox "${id}" not found`);
    return s;
  }

  #container(id: string): FakeContainer {
    const c = this.containers.get(id);
    if (!c) throw new NotFoundError(`CRI: container "${id}" not found`);
    return c;
  }

  #running(id: string, rpc: string): FakeContainer {
    const c = this.#container(id);
    if (c.status.state !== "CONTAINER_RUNNING") {
      throw new DenoletError(`CRI ${rpc} failed: container "${id}" is in ${c.status.state} state`);
    }
    return c;
  }

  #stopSandbox(s: FakeSandbox) {
    for (const c of this.containers.values()) {
      if (c.podSandboxId === s.status.id && c.status.state === "CONTAINER_RUNNING") {
        this.#finish(c, this.stopExitCode);
      }
    }
    s.status.state = "SANDBOX_NOTREADY";
  }

  #finish(c: FakeContainer, exitCode: number, reason?: string, message?: string) {
    c.status.state = "CONTAINER_EXITED";
    c.status.finishedAt = this.#nowNs();
    c.status.exitCode = exitCode;
    c.status.reason = reason ?? (exitCode === 0 ? "Completed" : "Error");
    c.status.message = message ?? "";
  }

  #stats(c: FakeContainer): ContainerStats {
    const ts = this.#nowNs();
    const s = c.status;
    return {
      attributes: { id: s.id, metadata: s.metadata, labels: s.labels, annotations: s.annotations },
      cpu: { timestamp: ts, usageCoreNanoSeconds: { value: 0 }, usageNanoCores: { value: 0 } },
      memory: {
        timestamp: ts,
        workingSetBytes: { value: 0 },
        usageBytes: { value: this.memoryUsage.get(s.id) ?? 0 },
      },
      writableLayer: { timestamp: ts, usedBytes: { value: 0 }, inodesUsed: { value: 0 } },
    };
  }

  #nextId(prefix: string): string {
    this.#seq++;
    return prefix + this.#seq.toString(16).padStart(63, "0");
  }

  #nextIp(): string {
    this.#ipSeq++;
    return `10.85.${Math.floor(this.#ipSeq / 254)}.${(this.#ipSeq % 254) + 1}`;
  }

  #nowNs(): number {
    return this.#clock.now() * 1_000_000;
  }
}

function labelsMatch(labels: Labels, selector?: Labels): boolean {
  return Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);
}

function joinPath(dir: string, rel: string): string {
  if (!dir) return rel;
  return dir.endsWith("/") ? dir + rel : `${dir}/${rel}`;
}
