/**
 * Shared set-up for the static pod end-to-end suites: one agent against the dev containerd, a
 * CRI client to inspect what it did, manifests written as YAML, and a cleanup that proves no
 * sandbox of the suite's pods is left behind.
 */
import type { V1Container, V1ContainerStatus, V1Pod } from "@kubernetes/client-node";
import { stringify as toYaml } from "yaml";
import { createCriClient, type CriClient } from "../../src/cri/mod.ts";
import type { PodSandbox } from "../../src/cri/types.ts";
import {
  type AgentProcess,
  removeAgentSandboxes,
  startAgent,
  type StartAgentOptions,
  waitFor,
} from "../support/agent.ts";
import { type DevOptions, type DevRuntime, ensureContainerd } from "../support/containerd.ts";

export const BUSYBOX = "denolet.test/busybox:1.35";
export const POD_UID_LABEL = "io.kubernetes.pod.uid";
/** The agent subprocess and the gRPC channel outlive single ops; the suites clean up explicitly. */
export const E2E_TEST = { sanitizeOps: false, sanitizeResources: false } as const;

export interface E2EOptions {
  /** Another containerd than the shared dev one (its own dir, network, flavour). */
  runtime?: DevOptions;
  /** Extra agent flags, appended after the suite defaults. */
  extraArgs?: string[];
  /** Extra KubeletConfiguration fields for the agent's config file. */
  config?: Record<string, unknown>;
  manifestURL?: string;
  /** Reuse these (restart tests start a second agent on the same state). */
  hostname?: string;
  rootDir?: string;
  manifestDir?: string;
  /** Share the pod log directory between agents; defaults to `<tmp>/pods`. */
  podLogsDir?: string;
  /** Extra environment for the agent process. */
  env?: Record<string, string>;
  /**
   * false: stopping the agent leaves its pods running (for restart tests, which adopt them).
   * Default true: stopping removes every sandbox of this node.
   */
  removePodsOnStop?: boolean;
}

export interface WaitPodOptions {
  what: string;
  timeoutMs?: number;
}

export interface E2E {
  readonly agent: AgentProcess;
  readonly cri: CriClient;
  readonly runtime: DevRuntime;
  readonly podLogsDir: string;
  /** The suite's own temp dir (config file, pod logs); removed by `close`. */
  readonly tmp: string;
  /** The name the agent gives a static pod: `<name>-<node>`. */
  podName(name: string): string;
  /** Writes `pod` as YAML to `<manifestDir>/<file>`. */
  writePod(file: string, pod: V1Pod): Promise<void>;
  /** Writes `text` to `<manifestDir>/<file>` atomically (write, then rename). */
  writeRaw(file: string, text: string): Promise<void>;
  removeManifest(file: string): Promise<void>;
  /** The static pod `name` as /pods shows it, or undefined. */
  pod(name: string): Promise<V1Pod | undefined>;
  /** Polls /pods until the pod `name` satisfies `pred`; the failure names `what` and the last pod. */
  waitPod(name: string, pred: (p: V1Pod) => boolean, opts: WaitPodOptions): Promise<V1Pod>;
  /** Sandboxes labelled with the pod's uid. */
  sandboxes(uid: string): Promise<PodSandbox[]>;
  /** `<podLogsDir>/<ns>_<name>_<uid>` */
  podLogDir(pod: V1Pod): string;
  readLog(pod: V1Pod, container: string, restartCount?: number): Promise<string>;
  /** Waits until the container's first log contains every string in `texts`; returns the log. */
  waitLog(
    pod: V1Pod,
    container: string,
    texts: string[],
    opts?: { timeoutMs?: number },
  ): Promise<string>;
  /**
   * Removes the manifests it wrote, stops the agent, and throws if a sandbox of this node
   * survived. `keepState`: leave manifests and pods alone (a restart test adopts them).
   */
  close(opts?: { keepState?: boolean }): Promise<void>;
}

/** Starts an agent with a private pod log directory and waits until it is healthy. */
export async function setupE2E(opts: E2EOptions = {}): Promise<E2E> {
  const runtime = await ensureContainerd(opts.runtime);
  const tmp = await Deno.makeTempDir({ prefix: "denolet-e2e-suite-" });
  const podLogsDir = opts.podLogsDir ?? `${tmp}/pods`;
  const configFile = `${tmp}/kubelet.yaml`;
  await Deno.writeTextFile(
    configFile,
    toYaml({
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      podLogsDir,
      ...opts.config,
    }),
  );
  const cri = createCriClient(runtime.endpoint, { timeoutMs: 30_000 });
  const startOpts: StartAgentOptions = {
    runtime,
    hostname: opts.hostname,
    rootDir: opts.rootDir,
    manifestDir: opts.manifestDir,
    manifestURL: opts.manifestURL,
    cleanupWith: opts.removePodsOnStop === false ? undefined : cri.runtime,
    env: opts.env,
    extraArgs: [
      "--config",
      configFile,
      "--file-check-frequency",
      "1s",
      "--sync-frequency",
      "5s",
      ...(opts.extraArgs ?? []),
    ],
  };
  let agent: AgentProcess;
  try {
    agent = await startAgent(startOpts);
  } catch (err) {
    cri.close();
    await Deno.remove(tmp, { recursive: true });
    throw err;
  }
  const e2e = makeE2E({ agent, cri, runtime, podLogsDir, tmp });
  try {
    await agent.waitHealthy({ timeoutMs: 60_000 });
  } catch (err) {
    await e2e.close();
    throw err;
  }
  return e2e;
}

interface Parts {
  agent: AgentProcess;
  cri: CriClient;
  runtime: DevRuntime;
  podLogsDir: string;
  tmp: string;
}

function makeE2E({ agent, cri, runtime, podLogsDir, tmp }: Parts): E2E {
  const written = new Set<string>();
  const podName = (name: string) => `${name}-${agent.hostname}`;
  const podLogDir = (p: V1Pod) =>
    `${podLogsDir}/${p.metadata?.namespace}_${p.metadata?.name}_${p.metadata?.uid}`;
  const readLog = (p: V1Pod, container: string, restartCount = 0) =>
    Deno.readTextFile(`${podLogDir(p)}/${container}/${restartCount}.log`);
  const e2e: E2E = {
    agent,
    cri,
    runtime,
    podLogsDir,
    tmp,
    podName,
    async writePod(file, pod) {
      await e2e.writeRaw(file, toYaml(pod));
    },
    async writeRaw(file, text) {
      // The temp name starts with a dot: the file source ignores hidden files.
      const path = `${agent.manifestDir}/${file}`;
      await Deno.writeTextFile(`${agent.manifestDir}/.${file}.tmp`, text);
      await Deno.rename(`${agent.manifestDir}/.${file}.tmp`, path);
      written.add(path);
    },
    async removeManifest(file) {
      await Deno.remove(`${agent.manifestDir}/${file}`);
    },
    async pod(name) {
      const list = await agent.pods();
      return list.items.find((p) => p.metadata?.name === podName(name));
    },
    async waitPod(name, pred, o) {
      let last: V1Pod | undefined;
      try {
        return await waitFor(async () => {
          last = await e2e.pod(name);
          return last && pred(last) ? last : undefined;
        }, { timeoutMs: o.timeoutMs ?? 45_000, intervalMs: 300, what: o.what });
      } catch (err) {
        throw new Error(
          `${(err as Error).message}\nlast pod status: ${JSON.stringify(last?.status ?? null)}` +
            `\nagent log tail:\n${await agent.logTail(30)}`,
          { cause: err },
        );
      }
    },
    sandboxes(uid) {
      return cri.runtime.listPodSandbox({ labelSelector: { [POD_UID_LABEL]: uid } });
    },
    podLogDir,
    readLog,
    async waitLog(p, container, texts, o = {}) {
      let last = "";
      try {
        return await waitFor(async () => {
          last = await readLog(p, container);
          return texts.every((t) => last.includes(t)) ? last : undefined;
        }, { timeoutMs: o.timeoutMs ?? 20_000, what: `log of ${p.metadata?.name}/${container}` });
      } catch (err) {
        throw new Error(`${(err as Error).message}\nlog so far:\n${last}`, { cause: err });
      }
    },
    async close(o = {}) {
      try {
        if (!o.keepState) {
          for (const path of written) await removeIfPresent(path);
        }
        // Stops the agent (removing this node's sandboxes when cleanupWith is set) and removes
        // the agent's own temp dir.
        await agent[Symbol.asyncDispose]();
        if (o.keepState) return;
        const left = (await cri.runtime.listPodSandbox())
          .filter((s) => s.metadata.name.endsWith(`-${agent.hostname}`));
        if (left.length > 0) {
          await removeAgentSandboxes(cri.runtime, agent.hostname);
          throw new Error(`Sandboxes left behind: ${left.map((s) => s.metadata.name).join(", ")}`);
        }
      } finally {
        cri.close();
        if (!Deno.env.get("DENOLET_KEEP_E2E")) {
          await Deno.remove(tmp, { recursive: true }).catch((err) =>
            console.error(`[denolet-e2e] cannot remove ${tmp}: ${(err as Error).message}`)
          );
        }
      }
    },
  };
  return e2e;
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

/** A one-container (`main`) busybox pod running `script` under `sh -c`. */
export function shellPod(name: string, script: string, extra: Partial<V1Pod["spec"]> = {}): V1Pod {
  return specPod(name, { containers: [shellContainer("main", script)], ...extra });
}

/** A pod in `default` with a 2 s grace period and `spec` (its containers, at least). */
export function specPod(name: string, spec: Partial<NonNullable<V1Pod["spec"]>>): V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: { terminationGracePeriodSeconds: 2, containers: [], ...spec },
  };
}

/** A busybox container (the pre-loaded image, never pulled) running `sh -c script`. */
export function shellContainer(
  name: string,
  script: string,
  extra: Partial<V1Container> = {},
): V1Container {
  return {
    name,
    image: BUSYBOX,
    imagePullPolicy: "IfNotPresent",
    command: ["sh", "-c", script],
    ...extra,
  };
}

export function containerStatus(p: V1Pod, name: string): V1ContainerStatus | undefined {
  return p.status?.containerStatuses?.find((c) => c.name === name);
}

export function initStatus(p: V1Pod, name: string): V1ContainerStatus | undefined {
  return p.status?.initContainerStatuses?.find((c) => c.name === name);
}

/** Milliseconds since the epoch of an API time (a string on the wire, typed as Date). */
export function time(t: Date | string | undefined): number {
  const ms = Date.parse(String(t));
  if (Number.isNaN(ms)) throw new Error(`not a time: ${JSON.stringify(t)}`);
  return ms;
}

/** Phase Running, an IP, and every app container running. */
export function isRunning(p: V1Pod): boolean {
  const statuses = p.status?.containerStatuses ?? [];
  return p.status?.phase === "Running" && !!p.status.podIP && statuses.length > 0 &&
    statuses.every((c) => c.state?.running !== undefined);
}

/** True when `ip` is an IPv4 address in `cidr`. */
export function ipInCidr(ip: string, cidr: string): boolean {
  const [net, bitsText] = cidr.split("/");
  const toInt = (s: string) => s.split(".").reduce((acc, o) => (acc << 8) + Number(o), 0) >>> 0;
  const bits = Number(bitsText);
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return /^\d+\.\d+\.\d+\.\d+$/.test(ip) &&
    ((toInt(ip) & mask) >>> 0) === ((toInt(net) & mask) >>> 0);
}

export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
