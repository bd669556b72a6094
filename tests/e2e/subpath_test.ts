/**
 * subPath against a symlink swap (the CVE-2017-1002101 class): a container sharing an emptyDir
 * keeps swapping the directory `x` for a symlink to `/` while other containers are started and
 * restarted with `subPath: x`. The agent checks the path and the runtime mounts it later; had it
 * handed over the path as a string, some starts would mount the host's root. Every start must
 * show the intended directory (or an empty one the agent created in a gap of the swap), or fail
 * with CreateContainerConfigError. The subPath bind mounts go with the pod.
 */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { realClock } from "../../src/util/clock.ts";
import { parseMountInfo } from "../../src/volumes/mod.ts";
import { waitFor } from "../support/agent.ts";
import { BUSYBOX, E2E_TEST, pathExists, POD_UID_LABEL, setupE2E } from "./_helpers.ts";

const VICTIMS = 8;
/** How long the victims keep being (re)started against the swap. */
const OBSERVE_MS = 60_000;

// `x` is the directory or a symlink to / for a few milliseconds each, absent in between (a
// rename cannot swap a directory and a symlink in one step). `mv -T` renames onto the name
// itself, never into a directory the agent may have created in a gap; an empty such directory
// is removed on the next round.
const SWAPPER = `cd /shared
n=0
while :; do
  mv -T x keep 2>/dev/null
  ln -s / lnk 2>/dev/null; mv -T lnk x 2>/dev/null
  usleep 3000
  rm -f x 2>/dev/null || rmdir x 2>/dev/null
  mv -T keep x 2>/dev/null
  usleep 3000
  n=$((n+1)); [ $((n % 200)) -eq 0 ] && echo "swaps=$n"
done`;

/** What /data holds: the intended directory, an empty one, or anything else (an escape). */
function victimScript(hostMarker: string): string {
  return `seen="$(ls -A /data | head -n 20 | tr '\\n' ' ')"
if [ -e "/data${hostMarker}" ]; then echo "ESCAPED host marker visible: $seen"
elif [ "$seen" = "marker " ] && [ "$(cat /data/marker)" = intended ]; then echo INTENDED
elif [ -z "$seen" ]; then echo EMPTY
else echo "ESCAPED: $seen"; fi
sleep 1; exit 1`;
}

function sh(name: string, script: string, extra: Partial<V1Container> = {}): V1Container {
  return {
    name,
    image: BUSYBOX,
    imagePullPolicy: "IfNotPresent",
    command: ["sh", "-c", script],
    volumeMounts: [{ name: "shared", mountPath: "/shared" }],
    ...extra,
  };
}

function swapPod(hostMarker: string): V1Pod {
  const victims = Array.from(
    { length: VICTIMS },
    (_, i) =>
      sh(`victim-${i}`, victimScript(hostMarker), {
        volumeMounts: [{ name: "shared", mountPath: "/data", subPath: "x", readOnly: true }],
      }),
  );
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "subpath-swap", namespace: "default" },
    spec: {
      terminationGracePeriodSeconds: 1,
      restartPolicy: "Always",
      volumes: [{ name: "shared", emptyDir: {} }],
      initContainers: [sh("setup", "mkdir -p /shared/x && echo intended > /shared/x/marker")],
      // A CPU request keeps the swapper swapping on a loaded machine (best-effort shares are 2).
      containers: [
        sh("swapper", SWAPPER, { resources: { requests: { cpu: "250m" } } }),
        ...victims,
      ],
    },
  };
}

/** Every log line of every instance of `container` (all `<n>.log` files). */
async function allLogs(dir: string): Promise<string> {
  let out = "";
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile) out += await Deno.readTextFile(`${dir}/${e.name}`);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out;
}

async function mountsUnder(dir: string): Promise<string[]> {
  const real = await Deno.realPath(dir);
  return parseMountInfo(await Deno.readTextFile("/proc/self/mountinfo"))
    .filter((m) => m === real || m.startsWith(real + "/"));
}

Deno.test({
  name: "subPath: a sibling swapping the directory for a symlink to / never redirects the mount",
  ...E2E_TEST,
  async fn(t) {
    const e2e = await setupE2E();
    try {
      // A file only the host's root file system has: visible under /data only after an escape.
      const hostMarker = `${await Deno.realPath(e2e.tmp)}/host-root-marker`;
      await Deno.writeTextFile(hostMarker, "host\n");
      await e2e.writePod("swap.yaml", swapPod(hostMarker));
      const pod = await e2e.waitPod(
        "subpath-swap",
        (p) =>
          p.status?.containerStatuses?.some((c) => c.name === "swapper" && c.state?.running) ??
            false,
        { what: "the swapper to run", timeoutMs: 90_000 },
      );
      const uid = pod.metadata?.uid ?? "";
      const podDir = `${e2e.agent.rootDir}/pods/${uid}`;

      const configErrors: string[] = [];
      const otherWaits = new Set<string>();
      await t.step("victims (re)start against the swap and never see the host", async () => {
        const end = realClock.now() + OBSERVE_MS;
        while (realClock.now() < end) {
          const p = await e2e.pod("subpath-swap");
          for (const cs of p?.status?.containerStatuses ?? []) {
            const w = cs.state?.waiting;
            if (!cs.name.startsWith("victim-") || !w?.reason) continue;
            if (w.reason === "CreateContainerConfigError") {
              configErrors.push(`${cs.name}: ${w.message}`);
            } else otherWaits.add(`${w.reason}: ${w.message ?? ""}`);
          }
          await realClock.sleep(500);
        }
        const swaps = await allLogs(`${e2e.podLogDir(pod)}/swapper`);
        assert.match(swaps, /swaps=\d+/, "the swapper kept swapping");
        let intended = 0;
        let empty = 0;
        for (let i = 0; i < VICTIMS; i++) {
          const log = await allLogs(`${e2e.podLogDir(pod)}/victim-${i}`);
          assert.doesNotMatch(log, /ESCAPED/, `victim-${i} saw something else:\n${log}`);
          intended += log.match(/INTENDED/g)?.length ?? 0;
          empty += log.match(/EMPTY/g)?.length ?? 0;
        }
        assert.ok(intended > 0, "some victim started with the intended directory");
        for (const msg of configErrors) {
          assert.match(
            msg,
            /^victim-\d: containers\[victim-\d\]\.volumeMounts\[shared\]: failed to prepare subPath for volumeMount "shared" of container "victim-\d"$/,
          );
          assert.ok(!msg.includes(e2e.agent.rootDir), `no node path in the status: ${msg}`);
        }
        // A swap between the agent's bind mount and runc's can also make the start fail with
        // a missing source: refused, which is as safe as the others.
        for (const w of otherWaits) {
          assert.match(
            w,
            /^(CrashLoopBackOff|ContainerCreating|RunContainerError: .*no such file or directory)/,
            w,
          );
        }
        console.log(
          `[subpath e2e] ${intended} starts with the intended directory, ${empty} with an ` +
            `empty one the agent created, ` +
            `${configErrors.length} CreateContainerConfigError observations`,
        );
      });

      await t.step("the runtime mounts the agent's bind mounts, not the volume path", async () => {
        const mounted = await mountsUnder(`${podDir}/volume-subpaths/shared`);
        const victims = (await e2e.cri.runtime.listContainers({
          labelSelector: { [POD_UID_LABEL]: uid },
        })).filter((c) => c.metadata.name.startsWith("victim-"));
        assert.ok(victims.length >= VICTIMS, `victim containers: ${victims.length}`);
        const realPodDir = await Deno.realPath(podDir);
        let bound = 0;
        for (const c of victims) {
          const status = await e2e.cri.runtime.containerStatus(c.id);
          const data = status.mounts.find((m) => m.containerPath === "/data");
          const target = `volume-subpaths/shared/${c.metadata.name}/0`;
          assert.equal(data?.hostPath, `${podDir}/${target}`, c.metadata.name);
          // A later start that failed (the directory it opened was deleted before the bind)
          // removes the target a dead instance names; the latest good ones stay mounted.
          if (mounted.includes(`${realPodDir}/${target}`)) bound++;
        }
        assert.ok(bound > 0, `bind mounts under the pod directory:\n${mounted.join("\n")}`);
      });

      await t.step("removing the pod unmounts and removes the subPath mounts", async () => {
        await e2e.removeManifest("swap.yaml");
        await waitFor(async () => !(await pathExists(podDir)), {
          timeoutMs: 90_000,
          intervalMs: 500,
          what: `pod directory ${podDir} to be removed`,
        });
        assert.deepEqual(await mountsUnder(e2e.agent.rootDir), []);
      });
    } finally {
      await e2e.close();
    }
  },
});
