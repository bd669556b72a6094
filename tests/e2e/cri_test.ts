/**
 * The CRI client against the real containerd (tests/support/containerd.ts): a pod sandbox and a
 * busybox container through their whole life, exec, stats, and the error kinds.
 */
import assert from "node:assert/strict";
import { createCriClient } from "../../src/cri/mod.ts";
import type { ContainerConfig, PodSandboxConfig } from "../../src/cri/types.ts";
import { realClock } from "../../src/util/clock.ts";
import { isKind, NotFoundError, RuntimeUnavailableError } from "../../src/util/errors.ts";
import { ensureContainerd, runtimeNetwork } from "../support/containerd.ts";
import { ipInCidr } from "./_helpers.ts";
import { waitFor } from "../support/wait.ts";

const decode = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("CRI client drives a sandbox and a container on containerd", async () => {
  const rt = await ensureContainerd();
  const client = createCriClient(rt.endpoint, { timeoutMs: 60_000 });
  const { runtime, image } = client;
  const suffix = crypto.randomUUID().slice(0, 8);
  const uid = crypto.randomUUID();
  const logDir = await Deno.makeTempDir({ prefix: "denolet-e2e-cri-" });
  const hostPort = 30_000 + Math.floor(Math.random() * 20_000);
  let sandboxId: string | undefined;
  try {
    const v = await runtime.version();
    assert.equal(v.runtimeName, "containerd");
    assert.equal(v.runtimeApiVersion, "v1");
    const status = await runtime.status();
    const conditions = status.status?.conditions ?? [];
    assert.equal(conditions.find((c) => c.type === "RuntimeReady")?.status, true);

    assert.ok(await image.imageStatus({ image: rt.images.busybox }));
    assert.equal(await image.imageStatus({ image: "denolet.test/missing:0.0" }), undefined);
    const images = await image.listImages();
    assert.ok(images.some((i) => i.repoTags.includes(rt.images.busybox) && i.size > 0));
    // containerd computes snapshot usage on its own schedule (stats_collect_period, 10 s), so a
    // freshly provisioned runtime answers 0 at first: wait for its first collection.
    let fs = await image.imageFsInfo();
    await waitFor(async () => {
      fs = await image.imageFsInfo();
      return fs.length > 0 && (fs[0].usedBytes?.value ?? 0) > 0;
    }, { timeoutMs: 45_000, intervalMs: 500, what: "imageFsInfo to report usedBytes > 0" });
    assert.ok(fs[0].fsId?.mountpoint, JSON.stringify(fs));

    const sandboxConfig: PodSandboxConfig = {
      metadata: { name: `cri-e2e-${suffix}`, uid, namespace: "default", attempt: 0 },
      hostname: `cri-e2e-${suffix}`,
      logDirectory: logDir,
      dnsConfig: {
        servers: ["10.96.0.10"],
        searches: ["default.svc.cluster.local"],
        options: ["ndots:5"],
      },
      portMappings: [{ protocol: "TCP", containerPort: 80, hostPort, hostIp: "" }],
      labels: { "io.kubernetes.pod.uid": uid, "denolet.test/suite": "cri" },
      annotations: { "denolet.test/note": "e2e" },
      // containerd 1.6 runs a sandbox with an empty cgroup parent, but then cannot report its
      // stats ("cgroupPath is empty"), so give it one (cgroupfs syntax, like the kubelet's
      // /kubepods/...; one fixed path so runs leave no new cgroups). A pid namespace per
      // container is what the kubelet asks for v1 pods.
      linux: {
        cgroupParent: "/denolet-e2e-cri",
        securityContext: { namespaceOptions: { network: "POD", pid: "CONTAINER", ipc: "POD" } },
      },
    };
    sandboxId = await runtime.runPodSandbox(sandboxConfig);
    const sb = await runtime.podSandboxStatus(sandboxId);
    assert.equal(sb.state, "SANDBOX_READY");
    const { subnet } = runtimeNetwork();
    assert.ok(ipInCidr(sb.network?.ip ?? "", subnet), `sandbox IP ${sb.network?.ip} in ${subnet}`);
    assert.equal(sb.annotations["denolet.test/note"], "e2e");
    const listed = await runtime.listPodSandbox({
      labelSelector: { "io.kubernetes.pod.uid": uid },
    });
    assert.deepEqual(listed.map((s) => s.id), [sandboxId]);

    const containerConfig: ContainerConfig = {
      metadata: { name: "app", attempt: 0 },
      image: { image: rt.images.busybox },
      command: ["sh", "-c", "echo hi; sleep 3600"],
      logPath: "app/0.log",
      // Several entries: containerd writes maps in Go's random order (see the list check below).
      labels: { "io.kubernetes.container.name": "app", l1: "1", l2: "2", l3: "3", l4: "4" },
      annotations: { a1: "1", a2: "2", a3: "3", a4: "4" },
      envs: [{ key: "GREETING", value: "hello" }],
    };
    const containerId = await runtime.createContainer(sandboxId, containerConfig, sandboxConfig);
    assert.equal((await runtime.containerStatus(containerId)).state, "CONTAINER_CREATED");
    await runtime.startContainer(containerId);

    const containers = await runtime.listContainers({ podSandboxId: sandboxId });
    assert.deepEqual(containers.map((c) => [c.id, c.state]), [[containerId, "CONTAINER_RUNNING"]]);
    // An unchanged container is not decoded again (issue 14): the same object on every list,
    // although its labels and annotations arrive in a different order most of the time.
    for (let i = 0; i < 8; i++) {
      const [again] = await runtime.listContainers({ podSandboxId: sandboxId });
      assert.equal(again, containers[0], `list ${i + 2} decoded the container afresh`);
    }
    assert.equal(containers[0].annotations.a3, "3");
    const st = await runtime.containerStatus(containerId);
    assert.equal(st.state, "CONTAINER_RUNNING");
    assert.equal(st.logPath, `${logDir}/app/0.log`);
    assert.ok(st.startedAt > 0);
    assert.ok(st.imageRef.length > 0);
    assert.match(await waitForFile(st.logPath, /stdout F hi/), /stdout F hi/);

    const ok = await runtime.execSync(containerId, ["echo", "ok"], 10);
    assert.equal(decode(ok.stdout), "ok\n");
    assert.equal(ok.exitCode, 0);
    const env = await runtime.execSync(containerId, ["sh", "-c", "echo $GREETING; exit 3"], 10);
    assert.equal(decode(env.stdout), "hello\n");
    assert.equal(env.exitCode, 3);
    const resolv = await runtime.execSync(containerId, ["cat", "/etc/resolv.conf"], 10);
    assert.match(decode(resolv.stdout), /nameserver 10\.96\.0\.10/);
    assert.match(decode(resolv.stdout), /search default\.svc\.cluster\.local/);

    const stats = await runtime.listContainerStats({ podSandboxId: sandboxId });
    assert.deepEqual(stats.map((s) => s.attributes.id), [containerId]);
    const one = await runtime.containerStats(containerId);
    assert.equal(one.attributes.metadata.name, "app");
    assert.ok((one.memory?.workingSetBytes?.value ?? 0) > 0, JSON.stringify(one.memory));
    assert.ok((one.cpu?.timestamp ?? 0) > 0);
    const podStats = await runtime.listPodSandboxStats({ id: sandboxId });
    assert.deepEqual(podStats.map((p) => p.attributes.id), [sandboxId]);
    assert.deepEqual(podStats[0].linux?.containers.map((c) => c.attributes.id), [containerId]);

    await runtime.stopContainer(containerId, 1);
    const stopped = await runtime.containerStatus(containerId);
    assert.equal(stopped.state, "CONTAINER_EXITED");
    // Killed by SIGTERM (143) or, had it ignored that, by SIGKILL after the timeout (137).
    assert.ok([137, 143].includes(stopped.exitCode), `exit code ${stopped.exitCode}`);
    assert.ok(stopped.finishedAt >= stopped.startedAt);
    await runtime.stopContainer(containerId, 1);

    await runtime.removeContainer(containerId);
    await runtime.removeContainer(containerId);
    await assert.rejects(runtime.containerStatus(containerId), (e) => isKind(e, NotFoundError));

    await runtime.stopPodSandbox(sandboxId);
    assert.equal((await runtime.podSandboxStatus(sandboxId)).state, "SANDBOX_NOTREADY");
    await runtime.removePodSandbox(sandboxId);
    await assert.rejects(runtime.podSandboxStatus(sandboxId), (e) => isKind(e, NotFoundError));
    await runtime.removePodSandbox(sandboxId);
    sandboxId = undefined;
  } finally {
    if (sandboxId) {
      await runtime.stopPodSandbox(sandboxId)
        .then(() => runtime.removePodSandbox(sandboxId!))
        .catch((err) => console.error(`cleanup of sandbox ${sandboxId} failed:`, err));
    }
    client.close();
    await Deno.remove(logDir, { recursive: true });
  }
});

Deno.test("CRI client fails fast with RuntimeUnavailableError on a missing socket", async () => {
  const dir = await Deno.makeTempDir();
  const client = createCriClient(`unix://${dir}/containerd.sock`, { timeoutMs: 30_000 });
  try {
    const t0 = realClock.now();
    await assert.rejects(client.runtime.version(), (e) => isKind(e, RuntimeUnavailableError));
    assert.ok(realClock.now() - t0 < 2000);
  } finally {
    client.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** Waits (bounded) for the runtime to write `pattern` into a log file. */
async function waitForFile(path: string, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = realClock.now() + timeoutMs;
  for (;;) {
    const text = await Deno.readTextFile(path).catch((err) => {
      if (err instanceof Deno.errors.NotFound) return "";
      throw err;
    });
    if (pattern.test(text) || realClock.now() > deadline) return text;
    await realClock.sleep(100);
  }
}
