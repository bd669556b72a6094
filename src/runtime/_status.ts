/**
 * Reading pods back from the runtime: the cheap list view (`RunningPod`) and the full
 * per-pod status (`RuntimePodStatus`). Sandboxes and containers without our labels are not
 * ours and are ignored.
 */
import type {
  Container,
  ContainerStatus,
  PodSandbox,
  PodSandboxStatus,
  RuntimeService,
} from "../cri/types.ts";
import type { Clock } from "../util/clock.ts";
import { isKind, NotFoundError } from "../util/errors.ts";
import type { Logger } from "../util/log.ts";
import {
  LABEL_NODE_NAME,
  LABEL_POD_UID,
  parseContainerLabels,
  parseSandboxLabels,
} from "./_labels.ts";
import type {
  RunningPod,
  RuntimeContainerState,
  RuntimeContainerStatus,
  RuntimePodStatus,
  RuntimeSandboxStatus,
} from "./types.ts";
import type { TerminationMessages } from "./_termination_message.ts";
import type { PodResourceState } from "../allocation/mod.ts";
import { resourcesSeen } from "./_resources_seen.ts";

export interface StatusDeps {
  runtime: RuntimeService;
  /** Only sandboxes and containers labelled with this node name are ours. */
  nodeName: string;
  clock: Clock;
  logger: Logger;
  /** Termination messages of exited containers, read once each; none read without it. */
  terminationMessages?: TerminationMessages;
  /** What each container was last told of its resources, where the runtime does not say. */
  actuated?: PodResourceState;
}

/** CRI timestamps are nanoseconds; ours are milliseconds. */
export function nsToMs(ns: number): number {
  return Math.floor(ns / 1_000_000);
}

const CONTAINER_STATES: Record<string, RuntimeContainerState> = {
  CONTAINER_CREATED: "created",
  CONTAINER_RUNNING: "running",
  CONTAINER_EXITED: "exited",
  CONTAINER_UNKNOWN: "unknown",
};

/** One ListPodSandbox and one ListContainers call, grouped by the pod UID label. */
export async function listPods(
  deps: StatusDeps,
  opts: { all: boolean; signal?: AbortSignal },
): Promise<RunningPod[]> {
  const { signal } = opts;
  const labelSelector = { [LABEL_NODE_NAME]: deps.nodeName };
  const [sandboxes, containers] = await Promise.all([
    deps.runtime.listPodSandbox(
      opts.all ? { labelSelector } : { labelSelector, state: { state: "SANDBOX_READY" } },
      { signal },
    ),
    deps.runtime.listContainers(
      opts.all ? { labelSelector } : { labelSelector, state: { state: "CONTAINER_RUNNING" } },
      { signal },
    ),
  ]);
  const pods = new Map<string, RunningPod>();
  const podFor = (uid: string, name: string, namespace: string) => {
    let pod = pods.get(uid);
    if (!pod) {
      pod = { uid, name, namespace, sandboxes: [], containers: [] };
      pods.set(uid, pod);
    }
    return pod;
  };
  for (const s of sandboxes) {
    const e = sandboxEntry(s);
    if (e) podFor(e.podUid, e.podName, e.podNamespace).sandboxes.push(e.entry);
  }
  for (const c of containers) {
    const e = containerEntry(c);
    if (e) podFor(e.podUid, e.podName, e.podNamespace).containers.push(e.entry);
  }
  const result = [...pods.values()];
  // Stable sorts over the runtime's order; ties (same millisecond) keep the list order.
  for (const pod of result) {
    pod.sandboxes.sort((a, b) => b.createdAt - a.createdAt);
    pod.containers.sort((a, b) => b.createdAt - a.createdAt);
  }
  return result;
}

type Owner = { podUid: string; podName: string; podNamespace: string };
type SandboxEntry = Owner & { entry: RunningPod["sandboxes"][number] };
type ContainerEntry = Owner & { entry: RunningPod["containers"][number] };

/**
 * The list view of each listed item, kept as long as the item: the CRI client hands back the
 * same frozen object for a sandbox or container that did not change, so a relist of an idle node
 * parses no labels and allocates no entries (issue 14). null: not one of ours.
 */
const sandboxEntries = new WeakMap<PodSandbox, SandboxEntry | null>();
const containerEntries = new WeakMap<Container, ContainerEntry | null>();

function sandboxEntry(s: PodSandbox): SandboxEntry | null {
  let e = sandboxEntries.get(s);
  if (e !== undefined) return e;
  const meta = parseSandboxLabels(s.labels ?? {});
  e = meta
    ? {
      podUid: meta.podUid,
      podName: meta.podName,
      podNamespace: meta.podNamespace,
      entry: Object.freeze(
        {
          id: s.id,
          state: s.state === "SANDBOX_READY" ? "ready" : "notready",
          createdAt: nsToMs(s.createdAt),
        } as const,
      ),
    }
    : null;
  sandboxEntries.set(s, e);
  return e;
}

function containerEntry(c: Container): ContainerEntry | null {
  let e = containerEntries.get(c);
  if (e !== undefined) return e;
  const meta = containerMeta(c.labels, c.annotations);
  e = meta
    ? {
      podUid: meta.podUid,
      podName: meta.podName,
      podNamespace: meta.podNamespace,
      entry: Object.freeze({
        id: c.id,
        name: meta.containerName,
        sandboxId: c.podSandboxId,
        state: CONTAINER_STATES[c.state] ?? "unknown",
        createdAt: nsToMs(c.createdAt),
      }),
    }
    : null;
  containerEntries.set(c, e);
  return e;
}

/**
 * Full status of one pod. Sandboxes or containers that vanish between the list and the status
 * call are skipped (a concurrent removal is normal); other errors propagate.
 */
export async function readPodStatus(
  deps: StatusDeps,
  pod: { uid: string; name: string; namespace: string },
  opts: { signal?: AbortSignal } = {},
): Promise<RuntimePodStatus> {
  const { signal } = opts;
  const timestamp = deps.clock.monotonic();
  const selector = {
    labelSelector: { [LABEL_POD_UID]: pod.uid, [LABEL_NODE_NAME]: deps.nodeName },
  };
  const [sandboxList, containerList] = await Promise.all([
    deps.runtime.listPodSandbox(selector, { signal }),
    deps.runtime.listContainers(selector, { signal }),
  ]);
  const [sandboxStatuses, containerStatuses] = await Promise.all([
    Promise.all(
      sandboxList.map((s) => ignoreNotFound(deps.runtime.podSandboxStatus(s.id, { signal }))),
    ),
    Promise.all(
      containerList.map((c) => ignoreNotFound(deps.runtime.containerStatus(c.id, { signal }))),
    ),
  ]);
  // Sorted on the runtime's nanoseconds: milliseconds would tie for instances created together.
  const sandboxes = sandboxStatuses
    .filter((s): s is PodSandboxStatus => s !== undefined)
    .sort((a, b) =>
      b.createdAt - a.createdAt || (b.metadata?.attempt ?? 0) - (a.metadata?.attempt ?? 0)
    )
    .map(toSandboxStatus);
  const read = containerStatuses
    .map((s, i) =>
      s && { s, listed: containerList[i], converted: toContainerStatus(containerList[i], s) }
    )
    .filter((x) => x?.converted !== undefined)
    .map((x) => {
      const seen = resourcesSeen(
        x!.s.resources?.linux,
        deps.actuated?.container(
          pod.uid,
          x!.converted!.name,
        ),
      );
      if (seen) x!.converted!.resources = seen;
      return x;
    })
    .sort((a, b) =>
      b!.s.createdAt - a!.s.createdAt || b!.converted!.restartCount - a!.converted!.restartCount
    );
  if (deps.terminationMessages) {
    await addTerminationMessages(deps.terminationMessages, pod.uid, read);
  }
  const containers = read.map((x) => x!.converted!);
  const newest = sandboxes[0];
  return {
    uid: pod.uid,
    name: pod.name,
    namespace: pod.namespace,
    sandboxes,
    containers,
    // Only the newest sandbox's IPs count, and only while it is up.
    ips: newest?.state === "ready" ? newest.ips : [],
    timestamp,
  };
}

type ReadContainer = { s: ContainerStatus; listed: Container; converted?: RuntimeContainerStatus };

/** Exited containers' messages gain what they wrote at their terminationMessagePath. */
async function addTerminationMessages(
  messages: TerminationMessages,
  uid: string,
  read: (ReadContainer | undefined)[],
): Promise<void> {
  await Promise.all(read.map(async (x) => {
    const c = x?.converted;
    if (!x || !c || c.state !== "exited") return;
    c.message = await messages.message(uid, {
      status: x.s,
      annotations: { ...x.listed.annotations, ...x.s.annotations },
      exitCode: c.exitCode ?? 0,
      reason: c.reason,
      message: c.message,
    });
  }));
  messages.retain(uid, new Set(read.map((x) => x!.s.id)));
}

function toSandboxStatus(s: PodSandboxStatus): RuntimeSandboxStatus {
  const ips: string[] = [];
  if (s.network?.ip) ips.push(s.network.ip);
  for (const extra of s.network?.additionalIps ?? []) if (extra.ip) ips.push(extra.ip);
  return {
    id: s.id,
    state: s.state === "SANDBOX_READY" ? "ready" : "notready",
    createdAt: nsToMs(s.createdAt),
    attempt: s.metadata?.attempt ?? 0,
    ips,
    hostNetwork: s.linux?.namespaces?.options?.network === "NODE",
  };
}

function toContainerStatus(
  listed: Container,
  s: ContainerStatus,
): RuntimeContainerStatus | undefined {
  const meta = containerMeta(
    { ...listed.labels, ...s.labels },
    { ...listed.annotations, ...s.annotations },
  );
  if (!meta) return undefined;
  const state = CONTAINER_STATES[s.state] ?? "unknown";
  return {
    id: s.id,
    name: meta.containerName,
    sandboxId: listed.podSandboxId,
    state,
    createdAt: nsToMs(s.createdAt),
    startedAt: s.startedAt ? nsToMs(s.startedAt) : undefined,
    finishedAt: s.finishedAt ? nsToMs(s.finishedAt) : undefined,
    exitCode: state === "exited" ? s.exitCode : undefined,
    reason: s.reason || undefined,
    message: s.message || undefined,
    image: s.image?.image || listed.image?.image || "",
    imageRef: s.imageRef || listed.imageRef || "",
    restartCount: meta.restartCount,
    hash: meta.hash,
  };
}

interface ContainerMeta {
  podUid: string;
  podName: string;
  podNamespace: string;
  containerName: string;
  restartCount: number;
  hash: string;
}

/** Our labels on a container, or undefined when it is not one of ours. */
export function containerMeta(
  labels: Record<string, string> | undefined,
  annotations: Record<string, string> | undefined,
): ContainerMeta | undefined {
  if (!labels?.[LABEL_POD_UID]) return undefined;
  const meta = parseContainerLabels(labels, annotations ?? {});
  if (!meta?.podUid || !meta.containerName) return undefined;
  return {
    podUid: meta.podUid,
    podName: meta.podName,
    podNamespace: meta.podNamespace,
    containerName: meta.containerName,
    restartCount: meta.restartCount ?? 0,
    hash: meta.hash ?? "",
  };
}

async function ignoreNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isKind(err, NotFoundError)) return undefined;
    throw err;
  }
}

/** Converts a full status into the list view killPod and removePod take. */
export function toRunningPod(status: RuntimePodStatus): RunningPod {
  return {
    uid: status.uid,
    name: status.name,
    namespace: status.namespace,
    sandboxes: status.sandboxes.map((s) => ({ id: s.id, state: s.state, createdAt: s.createdAt })),
    containers: status.containers.map((c) => ({
      id: c.id,
      name: c.name,
      sandboxId: c.sandboxId,
      state: c.state,
      createdAt: c.createdAt,
    })),
  };
}
