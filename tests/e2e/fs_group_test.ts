/**
 * securityContext.fsGroup as a non-root container sees it, against the real containerd, with
 * the checks of upstream's conformance specs ("emptydir ... when FSGroup is specified",
 * "consumable from pods in volume as non-root with defaultMode and fsGroup set", the projected
 * token's "ownership and permission when RunAsUser or FsGroup is present"): emptyDir on disk
 * and on tmpfs, a subPath made in one, downwardAPI files (a static pod suffices for these), and
 * in API mode configMap, secret and projected token files, an updated ConfigMap included.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { waitFor } from "../support/agent.ts";
import { busyboxPod, type ClusterE2E, execMain, runningMain, setupCluster } from "./_cluster.ts";
import { containerStatus, E2E_TEST, pathExists, setupE2E, shellPod } from "./_helpers.ts";

const TIMEOUT = 120_000;

/** `name=value` lines of a container's output (CRI log lines or plain stdout). */
function fields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /(?:^|\s)(\w+)=(.*)$/.exec(line.replace(/^\S+ (?:stdout|stderr) [PF] /, ""));
    if (m) out.set(m[1], m[2].trim());
  }
  return out;
}

Deno.test({
  name: "fsGroup: a non-root container owns emptyDir, subPath and downwardAPI files by group",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    try {
      const pod = shellPod(
        "fsgroup",
        [
          "echo disk=$(stat -c '%A %u %g' /disk)",
          "echo mem=$(stat -c '%A %u %g' /mem)",
          "echo sub=$(stat -c '%A %u %g' /sub)",
          "echo podname=$(stat -L -c '%A %g' /info/podname) $(cat /info/podname)",
          // Upstream's "new files should be created with FSGroup ownership" as non-root.
          "touch /mem/new && chmod 0660 /mem/new && echo new=$(stat -c '%A %u %g' /mem/new)",
          "echo groups=$(id -G)",
          "sleep 3600",
        ].join("; "),
        {
          securityContext: { runAsUser: 1001, fsGroup: 123 },
          volumes: [
            { name: "disk", emptyDir: {} },
            { name: "mem", emptyDir: { medium: "Memory" } },
            {
              name: "info",
              downwardAPI: {
                defaultMode: 0o440,
                items: [{ path: "podname", fieldRef: { fieldPath: "metadata.name" } }],
              },
            },
          ],
        },
      );
      pod.spec!.containers[0].volumeMounts = [
        { name: "disk", mountPath: "/disk" },
        { name: "mem", mountPath: "/mem" },
        { name: "mem", mountPath: "/sub", subPath: "test-sub" },
        { name: "info", mountPath: "/info" },
      ];
      await e2e.writePod("fsgroup.yaml", pod);
      const running = await e2e.waitPod(
        "fsgroup",
        (p) => containerStatus(p, "main")?.state?.running !== undefined,
        { what: "container main of fsgroup to run", timeoutMs: 60_000 },
      );
      const out = fields(await e2e.waitLog(running, "main", ["groups="]));
      assert.equal(out.get("disk"), "drwxrwsrwx 0 123");
      // A tmpfs keeps its sticky bit, as upstream's: the subPath made in it copies the mode.
      assert.equal(out.get("mem"), "drwxrwsrwt 0 123");
      assert.equal(out.get("sub"), "drwxrwsrwt 0 123");
      assert.equal(out.get("podname"), `-r--r----- 123 ${e2e.podName("fsgroup")}`);
      assert.equal(out.get("new"), "-rw-rw---- 1001 123");
      assert.ok(out.get("groups")?.split(" ").includes("123"), out.get("groups"));

      // The agent unmounts the tmpfs and the subPath when the pod goes; a stopped agent would
      // leave them (as a kubelet does).
      await e2e.removeManifest("fsgroup.yaml");
      const podDir = `${e2e.agent.rootDir}/pods/${running.metadata?.uid}`;
      await waitFor(async () => !(await pathExists(podDir)), {
        timeoutMs: 60_000,
        what: "the pod's directory to be removed",
      });
    } finally {
      await e2e.close();
    }
  },
});

/** Runs `script` as the container's user; fails the test on a non-zero exit. */
async function read(c: ClusterE2E, pod: string, script: string): Promise<string> {
  const r = await execMain(c, pod, script);
  assert.equal(r.code, 0, `${script}: ${r.err}`);
  return r.out;
}

Deno.test({
  name: "API mode: fsGroup on configMap, secret and token files a non-root container reads",
  ...E2E_TEST,
  async fn() {
    const c = await setupCluster();
    try {
      await c.apply(
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "fsg-config", namespace: "default" },
          data: { "data-1": "value-1", "data-2": "value-2" },
        },
        {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "fsg-secret", namespace: "default" },
          stringData: { "data-1": "secret-1" },
        },
      );
      const pod: V1Pod = busyboxPod("fsg", "sleep 3600", {
        node: c.nodeName,
        extra: {
          securityContext: { runAsUser: 1000, fsGroup: 1001 },
          volumes: [
            { name: "cm", configMap: { name: "fsg-config", defaultMode: 0o440 } },
            {
              name: "mapped",
              configMap: { name: "fsg-config", items: [{ key: "data-2", path: "path/to/data-2" }] },
            },
            { name: "sec", secret: { secretName: "fsg-secret", defaultMode: 0o400 } },
            {
              name: "token",
              projected: { sources: [{ serviceAccountToken: { path: "token" } }] },
            },
          ],
        },
      });
      pod.spec!.containers[0].volumeMounts = [
        { name: "cm", mountPath: "/etc/cm" },
        { name: "mapped", mountPath: "/etc/mapped" },
        { name: "sec", mountPath: "/etc/sec" },
        { name: "token", mountPath: "/etc/token" },
      ];
      await c.apply(pod);
      await waitFor(() => runningMain(c, "fsg"), {
        timeoutMs: TIMEOUT,
        intervalMs: 500,
        what: "pod fsg's container to run",
      });

      assert.equal(await read(c, "fsg", "id -u"), "1000");
      assert.ok((await read(c, "fsg", "id -G")).split(" ").includes("1001"));
      // Upstream's conformance: defaultMode 0440 with an fsGroup, read as non-root.
      assert.equal(await read(c, "fsg", "cat /etc/cm/data-1"), "value-1");
      assert.equal(
        await read(c, "fsg", "stat -L -c '%A %u %g' /etc/cm/data-1"),
        "-r--r----- 0 1001",
      );
      assert.equal(await read(c, "fsg", "cat /etc/mapped/path/to/data-2"), "value-2");
      assert.equal(
        await read(c, "fsg", "stat -L -c '%A %g' /etc/mapped/path/to/data-2 /etc/mapped/path"),
        "-rw-r--r-- 1001\ndrwxr-sr-x 1001",
      );
      // 0400 alone would keep uid 1000 out; the group read bit lets it in.
      assert.equal(await read(c, "fsg", "cat /etc/sec/data-1"), "secret-1");
      assert.equal(await read(c, "fsg", "stat -L -c '%A %g' /etc/sec/data-1"), "-r--r----- 1001");
      // The token: 0600 for the one runAsUser, group read from the fsGroup.
      assert.equal(
        await read(c, "fsg", "stat -L -c '%A %u %g' /etc/token/token"),
        "-rw-r----- 1000 1001",
      );
      assert.match(await read(c, "fsg", "cat /etc/token/token"), /^[\w-]+\.[\w-]+\.[\w-]+$/);
      // The volume root: a dir the group may list, setgid.
      assert.equal(await read(c, "fsg", "stat -c '%A %g' /etc/cm"), "drwxrwsrwx 1001");

      // An update is a new version of the volume: it gets the group as the first did.
      await c.apply({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "fsg-config", namespace: "default" },
        data: { "data-1": "value-1b", "data-2": "value-2", "data-3": "value-3" },
      });
      await waitFor(
        async () => (await read(c, "fsg", "cat /etc/cm/data-3 2>/dev/null || true")) === "value-3",
        { timeoutMs: TIMEOUT, intervalMs: 1000, what: "the ConfigMap update to reach the pod" },
      );
      assert.equal(await read(c, "fsg", "cat /etc/cm/data-1"), "value-1b");
      assert.equal(
        await read(c, "fsg", "stat -L -c '%A %g' /etc/cm/data-1 /etc/cm/data-3 /etc/cm/..data"),
        "-r--r----- 1001\n-r--r----- 1001\ndrwxr-sr-x 1001",
      );
    } finally {
      await c.close();
    }
  },
});
