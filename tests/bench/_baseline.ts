/**
 * The baseline: the runtime's own cost for the benchmark's pods. A bare CRI client (the same
 * grpc-js client the agent uses) makes, per pod, exactly the calls on the agent's start path —
 * RunPodSandbox, PodSandboxStatus (for the pod IP), ImageStatus (imagePullPolicy
 * IfNotPresent), CreateContainer, StartContainer — and for teardown StopContainer,
 * StopPodSandbox, RemoveContainer, RemovePodSandbox, with the pods in parallel as the agent's
 * pod workers run them. Nothing else: no relist, no status, no sources.
 *
 * The configs are the agent's own (same builders, same static pod defaulting), built before
 * the clock starts, so the runtime does the same work for both; the agent's cost of building
 * them is part of what the ratio shows. The etc-hosts file is written with a placeholder IP
 * at preparation time, as the pod IP is only known after the sandbox exists; its content does
 * not change the runtime's work.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type {
  ContainerConfig,
  ImageService,
  PodSandboxConfig,
  RuntimeService,
} from "../../src/cri/types.ts";
import { buildContainerConfig } from "../../src/runtime/_container_config.ts";
import { buildSandboxConfig, parseResolvConf } from "../../src/runtime/_sandbox_config.ts";
import { staticPodFromManifest } from "../../src/sources/mod.ts";
import { podDir } from "../../src/volumes/mod.ts";
import { manifest } from "./_pods.ts";

export interface BaselineDeps {
  runtime: RuntimeService;
  image: ImageService;
  /** Node name for the pods' name suffix, distinct from the agent's. */
  node: string;
  /** Holds the pods' directories (etc-hosts, termination files) and logs. */
  workDir: string;
  /** The pause-like image every pod runs. */
  podImage: string;
}

/** One pod ready to start: everything the calls need, built ahead of time. */
export interface PreparedPod {
  name: string;
  sandboxConfig: PodSandboxConfig;
  containerConfig: ContainerConfig;
}

/** What the baseline ran for one pod, for teardown. */
export interface StartedPod {
  name: string;
  sandboxId: string;
  containerId: string;
}

/** Same grace period as the manifest's terminationGracePeriodSeconds. */
const GRACE_SECONDS = 2;
const PLACEHOLDER_IP = "10.255.255.254";

export class Baseline {
  readonly #deps: BaselineDeps;
  /** CRI calls made, by the agent's metric operation names, to compare call for call. */
  readonly calls: Record<string, number> = {};

  constructor(deps: BaselineDeps) {
    this.#deps = deps;
  }

  get node(): string {
    return this.#deps.node;
  }

  /** Builds the pods' configs (the agent's builders) without touching the runtime's state. */
  async prepare(names: string[]): Promise<PreparedPod[]> {
    const d = this.#deps;
    const hostDNS = parseResolvConf(await Deno.readTextFile("/etc/resolv.conf"));
    const imageRef = (await d.image.imageStatus({ image: d.podImage }))?.id ?? d.podImage;
    const podLogsDir = `${d.workDir}/logs`;
    return await Promise.all(names.map(async (name) => {
      const pod: V1Pod = staticPodFromManifest(manifest(name, d.podImage), {
        path: `${d.workDir}/manifests/${name}.yaml`,
        source: "file",
        nodeName: d.node,
      });
      const sandboxConfig = buildSandboxConfig(pod, 0, {
        podLogsDir,
        clusterDNS: [],
        clusterDomain: "",
        hostDNS,
      });
      const containerConfig = await buildContainerConfig(pod, pod.spec!.containers[0], {
        restartCount: 0,
        podIPs: [PLACEHOLDER_IP],
        nodeName: d.node,
        volumes: new Map(),
        imageRef,
        podLogsDir,
        podDir: podDir(d.workDir, pod.metadata!.uid!),
      });
      return { name, sandboxConfig, containerConfig };
    }));
  }

  /** The agent's start path for one pod, call for call. */
  async start(p: PreparedPod, opts: { signal?: AbortSignal } = {}): Promise<StartedPod> {
    const { runtime, image } = this.#deps;
    const { signal } = opts;
    // The agent creates the pod's log directory before RunPodSandbox; so must we.
    await Deno.mkdir(p.sandboxConfig.logDirectory!, { recursive: true, mode: 0o755 });
    const sandboxId = await this.#count(
      "run_podsandbox",
      runtime.runPodSandbox(p.sandboxConfig, undefined, { signal }),
    );
    await this.#count("podsandbox_status", runtime.podSandboxStatus(sandboxId, { signal }));
    await this.#count(
      "image_status",
      image.imageStatus({ image: this.#deps.podImage }, { signal }),
    );
    const containerId = await this.#count(
      "create_container",
      runtime.createContainer(sandboxId, p.containerConfig, p.sandboxConfig, { signal }),
    );
    await this.#count("start_container", runtime.startContainer(containerId, { signal }));
    return { name: p.name, sandboxId, containerId };
  }

  /** The agent's teardown for one pod: stop (graceful), then remove. */
  async teardown(p: StartedPod, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const { runtime } = this.#deps;
    const { signal } = opts;
    try {
      await this.#count(
        "stop_container",
        runtime.stopContainer(p.containerId, GRACE_SECONDS, { signal }),
      );
    } catch (err) {
      // On a loaded machine a container's shim may die ("ttrpc: closed"); as the kubelet's
      // KillPod, go on: stopping the sandbox stops what is left, and the run is not lost.
      if (signal?.aborted) throw err;
      this.calls["stop_container_failed"] = (this.calls["stop_container_failed"] ?? 0) + 1;
      console.error(
        `[bench] baseline: StopContainer ${p.containerId}: ${err}; stopping the sandbox`,
      );
    }
    await this.#count("stop_podsandbox", runtime.stopPodSandbox(p.sandboxId, { signal }));
    await this.#count("remove_container", runtime.removeContainer(p.containerId, { signal }));
    await this.#count("remove_podsandbox", runtime.removePodSandbox(p.sandboxId, { signal }));
  }

  async #count<T>(method: string, call: Promise<T>): Promise<T> {
    this.calls[method] = (this.calls[method] ?? 0) + 1;
    return await call;
  }
}
