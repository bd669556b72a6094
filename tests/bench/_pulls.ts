/**
 * `--only pulls` (issue 28): the same number of distinct images, each with a fresh layer of
 * incompressible bytes, pulled from a local registry by N static pods written at once, with the
 * agent pulling one at a time (`--serialize-image-pulls=true`, the default) and in parallel
 * (`false`, maxParallelImagePulls unset: no limit but registryPullQPS/registryBurst). Measured
 * from the manifests written to the last container started (ContainerStatus.startedAt). The
 * registry is plain HTTP on loopback (anonymous pulls): the shared containerd needs no config.
 */
import type { CriClient } from "../../src/cri/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { startAgent } from "../support/agent.ts";
import type { DevRuntime } from "../support/containerd.ts";
import { startRegistry } from "../support/registry.ts";
import { podNames, waitContainersRunning, waitSandboxesGone } from "./_pods.ts";

export interface PullsResult {
  images: number;
  /** Bytes of each image's fresh layer (uncompressed and, being random, compressed). */
  payloadBytes: number;
  /** Manifests written to the last container started, ms. */
  serialMs: number;
  parallelMs: number;
  /** serial / parallel. */
  ratio: number;
}

export interface PullsOptions {
  runtime: DevRuntime;
  cri: CriClient;
  images?: number;
  payloadBytes?: number;
  agentMain?: string;
  progress: (s: string) => void;
}

/** Runs the serial then the parallel agent, each on its own set of never-pulled images. */
export async function pullsBench(opts: PullsOptions): Promise<PullsResult> {
  const n = opts.images ?? 6;
  const payloadBytes = opts.payloadBytes ?? 6 * 1024 * 1024;
  const registry = await startRegistry({ users: {} });
  const pushed: string[] = [];
  try {
    const run = crypto.randomUUID().slice(0, 8);
    const times: Record<string, number> = {};
    for (const mode of ["serial", "parallel"] as const) {
      opts.progress(`pulls: pushing ${n} images of ${payloadBytes} fresh bytes (${mode})`);
      const images: string[] = [];
      for (let i = 0; i < n; i++) {
        const { image } = await registry.pushBusybox(`bench/${mode}-${i}`, {
          tag: run,
          marker: `${run}-${mode}-${i}`,
          payloadBytes,
        });
        images.push(image);
      }
      pushed.push(...images);
      opts.progress(`pulls: ${n} pods at once, ${mode}`);
      times[mode] = await timePulls(opts, images, mode === "serial");
    }
    return {
      images: n,
      payloadBytes,
      serialMs: times.serial,
      parallelMs: times.parallel,
      ratio: times.serial / times.parallel,
    };
  } finally {
    for (const image of pushed) {
      await opts.cri.image.removeImage({ image }).catch((err) =>
        console.error(`[bench] cannot remove ${image}: ${err}`)
      );
    }
    await registry.stop();
  }
}

async function timePulls(opts: PullsOptions, images: string[], serial: boolean): Promise<number> {
  await using agent = await startAgent({
    runtime: opts.runtime,
    cleanupWith: opts.cri.runtime,
    mainModule: opts.agentMain,
    extraArgs: [`--serialize-image-pulls=${serial}`],
  });
  await agent.waitHealthy({ timeoutMs: 60_000 });
  const names = podNames(serial ? "pull-s" : "pull-p", images.length);
  const t0 = realClock.now();
  await Promise.all(
    names.map((name, i) =>
      Deno.writeTextFile(`${agent.manifestDir}/${name}.yaml`, sleeper(name, images[i]))
    ),
  );
  const starts = await waitContainersRunning(opts.cri.runtime, { node: agent.hostname, names });
  const elapsed = Math.max(...starts.values()) - t0;
  await Promise.all(names.map((n) => Deno.remove(`${agent.manifestDir}/${n}.yaml`)));
  await waitSandboxesGone(opts.cri.runtime, { node: agent.hostname, names });
  return elapsed;
}

function sleeper(name: string, image: string): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: ${image}
    imagePullPolicy: IfNotPresent
    command: ["sleep", "3600"]
`;
}

export function formatPulls(r: PullsResult): string[] {
  const mb = (r.payloadBytes / 1024 / 1024).toFixed(1);
  return [
    `Image pulls: ${r.images} pods at once, each its own image with a fresh ${mb} MiB layer`,
    `  serialized (serializeImagePulls true):  ${r.serialMs.toFixed(0)} ms`,
    `  parallel   (serializeImagePulls false): ${r.parallelMs.toFixed(0)} ms`,
    `  ratio serial / parallel: ${r.ratio.toFixed(2)}`,
  ];
}
