/**
 * volumeMounts[].recursiveReadOnly against the real runtimes, as upstream's "Mount recursive
 * read-only" node specs check it: a hostPath directory with a tmpfs mounted below it, mounted
 * read-only into a container several ways. On containerd 2.x (which lists its handlers with
 * recursive_read_only_mounts) Enabled and IfPossible make the submount read-only too, while a
 * plain read-only mount leaves it writable. On containerd 1.6 (no handler list) IfPossible is
 * plain read-only and Enabled fails the container with upstream's CreateContainerConfigError.
 */
import assert from "node:assert/strict";
import type { V1Pod, V1VolumeMount } from "@kubernetes/client-node";
import { systemMounter } from "../../src/volumes/mod.ts";
import { CONTAINERD_VERSION } from "../support/_containerd_build.ts";
import { containerStatus, type E2E, E2E_TEST, setupE2E, shellPod } from "./_helpers.ts";

/** A host directory with a tmpfs at `<dir>/sub`, for a hostPath volume; `close` unmounts it. */
async function hostDirWithSubmount(e2e: E2E) {
  const dir = `${e2e.tmp}/host`;
  await Deno.mkdir(`${dir}/sub`, { recursive: true });
  const mounter = systemMounter();
  await mounter.mount("tmpfs", `${dir}/sub`, { fstype: "tmpfs", options: ["size=1m"] });
  return { dir, close: () => mounter.unmount(`${dir}/sub`) };
}

/** For each mount: whether a file can be made in its submount, as `<name>=writable|read-only`. */
function probePod(name: string, hostDir: string, mounts: [string, Partial<V1VolumeMount>][]) {
  const script =
    mounts.map(([n]) =>
      `if touch /mnt-${n}/sub/probe 2>/dev/null; then echo ${n}=writable; else echo ${n}=read-only; fi`
    ).join("; ") + "; echo done=1; sleep 3600";
  const pod: V1Pod = shellPod(name, script, {
    volumes: [{ name: "mnt", hostPath: { path: hostDir, type: "Directory" } }],
  });
  pod.spec!.containers[0].volumeMounts = mounts.map(([n, m]) => ({
    name: "mnt",
    mountPath: `/mnt-${n}`,
    ...m,
  }));
  return pod;
}

/** status.containerStatuses[main].volumeMounts: recursiveReadOnly by mount path. */
async function mountStatuses(e2e: E2E, name: string) {
  const p = await e2e.pod(name);
  return Object.fromEntries(
    (containerStatus(p!, "main")?.volumeMounts ?? []).map((m) => [
      m.mountPath.replace("/mnt-", ""),
      m.recursiveReadOnly ?? "-",
    ]),
  );
}

/** The `name=value` lines of the container's log. */
async function results(e2e: E2E, name: string): Promise<Map<string, string>> {
  const running = await e2e.waitPod(
    name,
    (p) => containerStatus(p, "main")?.state?.running !== undefined,
    { what: `container main of ${name} to run`, timeoutMs: 60_000 },
  );
  const log = await e2e.waitLog(running, "main", ["done=1"]);
  return new Map(
    log.split("\n").flatMap((l) => {
      const m = /\s(\S+)=(\S+)$/.exec(l);
      return m ? [[m[1], m[2]] as [string, string]] : [];
    }),
  );
}

Deno.test({
  name: "recursiveReadOnly on containerd v2: a submount under an RRO mount is read-only too",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E({ runtime: { containerd: "upstream" } });
    const host = await hostDirWithSubmount(e2e);
    try {
      assert.equal((await e2e.cri.runtime.version()).runtimeVersion, CONTAINERD_VERSION);
      await e2e.writePod(
        "rro.yaml",
        probePod("rro", host.dir, [
          ["rro", { readOnly: true, recursiveReadOnly: "Enabled", mountPropagation: "None" }],
          ["rro-if-possible", { readOnly: true, recursiveReadOnly: "IfPossible" }],
          ["rro-disabled", { readOnly: true, recursiveReadOnly: "Disabled" }],
          ["ro", { readOnly: true }],
          ["rw", {}],
        ]),
      );
      assert.deepEqual(Object.fromEntries(await results(e2e, "rro")), {
        "rro": "read-only",
        "rro-if-possible": "read-only",
        "rro-disabled": "writable",
        "ro": "writable",
        "rw": "writable",
        "done": "1",
      });
      // As upstream reports them: "-" is a writable mount's (no recursiveReadOnly).
      assert.deepEqual(await mountStatuses(e2e, "rro"), {
        "rro": "Enabled",
        "rro-if-possible": "Enabled",
        "rro-disabled": "Disabled",
        "ro": "Disabled",
        "rw": "-",
      });
    } finally {
      // The suite's temp dir goes with close(): the tmpfs must be gone first.
      await host.close();
      await e2e.close();
    }
  },
});

Deno.test({
  name: "recursiveReadOnly on containerd 1.6: IfPossible is plain read-only, Enabled is refused",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E({ runtime: { containerd: "system" } });
    const host = await hostDirWithSubmount(e2e);
    try {
      await e2e.writePod(
        "maybe.yaml",
        probePod("maybe", host.dir, [
          ["rro-if-possible", { readOnly: true, recursiveReadOnly: "IfPossible" }],
          ["ro", { readOnly: true }],
        ]),
      );
      await e2e.writePod(
        "enabled.yaml",
        probePod("enabled", host.dir, [["rro", { readOnly: true, recursiveReadOnly: "Enabled" }]]),
      );
      const got = await results(e2e, "maybe");
      assert.equal(got.get("rro-if-possible"), "writable");
      assert.equal(got.get("ro"), "writable");
      assert.deepEqual(await mountStatuses(e2e, "maybe"), {
        "rro-if-possible": "Disabled",
        "ro": "Disabled",
      });

      const refused = await e2e.waitPod(
        "enabled",
        (p) => containerStatus(p, "main")?.state?.waiting?.reason === "CreateContainerConfigError",
        { what: "container main to wait with CreateContainerConfigError", timeoutMs: 60_000 },
      );
      assert.equal(
        containerStatus(refused, "main")?.state?.waiting?.message,
        'failed to resolve recursive read-only mode: volume "mnt" requested recursive ' +
          "read-only mode, but it is not supported by the runtime",
      );
    } finally {
      await host.close();
      await e2e.close();
    }
  },
});
