/**
 * Garbage collection through the real agent on the real containerd: container logs rotated by
 * size, an unused image removed while the images in use and the sandbox image stay, and dead
 * containers held to --maximum-dead-containers(-per-container).
 *
 * The GC loops start with a round at start-up (upstream wait.Until), so the image GC needs no
 * 5-minute wait; the container GC's next round comes a minute later. Images other suites need
 * are held in use while an agent may free every unused image (see _image_guard.ts).
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { stringify as toYaml } from "yaml";
import { createCriClient } from "../../src/cri/mod.ts";
import type { Container } from "../../src/cri/types.ts";
import { realClock } from "../../src/util/clock.ts";
import { waitFor } from "../support/agent.ts";
import { ensureImages, PAUSE_IMAGE } from "../support/images.ts";
import {
  BUSYBOX,
  containerStatus,
  type E2E,
  E2E_TEST,
  isRunning,
  pathExists,
  POD_UID_LABEL,
  setupE2E,
  shellPod,
} from "./_helpers.ts";
import {
  cleanUp,
  guardImages,
  type ImageGuard,
  importThrowawayImage,
  isImage,
  removeImageIfPresent,
} from "./_image_guard.ts";

const ROTATED = /^0\.log\.\d{8}-\d{6}(\.gz)?$/;

async function containersOf(e2e: E2E, uid: string): Promise<Container[]> {
  return await e2e.cri.runtime.listContainers({ labelSelector: { [POD_UID_LABEL]: uid } });
}

const dead = (cs: Container[]) => cs.filter((c) => c.state === "CONTAINER_EXITED");

async function uidOf(e2e: E2E, name: string, pred: (p: V1Pod) => boolean, what: string) {
  const p = await e2e.waitPod(name, pred, { what, timeoutMs: 60_000 });
  return p.metadata!.uid!;
}

/** The log files of the container (temp files of an ongoing compression left out). */
async function logFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) if (!e.name.endsWith(".tmp")) names.push(e.name);
  return names.sort();
}

async function gunzip(path: string): Promise<string> {
  const file = await Deno.open(path);
  const stream = file.readable.pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}

/** The highest `line <n>` in a CRI log text, or -1. */
function lastLine(text: string): number {
  let max = -1;
  for (const m of text.matchAll(/ stdout [FP] line (\d+)/g)) max = Math.max(max, Number(m[1]));
  return max;
}

Deno.test(
  "gc: a container log past containerLogMaxSize is rotated, compressed and capped at containerLogMaxFiles",
  E2E_TEST,
  async () => {
    const tmp = await Deno.makeTempDir({ prefix: "denolet-e2e-gc-logs-" });
    const podLogsDir = `${tmp}/pods`;
    // The monitor interval is a config-file field only; 3s is the least upstream accepts.
    await Deno.writeTextFile(
      `${tmp}/kubelet.yaml`,
      toYaml({
        apiVersion: "kubelet.config.k8s.io/v1beta1",
        kind: "KubeletConfiguration",
        podLogsDir,
        containerLogMonitorInterval: "3s",
      }),
    );
    const e2e = await setupE2E({
      podLogsDir,
      extraArgs: [
        "--config",
        `${tmp}/kubelet.yaml`,
        "--container-log-max-size=1Ki",
        "--container-log-max-files=3",
      ],
    });
    try {
      // About 5 KB/s of numbered lines: past 1Ki at every 3 s check.
      const script = 'i=0; while true; do echo "line $i $(printf %060d 0)"; ' +
        "i=$((i+1)); usleep 20000; done";
      await e2e.writePod("logger.yaml", shellPod("gc-logger", script));
      const pod = await e2e.waitPod("gc-logger", isRunning, { what: "gc-logger running" });
      const dir = `${e2e.podLogDir(pod)}/main`;

      let most = 0;
      const seen = new Set<string>();
      await waitFor(async () => {
        const files = await logFiles(dir).catch(() => []);
        most = Math.max(most, files.length);
        for (const f of files) seen.add(f);
        // Four distinct rotations (by timestamp): the oldest were compressed, then dropped.
        const rotations = new Set(
          [...seen].filter((f) => ROTATED.test(f)).map((f) => f.replace(/\.gz$/, "")),
        );
        return rotations.size >= 4;
      }, { timeoutMs: 45_000, intervalMs: 100, what: "four log rotations" });
      assert.ok(most <= 3, `at most 3 log files at a time, saw ${most}`);

      const files = await logFiles(dir);
      for (const f of files) assert.ok(f === "0.log" || ROTATED.test(f), `unexpected file ${f}`);
      const gz = files.filter((f) => f.endsWith(".gz"));
      assert.ok(gz.length >= 1, `a compressed rotation is kept: ${files.join(" ")}`);
      const old = await gunzip(`${dir}/${gz[0]}`);
      assert.match(old, /^\S+ stdout [FP] line \d+ 0{60}$/m, "the .gz holds CRI log lines");
      assert.ok(
        [...seen].some((f) => ROTATED.test(f) && !f.endsWith(".gz")),
        "the newest rotation stays uncompressed",
      );

      // The runtime keeps writing into a reopened 0.log, past every rotated line.
      let rotatedMax = -1;
      for (const f of files.filter((f) => ROTATED.test(f))) {
        const text = f.endsWith(".gz")
          ? await gunzip(`${dir}/${f}`)
          : await Deno.readTextFile(`${dir}/${f}`);
        rotatedMax = Math.max(rotatedMax, lastLine(text));
      }
      await waitFor(async () => {
        const current = await Deno.readTextFile(`${dir}/0.log`).catch(() => "");
        return lastLine(current) > rotatedMax;
      }, { timeoutMs: 10_000, intervalMs: 100, what: "new lines in the reopened 0.log" });
      const now = await e2e.pod("gc-logger");
      assert.equal(containerStatus(now!, "main")?.restartCount, 0, "rotation is not a restart");
    } finally {
      await cleanUp([() => e2e.close(), () => Deno.remove(tmp, { recursive: true })]);
    }
  },
);

Deno.test(
  "gc: image GC over its high threshold removes an unused image, not images in use or the sandbox image",
  E2E_TEST,
  async () => {
    // A first agent's running pod keeps busybox in use: the GC sees every container on the
    // runtime, whichever agent made it.
    const user = await setupE2E();
    // A client of our own: the agents' clients close with them, the clean-up comes after.
    const cri = createCriClient(user.runtime.endpoint, { timeoutMs: 30_000 });
    let guard: ImageGuard | undefined;
    let gcAgent: E2E | undefined;
    let throwaway = "";
    try {
      await user.writePod("user.yaml", shellPod("img-user", "sleep 3600"));
      await user.waitPod("img-user", isRunning, { what: "img-user running" });
      throwaway = await importThrowawayImage(user.runtime);
      const throwawayImg = await cri.image.imageStatus({ image: throwaway });
      assert.ok(throwawayImg, `${throwaway} was imported`);
      // Other suites' images (grpc-health, ...) stay held; busybox, pause and ours are left
      // to the GC's own rules.
      guard = await guardImages(cri, {
        hold: (img) => ![throwaway, BUSYBOX, PAUSE_IMAGE].some((r) => isImage(img, r)),
      });

      // The imagefs is far fuller than 1%: the start-up round frees every eligible image.
      gcAgent = await setupE2E({
        extraArgs: [
          "--image-gc-high-threshold=1",
          "--image-gc-low-threshold=0",
          "--image-minimum-gc-age=0s",
        ],
      });
      const g = gcAgent;
      await waitFor(async () => (await cri.image.imageStatus({ image: throwaway })) === undefined, {
        timeoutMs: 30_000,
        what: `image GC to remove ${throwaway}`,
      });
      // The line may reach the file a moment after the runtime dropped the image.
      const removed = new RegExp(`msg="Removed unused image" image=${throwawayImg.id}`);
      await waitFor(async () => removed.test(await Deno.readTextFile(g.agent.logFile)), {
        timeoutMs: 10_000,
        what: "the agent to log the removal",
      });

      const left = await cri.image.listImages();
      assert.ok(left.some((i) => isImage(i, BUSYBOX)), "busybox, in use by a running pod, stays");
      assert.ok(left.some((i) => isImage(i, PAUSE_IMAGE)), "the sandbox image stays");
      for (const held of guard.images) {
        assert.ok(left.some((i) => i.id === held.id), `held image ${held.repoTags} stays`);
      }
      // And the GC agent still runs pods from what is left.
      await g.writePod("after.yaml", shellPod("img-after", "sleep 3600"));
      await g.waitPod("img-after", isRunning, { what: "img-after running after the image GC" });
    } finally {
      await cleanUp([
        () => gcAgent?.close(),
        () => user.close(),
        () => guard?.release(),
        () => throwaway ? removeImageIfPresent(cri, throwaway) : undefined,
        () => cri.close(),
        // Should the GC have been wrong, later suites still find their images.
        () => ensureImages({ socket: user.runtime.socket, dir: user.runtime.dir }),
      ]);
    }
  },
);

Deno.test(
  "gc: dead containers are held to --maximum-dead-containers(-per-container), oldest first",
  E2E_TEST,
  async () => {
    const e2e = await setupE2E({
      extraArgs: [
        "--maximum-dead-containers-per-container=1",
        "--minimum-container-ttl-duration=0s",
        "--maximum-dead-containers=2",
      ],
    });
    const started = realClock.now();
    try {
      await e2e.writePod("crash.yaml", shellPod("gc-crash", "echo crash; exit 1"));
      const names = [1, 2, 3].map((n) => `gc-done-${n}`);
      for (const name of names) {
        await e2e.writePod(`${name}.yaml`, shellPod(name, "echo done", { restartPolicy: "Never" }));
      }
      const done: string[] = [];
      for (const name of names) {
        done.push(await uidOf(e2e, name, (p) => p.status?.phase === "Succeeded", `${name} done`));
      }
      const crashUid = await uidOf(
        e2e,
        "gc-crash",
        (p) => (containerStatus(p, "main")?.restartCount ?? 0) >= 1,
        "gc-crash restarted",
      );
      // Each finished pod keeps its one dead container: the runtime never prunes the newest.
      const doneContainers = await Promise.all(done.map(async (uid) => {
        const cs = await containersOf(e2e, uid);
        assert.equal(dead(cs).length, 1, `one dead container for ${uid}`);
        return cs[0];
      }));
      const newest = [...doneContainers].sort((a, b) => b.createdAt - a.createdAt)[0];

      // Four units of one dead container each, at most two may stay: the GC round one minute
      // after start-up removes the two oldest, the finished pods' first ones (the crash-looping
      // container's dead instance is from a later restart).
      let crashMost = 0;
      await waitFor(async () => {
        crashMost = Math.max(crashMost, (await containersOf(e2e, crashUid)).length);
        const left = await Promise.all(done.map((uid) => containersOf(e2e, uid)));
        return left.filter((cs) => cs.length === 0).length >= 2;
      }, {
        timeoutMs: 100_000 - (realClock.now() - started),
        intervalMs: 500,
        what: "the container GC to remove the two oldest dead containers",
      });
      const left = (await Promise.all(done.map((uid) => containersOf(e2e, uid)))).flat();
      assert.deepEqual(left.map((c) => c.id), [newest.id], "the newest dead container stays");
      assert.match(
        await Deno.readTextFile(e2e.agent.logFile),
        /msg="Garbage collected dead containers" containers=2\b/,
      );
      // The crash-looping container: one dead instance is kept (plus, for a moment, the one
      // that just exited, or the running one), however often it restarts.
      const crash = await e2e.pod("gc-crash");
      const restarts = containerStatus(crash!, "main")?.restartCount ?? 0;
      assert.ok(restarts >= 2, `gc-crash restarted ${restarts} times`);
      assert.ok(crashMost <= 2, `at most 2 gc-crash instances at a time, saw ${crashMost}`);
      await waitFor(async () => dead(await containersOf(e2e, crashUid)).length <= 1, {
        timeoutMs: 15_000,
        what: "at most one dead gc-crash instance",
      });

      // A finished pod keeps its final status after its dead container is gone; the GC took
      // the removed containers' logs with them.
      for (const name of names) {
        const p = await e2e.pod(name);
        assert.equal(p?.status?.phase, "Succeeded", `${name} stays Succeeded`);
        assert.equal(containerStatus(p!, "main")?.state?.terminated?.exitCode, 0);
        const removed = p!.metadata!.uid !== newest.labels[POD_UID_LABEL];
        assert.equal(
          await pathExists(`${e2e.podLogDir(p!)}/main/0.log`),
          !removed,
          `${name}'s log ${removed ? "went with its container" : "stays"}`,
        );
      }
    } finally {
      await e2e.close();
    }
  },
);
