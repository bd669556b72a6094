/** A FakeRuntime with pods and dead containers labelled as the runtime manager labels them. */
import { GarbageCollector, type GarbageCollectorDeps } from "../../src/gc/mod.ts";
import { LABEL_CONTAINER_NAME, LABEL_NODE_NAME, LABEL_POD_UID } from "../../src/runtime/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";

export const NODE = "gc-node";
export const IMAGE = "docker.io/library/busybox:latest";

export function setup() {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  cri.addImage(IMAGE, { id: "sha256:busybox", size: 1000 });
  return { clock, cri };
}

/**
 * A collector of this node over `env`'s runtime, for which no pod's content or runtime may be
 * removed, with no pod log dir; `over` sets the rest (policies, fsStats, podState).
 */
export function collector(
  env: { cri: FakeRuntime; clock: FakeClock },
  over: Partial<GarbageCollectorDeps> = {},
): GarbageCollector {
  return new GarbageCollector({
    runtime: env.cri,
    image: env.cri,
    clock: env.clock,
    logger: nullLogger,
    nodeName: NODE,
    podState: { shouldPodContentBeRemoved: () => false, shouldPodRuntimeBeRemoved: () => false },
    podLogsDir: "",
    ...over,
  });
}

export async function sandbox(
  cri: FakeRuntime,
  uid: string,
  opts: { node?: string; attempt?: number } = {},
) {
  const labels = { [LABEL_NODE_NAME]: opts.node ?? NODE, [LABEL_POD_UID]: uid };
  return await cri.runPodSandbox({
    metadata: { name: uid, uid, namespace: "default", attempt: opts.attempt ?? 0 },
    labels,
  });
}

/** Creates and starts a container; with `exit` it exits right away. */
export async function container(
  cri: FakeRuntime,
  sandboxId: string,
  what: {
    uid: string;
    name: string;
    attempt: number;
    exit?: boolean;
    node?: string;
    image?: string;
  },
): Promise<string> {
  const labels = {
    [LABEL_NODE_NAME]: what.node ?? NODE,
    [LABEL_POD_UID]: what.uid,
    [LABEL_CONTAINER_NAME]: what.name,
  };
  const id = await cri.createContainer(sandboxId, {
    metadata: { name: what.name, attempt: what.attempt },
    image: { image: what.image ?? IMAGE },
    labels,
  }, { metadata: { name: what.uid, uid: what.uid, namespace: "default", attempt: 0 } });
  await cri.startContainer(id);
  if (what.exit) cri.exitContainer(id, 1);
  return id;
}
