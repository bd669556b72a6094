import assert from "node:assert/strict";
import { FakeRuntime, normalizeImageRef } from "../support/fake_cri.ts";
import type { ContainerConfig, PodSandboxConfig } from "../../src/cri/types.ts";
import { isKind, NotFoundError, RuntimeUnavailableError } from "../../src/util/errors.ts";
import { FakeClock } from "../../src/util/clock.ts";

function sandboxConfig(name: string, opts: { hostNetwork?: boolean } = {}): PodSandboxConfig {
  return {
    metadata: { name, uid: `uid-${name}`, namespace: "default", attempt: 0 },
    logDirectory: `/var/log/pods/default_${name}_uid-${name}`,
    labels: { "io.kubernetes.pod.uid": `uid-${name}` },
    linux: opts.hostNetwork
      ? { securityContext: { namespaceOptions: { network: "NODE", pid: "CONTAINER", ipc: "POD" } } }
      : {},
  };
}

function containerConfig(name: string, attempt = 0): ContainerConfig {
  return {
    metadata: { name, attempt },
    image: { image: "busybox" },
    logPath: `${name}/${attempt}.log`,
    labels: { "io.kubernetes.container.name": name },
  };
}

Deno.test("FakeRuntime runs a sandbox and walks a container through created, running, exited", async () => {
  const clock = new FakeClock();
  const fake = new FakeRuntime({ clock });
  fake.addImage("busybox:latest");
  const sbConfig = sandboxConfig("web");
  const sb = await fake.runPodSandbox(sbConfig);
  const sbStatus = await fake.podSandboxStatus(sb);
  assert.equal(sbStatus.state, "SANDBOX_READY");
  assert.match(sbStatus.network!.ip, /^10\.85\.\d+\.\d+$/);

  const id = await fake.createContainer(sb, containerConfig("app"), sbConfig);
  assert.equal((await fake.containerStatus(id)).state, "CONTAINER_CREATED");
  await clock.advance(1000);
  await fake.startContainer(id);
  const running = await fake.containerStatus(id);
  assert.equal(running.state, "CONTAINER_RUNNING");
  assert.equal(running.startedAt, clock.now() * 1e6);
  assert.equal(running.logPath, `${sbConfig.logDirectory}/app/0.log`);

  fake.exitContainer(id, 3);
  const exited = await fake.containerStatus(id);
  assert.equal(exited.state, "CONTAINER_EXITED");
  assert.equal(exited.exitCode, 3);
  assert.equal(exited.reason, "Error");

  await fake.removePodSandbox(sb);
  assert.equal((await fake.listContainers()).length, 0);
  assert.equal((await fake.listPodSandbox()).length, 0);
});

Deno.test("FakeRuntime gives host-network sandboxes no IP and refuses duplicate names", async () => {
  const fake = new FakeRuntime();
  const cfg = sandboxConfig("host", { hostNetwork: true });
  const sb = await fake.runPodSandbox(cfg);
  assert.equal((await fake.podSandboxStatus(sb)).network?.ip, "");
  await assert.rejects(fake.runPodSandbox(cfg), /reserved/);
});

Deno.test("FakeRuntime stopPodSandbox kills running containers with stopExitCode", async () => {
  const fake = new FakeRuntime();
  fake.addImage("busybox");
  const cfg = sandboxConfig("web");
  const sb = await fake.runPodSandbox(cfg);
  const id = await fake.createContainer(sb, containerConfig("app"), cfg);
  await fake.startContainer(id);
  await fake.stopPodSandbox(sb);
  await fake.stopPodSandbox(sb);
  const st = await fake.containerStatus(id);
  assert.equal(st.state, "CONTAINER_EXITED");
  assert.equal(st.exitCode, 137);
  await assert.rejects(fake.createContainer(sb, containerConfig("app", 1), cfg), /not running/);
});

Deno.test("FakeRuntime returns NotFoundError for unknown ids and tolerates removing them", async () => {
  const fake = new FakeRuntime();
  for (
    const p of [
      fake.containerStatus("nope"),
      fake.podSandboxStatus("nope"),
      fake.stopPodSandbox("nope"),
    ]
  ) {
    await assert.rejects(p, (e) => isKind(e, NotFoundError));
  }
  await fake.removeContainer("nope");
  await fake.removePodSandbox("nope");
  await fake.removeImage({ image: "nope" });
  const cfg = sandboxConfig("web");
  const sb = await fake.runPodSandbox(cfg);
  await assert.rejects(
    fake.createContainer(sb, containerConfig("app"), cfg),
    (e) => isKind(e, NotFoundError),
  );
});

Deno.test("FakeRuntime records calls and injects faults", async () => {
  const fake = new FakeRuntime();
  fake.failNext("version", new Error("boom"));
  await assert.rejects(fake.version(), /boom/);
  assert.equal((await fake.version()).runtimeName, "fake");
  fake.unavailable = true;
  await assert.rejects(fake.listPodSandbox(), (e) => isKind(e, RuntimeUnavailableError));
  assert.deepEqual(fake.calls.map((c) => c.method), ["version", "version", "listPodSandbox"]);
});

Deno.test("FakeRuntime pulls, finds and removes images by normalised name", async () => {
  const fake = new FakeRuntime();
  assert.equal(await fake.imageStatus({ image: "busybox" }), undefined);
  const ref = await fake.pullImage({ image: "busybox" });
  assert.equal((await fake.imageStatus({ image: "docker.io/library/busybox:latest" }))?.id, ref);
  assert.equal((await fake.imageStatus({ image: ref }))?.id, ref);
  fake.pullErrors.set("docker.io/library/nginx:1.0", new Error("pull access denied"));
  await assert.rejects(fake.pullImage({ image: "nginx:1.0" }), /denied/);
  await fake.removeImage({ image: "busybox:latest" });
  assert.equal((await fake.listImages()).length, 0);
  assert.equal(normalizeImageRef("denolet.test/busybox:1.35"), "denolet.test/busybox:1.35");
  assert.equal(normalizeImageRef("me/app"), "docker.io/me/app:latest");
  assert.equal(normalizeImageRef("localhost:5000/app@sha256:ab"), "localhost:5000/app@sha256:ab");
});

Deno.test("FakeRuntime execSync needs a running container and uses execHandler", async () => {
  const fake = new FakeRuntime();
  fake.addImage("busybox");
  const cfg = sandboxConfig("web");
  const sb = await fake.runPodSandbox(cfg);
  const id = await fake.createContainer(sb, containerConfig("app"), cfg);
  await assert.rejects(fake.execSync(id, ["true"], 1), /CONTAINER_CREATED/);
  await fake.startContainer(id);
  fake.execHandler = (_id, cmd) => ({
    stdout: new TextEncoder().encode(cmd.join(" ")),
    stderr: new Uint8Array(),
    exitCode: 1,
  });
  const res = await fake.execSync(id, ["echo", "x"], 1);
  assert.equal(new TextDecoder().decode(res.stdout), "echo x");
  assert.equal(res.exitCode, 1);
  assert.equal((await fake.listContainerStats()).length, 1);
  assert.equal((await fake.listPodSandboxStats())[0].linux?.containers.length, 1);
});
