/**
 * Disk pressure on a small nodefs: the agent's root dir and pod logs sit on a 64Mi tmpfs with
 * `nodefs.available<40%`. A finished pod's dead container holds a 10Mi log; a filler pod then
 * writes 45Mi into a disk emptyDir. The eviction manager first reclaims node-level resources —
 * dead containers (the log goes with them), then unused images — and, as that is not enough,
 * evicts the filler (Failed / Evicted, a message naming ephemeral-storage). /node shows
 * DiskPressure, admission refuses a new pod meanwhile (upstream reason and message), and once
 * the evicted pod's emptyDir is gone the condition clears after the transition period.
 *
 * Every pod is static, so the suite runs with denolet's --evict-static-pods opt-in. The image
 * GC on the eviction path frees every unused image of the shared containerd: all images but a
 * throwaway one of our own are held in use meanwhile (see _image_guard.ts).
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { createCriClient } from "../../src/cri/mod.ts";
import { freePort, waitFor } from "../support/agent.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { ensureImages } from "../support/images.ts";
import {
  containerStatus,
  type E2E,
  E2E_TEST,
  pathExists,
  POD_UID_LABEL,
  setupE2E,
  shellPod,
} from "./_helpers.ts";
import { agentJson, nodeApiArgs } from "./_node_api.ts";
import {
  cleanUp,
  guardImages,
  type ImageGuard,
  importThrowawayImage,
  isImage,
  removeImageIfPresent,
} from "./_image_guard.ts";

const MI = 1024 * 1024;
const NODEFS_MI = 64;
/** nodefs.available<40%: 25.6Mi of 64Mi. */
const THRESHOLD = 0.4;
const LOG_MI = 10;
const FILL_MI = 45;

/** The authenticated port: `/node` is not served on the read-only one. */
const API_PORT = freePort();

const getJson = <T>(e2e: E2E, path: string) => agentJson<T>(e2e.agent, API_PORT, path);

async function diskPressure(e2e: E2E): Promise<string | undefined> {
  const node = await getJson<V1Node>(e2e, "/node");
  return node?.status?.conditions?.find((c) => c.type === "DiskPressure")?.status;
}

async function nodeFs(e2e: E2E): Promise<{ availableBytes: number; capacityBytes: number }> {
  type S = { node?: { fs?: { availableBytes?: number; capacityBytes?: number } } };
  return await waitFor(async () => {
    const fs = (await getJson<S>(e2e, "/stats/summary"))?.node?.fs;
    return fs?.availableBytes !== undefined && fs.capacityBytes !== undefined
      ? { availableBytes: fs.availableBytes, capacityBytes: fs.capacityBytes }
      : undefined;
  }, { timeoutMs: 30_000, what: "/stats/summary node.fs" });
}

/** A finished pod whose one dead container leaves a LOG_MI log behind. */
function logPod(): V1Pod {
  const script = `s=$(head -c 990 /dev/zero | tr '\\0' x); yes "$s" | head -n ${LOG_MI * 1024}`;
  return shellPod("disk-log", script, { restartPolicy: "Never" });
}

function fillerPod(): V1Pod {
  const p = shellPod(
    "disk-filler",
    `sleep 2; dd if=/dev/zero of=/data/fill bs=${MI} count=${FILL_MI}; echo filled; sleep 3600`,
  );
  p.spec!.containers[0].volumeMounts = [{ name: "data", mountPath: "/data" }];
  p.spec!.volumes = [{ name: "data", emptyDir: {} }];
  return p;
}

/** Index of the first line at or after `from` matching `re`, or -1. */
function lineIndex(lines: string[], re: RegExp, from = 0): number {
  for (let i = from; i < lines.length; i++) if (re.test(lines[i])) return i;
  return -1;
}

async function sh(cmd: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

Deno.test(
  "disk pressure: dead containers and unused images are reclaimed before the filler is evicted",
  E2E_TEST,
  async () => {
    const runtime = await ensureContainerd();
    const tmp = await Deno.makeTempDir({ prefix: "denolet-e2e-disk-" });
    const nodefs = `${tmp}/nodefs`;
    await Deno.mkdir(nodefs);
    await sh("mount", ["-t", "tmpfs", "-o", `size=${NODEFS_MI}m`, "tmpfs", nodefs]);
    const cri = createCriClient(runtime.endpoint, { timeoutMs: 30_000 });
    let e2e: E2E | undefined;
    let guard: ImageGuard | undefined;
    let throwaway = "";
    try {
      throwaway = await importThrowawayImage(runtime);
      const throwawayImg = await cri.image.imageStatus({ image: throwaway });
      assert.ok(throwawayImg, `${throwaway} was imported`);
      guard = await guardImages(cri, { hold: (img) => !isImage(img, throwaway) });

      e2e = await setupE2E({
        rootDir: `${nodefs}/root`,
        podLogsDir: `${nodefs}/logs`,
        extraArgs: [
          `--eviction-hard=nodefs.available<${THRESHOLD * 100}%`,
          "--evict-static-pods",
          "--eviction-pressure-transition-period=20s",
          // Only the eviction manager collects images here, and may take any unused one.
          "--image-gc-high-threshold=100",
          "--image-minimum-gc-age=0s",
          // The dead container's log stays one file.
          "--container-log-max-size=100Mi",
          ...nodeApiArgs(API_PORT),
        ],
      });
      const ev = e2e;

      // The finished pod's dead container holds its log; the periodic GC keeps that one.
      await ev.writePod("log.yaml", logPod());
      const logged = await ev.waitPod("disk-log", (p) => p.status?.phase === "Succeeded", {
        what: "disk-log to finish",
        timeoutMs: 60_000,
      });
      const logFile = `${ev.podLogDir(logged)}/main/0.log`;
      assert.ok((await Deno.stat(logFile)).size >= LOG_MI * MI, "a 10Mi log");
      const fs = await nodeFs(ev);
      assert.equal(fs.capacityBytes, NODEFS_MI * MI, "nodefs is the root dir's tmpfs");
      assert.ok(fs.availableBytes > fs.capacityBytes * THRESHOLD, "no pressure yet");
      assert.equal(await diskPressure(ev), "False");

      await ev.writePod("filler.yaml", fillerPod());
      let sawPressure = false;
      const evicted = await waitFor(async () => {
        sawPressure ||= (await diskPressure(ev)) === "True";
        const p = await ev.pod("disk-filler");
        return p?.status?.phase === "Failed" ? p : undefined;
      }, { timeoutMs: 90_000, intervalMs: 500, what: "the filler to be evicted" });
      sawPressure ||= (await diskPressure(ev)) === "True";

      // Admission refuses every new pod under disk pressure.
      await ev.writePod("late.yaml", shellPod("disk-late", "sleep 3600"));
      const late = await ev.waitPod("disk-late", (p) => p.status?.phase !== undefined, {
        what: "disk-late to get a status",
      });
      assert.equal(late.status?.phase, "Failed", JSON.stringify(late.status));
      assert.equal(late.status?.reason, "Evicted");
      assert.equal(
        late.status?.message,
        "Pod was rejected: The node had condition: [DiskPressure]. ",
      );
      assert.ok(sawPressure, "/node showed DiskPressure=True");

      assert.equal(evicted.status?.reason, "Evicted");
      assert.match(
        evicted.status?.message ?? "",
        /^The node was low on resource: ephemeral-storage\. Threshold quantity: \w+, available: \w+\. /,
      );

      // Reclaim came first, in upstream order: dead containers, then images, then a pod.
      const lines = (await Deno.readTextFile(ev.agent.logFile)).split("\n");
      const reclaim = lineIndex(
        lines,
        /msg="Eviction manager: attempting to reclaim" .*resourceName=ephemeral-storage/,
      );
      const containers = lineIndex(
        lines,
        /msg="Garbage collected dead containers" containers=1\b/,
        reclaim,
      );
      const image = lineIndex(
        lines,
        new RegExp(`msg="Removed unused image" image=${throwawayImg.id}`),
        reclaim,
      );
      const evict = lineIndex(lines, /msg="Evicting pod" .*component=eviction/, reclaim);
      const order = { reclaim, containers, image, evict };
      assert.ok(
        reclaim >= 0 && reclaim < containers && containers < image && image < evict,
        `reclaim, container GC, image GC, eviction in that order: ${JSON.stringify(order)}`,
      );
      assert.ok(
        !lines.slice(0, reclaim).some((l) => l.includes('msg="Evicting pod"')),
        "nothing evicted before the reclaim",
      );

      // What the reclaim removed: the finished pod's dead container and its log, our image.
      const uid = logged.metadata!.uid!;
      const left = await cri.runtime.listContainers({ labelSelector: { [POD_UID_LABEL]: uid } });
      assert.deepEqual(left, [], "disk-log's dead container is gone");
      assert.equal(await pathExists(logFile), false, "its log went with it");
      assert.equal(await cri.image.imageStatus({ image: throwaway }), undefined);
      assert.equal((await ev.pod("disk-log"))?.status?.phase, "Succeeded", "its status stays");

      // The evicted pod's emptyDir is torn down: the pressure ends after the transition period.
      await waitFor(async () => (await diskPressure(ev)) === "False", {
        timeoutMs: 60_000,
        intervalMs: 1000,
        what: "DiskPressure to return to False after the 20s transition period",
      });
      const after = await nodeFs(ev);
      assert.ok(after.availableBytes > after.capacityBytes * THRESHOLD, "nodefs recovered");
      for (const held of guard.images) {
        const img = await cri.image.imageStatus({ image: held.id });
        assert.ok(img, `held image ${held.repoTags} stays`);
      }
      const down = await ev.waitPod(
        "disk-filler",
        (p) => containerStatus(p, "main")?.state?.terminated !== undefined,
        { what: "the evicted filler's container to be terminated", timeoutMs: 30_000 },
      );
      assert.equal(down.status?.phase, "Failed", "an evicted static pod stays Failed");
      // Counted once the kill is done, as upstream.
      await waitFor(async () => {
        const metrics = await (await ev.agent.get("/metrics")).text();
        return /^kubelet_evictions\{eviction_signal="nodefs\.available"\} 1$/m.test(metrics);
      }, { timeoutMs: 15_000, what: 'kubelet_evictions{eviction_signal="nodefs.available"} 1' });
    } finally {
      await cleanUp([
        () => e2e?.close(),
        () => guard?.release(),
        () => throwaway ? removeImageIfPresent(cri, throwaway) : undefined,
        () => cri.close(),
        () => sh("umount", [nodefs]),
        () => Deno.remove(tmp, { recursive: true }),
        () => ensureImages({ socket: runtime.socket, dir: runtime.dir }),
      ]);
    }
  },
);
