/**
 * Ephemeral containers (`kubectl debug`) through the runtime manager over the fake CRI: started
 * once in the running sandbox, never restarted, sharing the target's PID namespace, refused with
 * a waiting reason when they ask for what the node cannot do, and shown in the pod status.
 */
import { fakeRuntimeManager } from "./_fake_manager.ts";
import assert from "node:assert/strict";
import type { V1EphemeralContainer, V1Pod } from "@kubernetes/client-node";
import { computePodStatus } from "../../src/kubelet/mod.ts";
import type { RuntimeManager } from "../../src/runtime/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { FakeRuntime } from "../support/fake_cri.ts";

const debug = (extra: Partial<V1EphemeralContainer> = {}): V1EphemeralContainer => ({
  name: "debugger",
  image: "busybox:1.36",
  imagePullPolicy: "IfNotPresent",
  command: ["sh"],
  ...extra,
});

function pod(ephemeral: V1EphemeralContainer[] = []): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "uid-1" },
    spec: {
      // The node the fake runtime manager owns sandboxes for.
      nodeName: "node1",
      containers: [{ name: "app", image: "busybox:1.36", imagePullPolicy: "IfNotPresent" }],
      ephemeralContainers: ephemeral,
    },
  };
}

async function env(problem?: (pod: V1Pod, name: string) => string | undefined) {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-ephemeral-" });
  const events: string[] = [];
  const rm = fakeRuntimeManager({ cri, clock, logsDir }, {
    ephemeralProblem: problem,
    events: {
      event: (ref, type, reason, msg) => events.push(`${ref.fieldPath} ${type} ${reason} ${msg}`),
    },
  });
  return {
    cri,
    rm,
    events,
    sync: async (p: V1Pod) => await rm.syncPod(p, await status(rm), {}),
    status: () => status(rm),
    [Symbol.asyncDispose]: () => Deno.remove(logsDir, { recursive: true }),
  };
}

const status = (rm: RuntimeManager) => rm.getPodStatus("uid-1", "web", "default");

const byName = (cri: FakeRuntime, name: string) =>
  [...cri.containers.values()].filter((c) => c.status.metadata.name === name);

Deno.test("ephemeral: added to a running pod, started once in its sandbox, never restarted", async () => {
  await using e = await env();
  assert.deepEqual((await e.sync(pod())).errors, []);
  const sandboxes = e.cri.sandboxes.size;
  const added = pod([debug()]);
  assert.deepEqual((await e.sync(added)).errors, []);
  const [dbg] = byName(e.cri, "debugger");
  assert.equal(dbg.status.state, "CONTAINER_RUNNING");
  assert.equal(e.cri.sandboxes.size, sandboxes, "no new sandbox for it");
  assert.equal(byName(e.cri, "app")[0].status.state, "CONTAINER_RUNNING", "the app kept running");
  assert.match(e.events.join("\n"), /spec\.ephemeralContainers\{debugger\} Normal Started/);

  e.cri.exitContainer(dbg.status.id, 1);
  assert.deepEqual((await e.sync(added)).errors, []);
  assert.equal(byName(e.cri, "debugger").length, 1, "an exited ephemeral container stays exited");

  const st = computePodStatus(added, await e.status(), { now: 0, reasons: new Map() });
  assert.equal(st.ephemeralContainerStatuses?.[0]?.name, "debugger");
  assert.equal(st.ephemeralContainerStatuses?.[0]?.state?.terminated?.exitCode, 1);
  assert.equal(st.phase, "Running", "ephemeral containers do not count for the phase");
  assert.equal(st.containerStatuses?.length, 1);
});

Deno.test("ephemeral: targetContainerName shares that container's PID namespace", async () => {
  await using e = await env();
  await e.sync(pod());
  await e.sync(pod([debug({ targetContainerName: "app" })]));
  const [dbg] = byName(e.cri, "debugger");
  const appId = byName(e.cri, "app")[0].status.id;
  const ns = dbg.config.linux?.securityContext?.namespaceOptions;
  assert.equal(ns?.pid, "TARGET");
  assert.equal(ns?.targetId, appId);
  // A target that does not exist: not started, and said so.
  const missing = pod([debug({ name: "d2", targetContainerName: "nope" })]);
  const { errors } = await e.sync(missing);
  assert.deepEqual(errors, [{
    container: "d2",
    reason: "CreateContainerConfigError",
    message: "unable to find target container nope",
  }]);
});

Deno.test("ephemeral: one asking for what the node cannot do stays Waiting, with an event", async () => {
  await using e = await env((_p, name) =>
    name === "debugger" ? "Pod requires node features that are not available: x (y)" : undefined
  );
  await e.sync(pod());
  const { errors } = await e.sync(pod([debug()]));
  assert.deepEqual(errors, [{
    container: "debugger",
    reason: "CreateContainerConfigError",
    message: "Pod requires node features that are not available: x (y)",
  }]);
  assert.equal(byName(e.cri, "debugger").length, 0);
  assert.ok(
    e.events.some((ev) => ev.startsWith("spec.ephemeralContainers{debugger} Warning Failed")),
  );
});

Deno.test("ephemeral: a pod coming up starts them once its sandbox is in place", async () => {
  await using e = await env();
  const p = pod([debug()]);
  // First sync of a fresh pod: the sandbox is created, ephemeral containers wait for a sync in
  // the sandbox that stays (upstream computes them only when the sandbox did not change).
  await e.sync(p);
  assert.equal(byName(e.cri, "debugger").length, 0);
  await e.sync(p);
  assert.equal(byName(e.cri, "debugger").length, 1);
});
