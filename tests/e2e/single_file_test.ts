/**
 * The packed single file (`deno task package`) as a user gets it: built from the registries'
 * runtime and a bundle of main.ts, copied alone into an empty directory, started with no deno on
 * PATH and no checkout beside it. The x86_64 file installs into a temporary root, runs a static
 * pod to Running on the real containerd, and uninstalls without a trace. The arm64 file is
 * checked by its structure and, through Debian's qemu-user-static, by running `--version`.
 */
import assert from "node:assert/strict";
import { stringify as toYaml } from "yaml";
import type { V1PodList } from "@kubernetes/client-node";
import { BUILD_INFO } from "../../src/build_info/mod.ts";
import { createCriClient } from "../../src/cri/mod.ts";
import { defaultConfigYaml, LAYOUT } from "../../src/install/mod.ts";
import { removeAgentSandboxes, removeCgroupTree } from "../support/agent.ts";
import { bakedPermissionFlags } from "../support/compile.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { ensureQemuAarch64 } from "../support/_package_qemu.ts";
import { PACK_TARGETS } from "../support/_package_runtime.ts";
import { buildPackages, inspectPackage } from "../support/package.ts";
import { freePort, waitFor } from "../support/wait.ts";
import { BUSYBOX, E2E_TEST, isRunning, POD_UID_LABEL, shellPod } from "./_helpers.ts";

const [AMD64, ARM64] = PACK_TARGETS;
const NODE_NAME = `single-file-${Deno.pid}`;
const decoder = new TextDecoder();

/** The system directories of PATH, without any that holds a `deno`. */
function pathWithoutDeno(): string {
  const dirs = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];
  return dirs.filter((d) => {
    try {
      Deno.statSync(`${d}/deno`);
      return false;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return true;
      throw err;
    }
  }).join(":");
}

interface Run {
  code: number;
  out: string;
  err: string;
}

/** Every path under `dir` that is not a directory, relative to it. */
async function filesUnder(dir: string, rel = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(`${dir}${rel}`)) {
    const path = `${rel}/${e.name}`;
    if (e.isDirectory) found.push(...await filesUnder(dir, path));
    else found.push(path);
  }
  return found.sort();
}

async function gone(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => false, () => true);
}

Deno.test({
  name: "single file: copied alone, installs, runs a static pod on containerd, uninstalls clean",
  ...E2E_TEST,
  async fn(t) {
    const runtime = await ensureContainerd();
    const tmp = await Deno.makeTempDir({ prefix: "denolet-e2e-single-" });
    const cri = createCriClient(runtime.endpoint, { timeoutMs: 30_000 });
    const root = `${tmp}/root`;
    const download = `${tmp}/download`;
    const home = `${tmp}/home`;
    const unpackDir = `${root}${LAYOUT.unpackDir}`;
    const file = `${download}/${AMD64.file}`;
    const installed = `${root}${LAYOUT.binDir}/${LAYOUT.binName}`;
    const logFile = `${tmp}/agent.log`;
    // A node's environment: no deno on PATH; unpacking goes under the temporary root, where the
    // node's /var/cache/denolet would be.
    const env = {
      PATH: pathWithoutDeno(),
      HOME: home,
      DENOLET_UNPACK_DIR: unpackDir,
      NO_COLOR: "1",
    };
    const run = async (cmd: string, args: string[], extra: Record<string, string> = {}) => {
      const out = await new Deno.Command(cmd, {
        args,
        cwd: download,
        clearEnv: true,
        env: { ...env, ...extra },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: out.code, out: decoder.decode(out.stdout), err: decoder.decode(out.stderr) };
    };
    const must = (r: Run, what: string) => assert.equal(r.code, 0, `${what}:\n${r.out}\n${r.err}`);
    let agent: Deno.ChildProcess | undefined;
    try {
      const built = await buildPackages({
        outDir: `${tmp}/dist`,
        log: (line) => console.error(`[single-file] ${line}`),
      });
      const [amd64, arm64] = built.packages;
      const sums = await Deno.readTextFile(built.sumsFile);
      assert.equal(
        sums,
        `${amd64.sha256}  ${AMD64.file}\n${arm64.sha256}  ${ARM64.file}\n`,
      );
      for (const dir of [root, download, home]) await Deno.mkdir(dir);
      await Deno.copyFile(amd64.path, file);
      await Deno.chmod(file, 0o755);

      await t.step(
        "no deno on PATH, and --version reports the commit it was built from",
        async () => {
          assert.notEqual((await run("sh", ["-c", "command -v deno"])).code, 0, "deno on PATH");
          const first = await run(file, ["--version"]);
          must(first, "--version");
          assert.equal(
            first.out.trim(),
            `denolet v${BUILD_INFO.version} (commit ${built.commit}, kubelet-compatible)`,
          );
          assert.match(first.err, /unpacked into /);
          const second = await run(file, ["--version"]);
          must(second, "--version again");
          assert.equal(second.err, "", "unpacked once: the second start only verifies");
        },
      );

      await t.step(
        "runs with exactly the permission set `denolet permissions` prints",
        async () => {
          const { header } = await inspectPackage(await Deno.readFile(file));
          const carried = header.runArgs.filter((a) => a.startsWith("--allow-"));
          assert.deepEqual(carried, await bakedPermissionFlags([]));
          await Deno.mkdir(`${tmp}/layout`);
          const config = `${tmp}/layout/config.yaml`;
          await Deno.writeTextFile(config, defaultConfigYaml());
          const printed = await run(file, ["permissions", "--config", config]);
          must(printed, "permissions");
          // The install layout's set; today --allow-all (Deno grants /proc and /sys to nothing less).
          assert.equal(printed.out.trim(), carried.join(" "));
        },
      );

      await t.step("install into a temporary root copies this very file", async () => {
        const r = await run(file, ["install", "--prefix", root]);
        must(r, "install");
        assert.deepEqual(await Deno.readFile(installed), await Deno.readFile(file));
        const unit = await Deno.readTextFile(`${root}${LAYOUT.unitFile}`);
        assert.match(
          unit,
          /^ExecStart=\/usr\/local\/bin\/denolet --config \/etc\/denolet\/config.yaml$/m,
        );
      });

      const readOnlyPort = freePort();
      const baseURL = `http://127.0.0.1:${readOnlyPort}`;
      await t.step("the installed file runs a static pod to Running on containerd", async () => {
        // The node's own config, with the temporary root's paths and the dev containerd.
        await Deno.writeTextFile(
          `${root}${LAYOUT.configFile}`,
          toYaml({
            apiVersion: "kubelet.config.k8s.io/v1beta1",
            kind: "KubeletConfiguration",
            staticPodPath: `${root}${LAYOUT.manifestDir}`,
            containerRuntimeEndpoint: runtime.endpoint,
            podLogsDir: `${root}${LAYOUT.podLogsDir}`,
          }),
        );
        agent = new Deno.Command("sh", {
          args: [
            "-c",
            'exec "$0" "$@" >"$LOG" 2>&1',
            installed,
            "--config",
            `${root}${LAYOUT.configFile}`,
            "--root-dir",
            `${root}${LAYOUT.rootDir}`,
            "--port",
            "0",
            "--read-only-port",
            String(readOnlyPort),
            "--hostname-override",
            NODE_NAME,
            `--cgroup-root=/denolet-e2e/${NODE_NAME}`,
            `--pod-infra-container-image=${runtime.sandboxImage}`,
            "--file-check-frequency",
            "1s",
            "--sync-frequency",
            "5s",
            "-v",
            "2",
          ],
          cwd: download,
          clearEnv: true,
          env: { ...env, LOG: logFile },
          stdin: "null",
          stdout: "null",
          stderr: "null",
        }).spawn();
        const log = () => Deno.readTextFile(logFile).catch((e) => `(no log: ${e})`);
        await waitFor(async () => {
          const res = await fetch(`${baseURL}/healthz`).catch(() => undefined);
          await res?.body?.cancel();
          return res?.status === 200;
        }, { timeoutMs: 90_000, what: "/healthz of the installed file" }).catch(async (err) => {
          throw new Error(`${err.message}\nagent log:\n${await log()}`, { cause: err });
        });
        assert.doesNotMatch(await log(), /unpacked into/, "the install reuses what was unpacked");

        const pod = shellPod("single", "echo started; sleep 3600");
        pod.spec!.containers[0].image = BUSYBOX;
        const manifests = `${root}${LAYOUT.manifestDir}`;
        await Deno.writeTextFile(`${manifests}/.single.tmp`, toYaml(pod));
        await Deno.rename(`${manifests}/.single.tmp`, `${manifests}/single.yaml`);
        const pods = async () => {
          const res = await fetch(`${baseURL}/pods`);
          if (!res.ok) throw new Error(`GET /pods: ${res.status} ${await res.text()}`);
          return await res.json() as V1PodList;
        };
        const running = await waitFor(async () => {
          const p = (await pods()).items.find((i) => i.metadata?.name === `single-${NODE_NAME}`);
          return p && isRunning(p) ? p : undefined;
        }, { timeoutMs: 90_000, what: "pod single to be Running" }).catch(async (err) => {
          throw new Error(`${err.message}\nagent log:\n${await log()}`, { cause: err });
        });
        const uid = running.metadata?.uid ?? "";
        const sandboxes = await cri.runtime.listPodSandbox({
          labelSelector: { [POD_UID_LABEL]: uid },
        });
        assert.equal(sandboxes.length, 1);
        const logDir = `${root}${LAYOUT.podLogsDir}/default_single-${NODE_NAME}_${uid}/main`;
        await waitFor(
          async () => (await Deno.readTextFile(`${logDir}/0.log`)).includes("started"),
          { timeoutMs: 30_000, what: "the container's log" },
        );

        await Deno.remove(`${manifests}/single.yaml`);
        await waitFor(async () => {
          const left = await cri.runtime.listPodSandbox({
            labelSelector: { [POD_UID_LABEL]: uid },
          });
          return left.length === 0 && !(await pods()).items.some((i) => i.metadata?.uid === uid);
        }, { timeoutMs: 60_000, what: "the pod and its sandbox to go" });
        agent.kill("SIGTERM");
        const status = await agent.status;
        assert.equal(status.code, 0, await log());
        assert.doesNotMatch(await log(), /NotCapable|Requires \w+ access/);
      });

      await t.step(
        "uninstall removes the file and what it unpacked; --purge the rest",
        async () => {
          must(await run(installed, ["uninstall", "--prefix", root]), "uninstall");
          assert.ok(await gone(installed));
          assert.ok(await gone(`${root}${LAYOUT.unitFile}`));
          assert.ok(await gone(unpackDir), "the unpacked runtime goes with the binary");
          await Deno.stat(`${root}${LAYOUT.configFile}`); // kept without --purge
          // The downloaded file unpacks again to run, and --purge takes that too.
          must(await run(file, ["uninstall", "--prefix", root, "--purge"]), "uninstall --purge");
          assert.deepEqual(await filesUnder(root), [], "no file left under the root");
          for (
            const dir of [
              LAYOUT.configDir,
              LAYOUT.manifestDir,
              LAYOUT.rootDir,
              LAYOUT.podLogsDir,
              LAYOUT.unpackDir,
            ]
          ) {
            assert.ok(await gone(`${root}${dir}`), `${dir} is left`);
          }
          // Nothing was written beside the download or into HOME (Deno's caches live with the build).
          assert.deepEqual(await filesUnder(download), [`/${AMD64.file}`]);
          assert.deepEqual(await filesUnder(home), []);
        },
      );

      await t.step(
        "arm64: header, payload checksum, runtime ELF machine, the same bundle",
        async () => {
          const seen = await inspectPackage(await Deno.readFile(arm64.path));
          assert.equal(seen.header.build, arm64.build);
          assert.equal(seen.elf.machine, 183, "EM_AARCH64");
          assert.equal(seen.elf.interpreter, "/lib/ld-linux-aarch64.so.1");
          assert.deepEqual(seen.bundle, built.bundle);
          const x86 = await inspectPackage(await Deno.readFile(amd64.path));
          assert.equal(x86.elf.machine, 62, "EM_X86_64");
          assert.deepEqual(seen.header.runArgs, x86.header.runArgs);
        },
      );

      await t.step("arm64: --version through qemu-user-static", async () => {
        const emulation = await ensureQemuAarch64((line) => console.error(`[single-file] ${line}`));
        const armDir = `${tmp}/download-arm64`;
        await Deno.mkdir(armDir);
        const armFile = `${armDir}/${ARM64.file}`;
        await Deno.copyFile(arm64.path, armFile);
        await Deno.chmod(armFile, 0o755);
        const refused = await run(armFile, ["--version"], { DENOLET_UNPACK_DIR: `${tmp}/arm64` });
        assert.equal(refused.code, 1);
        assert.match(refused.err, /this file is for aarch64 Linux; .*use denolet-linux-amd64/);
        const r = await run(armFile, ["--version"], {
          ...emulation,
          DENOLET_UNPACK_DIR: `${tmp}/arm64`,
        });
        must(r, "arm64 --version under qemu");
        assert.equal(
          r.out.trim(),
          `denolet v${BUILD_INFO.version} (commit ${built.commit}, kubelet-compatible)`,
        );
      });
    } finally {
      if (agent) {
        try {
          agent.kill("SIGKILL");
        } catch (err) {
          if (!(err instanceof TypeError)) console.error(err); // already exited
        }
        await agent.status;
      }
      await removeAgentSandboxes(cri.runtime, NODE_NAME).catch((e) => console.error(e));
      await removeCgroupTree(`denolet-e2e/${NODE_NAME}`);
      cri.close();
      await Deno.remove(tmp, { recursive: true }).catch((e) => console.error(e));
    }
  },
});
