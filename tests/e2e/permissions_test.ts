/**
 * The agent runs from source under exactly the permission set src/permissions derives from its
 * configuration, through a whole static pod life cycle on the real containerd. A permission the
 * agent needs but the set lacks fails here, where `deno compile` cannot run.
 *
 * Today that set is --allow-all: stats, the Node status and QoS cgroups read /proc and /sys,
 * which Deno grants to nothing less (denoland/deno#27564). The second test checks that the
 * narrow remainder is refused at start-up with that reason, not deep inside a sync.
 */
import assert from "node:assert/strict";
import type { V1PodList } from "@kubernetes/client-node";
import { stringify as toYaml } from "yaml";
import { loadConfig } from "../../src/config/mod.ts";
import { createCriClient } from "../../src/cri/mod.ts";
import { permissionFlags, permissionSet, toFlags } from "../../src/permissions/mod.ts";
import { removeAgentSandboxes } from "../support/agent.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { ownDirsAgentArgs } from "../support/own_dirs_agent.ts";
import { freePort, waitFor } from "../support/wait.ts";
import { BUSYBOX, E2E_TEST, isRunning, POD_UID_LABEL, shellPod } from "./_helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN_TS = `${ROOT}main.ts`;

interface Agent {
  args: string[];
  flags: string[];
  /** The set without its --allow-all needs: what would do, were /proc and /sys grantable. */
  narrowFlags: string[];
  baseURL: string;
  logFile: string;
}

/** Unique per run: the agent owns (and removes) every sandbox labelled with its node name. */
const NODE_NAME = `perm-e2e-${Deno.pid}`;

async function prepare(tmp: string, endpoint: string): Promise<Agent> {
  const port = freePort();
  const own = await ownDirsAgentArgs(tmp, { endpoint, readOnlyPort: port, hostname: NODE_NAME });
  const configFile = own.configFile;
  const args = [
    ...own.args,
    // No --node-ip: the interface look-up is exercised.
    "--file-check-frequency",
    "1s",
    "--sync-frequency",
    "5s",
    "-v",
    "2",
  ];
  const loaded = await loadConfig(args);
  assert.equal(loaded.kind, "run");
  if (loaded.kind !== "run") throw new Error("unreachable");
  const opts = { configFile };
  const flags = permissionFlags(loaded.config, opts);
  const narrowFlags = toFlags({ ...permissionSet(loaded.config, opts), allowAll: [] });
  return {
    args,
    flags,
    narrowFlags,
    baseURL: `http://127.0.0.1:${port}`,
    logFile: `${tmp}/agent.log`,
  };
}

function spawn(agent: Agent, flags: string[]): Deno.ChildProcess {
  // `exec` keeps the pid the agent's own; the shell only sends both streams to the log file.
  return new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" "$@" >"$LOG" 2>&1',
      Deno.execPath(),
      "run",
      "--no-prompt",
      ...flags,
      MAIN_TS,
      ...agent.args,
    ],
    env: { LOG: agent.logFile, NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
}

/** SIGKILL unless it already exited (kill then throws TypeError, the only expected error). */
function killQuietly(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch (err) {
    if (!(err instanceof TypeError)) console.error(err);
  }
}

async function pods(agent: Agent): Promise<V1PodList> {
  const res = await fetch(`${agent.baseURL}/pods`);
  if (!res.ok) throw new Error(`GET /pods: ${res.status} ${await res.text()}`);
  return await res.json() as V1PodList;
}

Deno.test({
  name: "permissions: a static pod's whole life cycle runs under the derived permission set",
  ...E2E_TEST,
  async fn(t) {
    const runtime = await ensureContainerd();
    const tmp = await Deno.makeTempDir({ prefix: "denolet-e2e-perm-" });
    const cri = createCriClient(runtime.endpoint, { timeoutMs: 30_000 });
    const agent = await prepare(tmp, runtime.endpoint);
    const nodeName = NODE_NAME;
    const child = spawn(agent, agent.flags);
    const log = () => Deno.readTextFile(agent.logFile).catch((e) => `(no log: ${e})`);
    let podUID = "";
    try {
      await t.step("healthy", async () => {
        await waitFor(async () => {
          const res = await fetch(`${agent.baseURL}/healthz`);
          await res.body?.cancel();
          return res.status === 200;
        }, { timeoutMs: 60_000, what: `/healthz; log:\n${await log()}` });
      });

      await t.step("a manifest becomes a Running pod with a volume and logs", async () => {
        const script = "echo started > /scratch/x; echo started > /mem/x; echo started; sleep 3600";
        const pod = shellPod("perm", script, {
          volumes: [
            { name: "scratch", emptyDir: {} },
            // A tmpfs: exercises mount(8) and umount(8) (--allow-run).
            { name: "mem", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } },
          ],
        });
        pod.spec!.containers[0].volumeMounts = [
          { name: "scratch", mountPath: "/scratch" },
          { name: "mem", mountPath: "/mem" },
        ];
        pod.spec!.containers[0].image = BUSYBOX;
        await Deno.writeTextFile(`${tmp}/manifests/.perm.tmp`, toYaml(pod));
        await Deno.rename(`${tmp}/manifests/.perm.tmp`, `${tmp}/manifests/perm.yaml`);
        const running = await waitFor(async () => {
          const p = (await pods(agent)).items.find((i) => i.metadata?.name?.startsWith("perm-"));
          return p && isRunning(p) ? p : undefined;
        }, { timeoutMs: 60_000, what: "pod perm to be Running" }).catch(async (err) => {
          throw new Error(`${err.message}\nagent log:\n${await log()}`, { cause: err });
        });
        podUID = running.metadata?.uid ?? "";
        assert.equal(running.spec?.nodeName, nodeName);
        const logDir = `${tmp}/pods/default_${running.metadata?.name}_${podUID}/main`;
        await waitFor(
          async () => (await Deno.readTextFile(`${logDir}/0.log`)).includes("started"),
          {
            what: "container log",
          },
        );
      });

      await t.step("removing the manifest removes the pod, its sandbox and directory", async () => {
        await Deno.remove(`${tmp}/manifests/perm.yaml`);
        await waitFor(async () => {
          const gone = !(await pods(agent)).items.some((i) => i.metadata?.uid === podUID);
          const sandboxes = await cri.runtime.listPodSandbox({
            labelSelector: { [POD_UID_LABEL]: podUID },
          });
          const dirGone = await Deno.stat(`${tmp}/root/pods/${podUID}`).then(
            () => false,
            () => true,
          );
          return gone && sandboxes.length === 0 && dirGone;
        }, { timeoutMs: 60_000, what: "pod, sandbox and pod directory to be removed" }).catch(
          async (err) => {
            throw new Error(`${err.message}\nagent log:\n${await log()}`, { cause: err });
          },
        );
      });

      await t.step("stops cleanly and never hit a permission check", async () => {
        child.kill("SIGTERM");
        const status = await child.status;
        const text = await log();
        assert.equal(status.code, 0, text);
        assert.doesNotMatch(text, /NotCapable|Requires \w+ access/, text);
      });
    } finally {
      killQuietly(child);
      await child.status;
      await removeAgentSandboxes(cri.runtime, nodeName).catch((e) => console.error(e));
      cri.close();
      await Deno.remove(tmp, { recursive: true }).catch((e) => console.error(e));
    }
  },
});

Deno.test({
  name: "permissions: without --allow-all the agent refuses to start and says why",
  ...E2E_TEST,
  async fn() {
    const runtime = await ensureContainerd();
    const tmp = await Deno.makeTempDir({ prefix: "denolet-e2e-perm-" });
    try {
      const agent = await prepare(tmp, runtime.endpoint);
      assert.ok(!agent.narrowFlags.includes("--allow-all"));
      const status = await spawn(agent, agent.narrowFlags).status;
      const text = await Deno.readTextFile(agent.logFile);
      assert.equal(status.code, 1, text);
      assert.match(text, /needs --allow-all, because Deno grants \/proc, \/sys and \/dev/);
      assert.match(text, /QoS pod cgroups/);
      assert.doesNotMatch(text, /^\s+at /m, "no stack trace");
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
