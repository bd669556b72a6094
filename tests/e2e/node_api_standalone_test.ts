/**
 * The authenticated node API of a standalone agent on the real containerd: HTTPS with the
 * generated serving certificate, client-certificate authentication (anonymous off), container
 * logs (tail, timestamps, limit, previous, follow across a real rotation), exec through the
 * runtime's streaming server over WebSocket, and /run.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { freePort, waitFor } from "../support/wait.ts";
import { testCA } from "../server/_certs.ts";
import { E2E_TEST, isRunning, setupE2E, shellPod } from "./_helpers.ts";
import {
  nodeFetch,
  readStreamUntil,
  servingCA,
  type TlsIdentity,
  webSocketExec,
} from "./_node_api.ts";

/** ~60 numbered lines a second, ~70 bytes each: an 8 KiB log rotates every few seconds. */
const COUNTER =
  'i=0; while true; do i=$((i+1)); echo "line $i $(printf %060d 0)"; sleep 0.015; done';

Deno.test({
  name: "standalone node API: client certificates, logs with follow across rotation, exec, run",
  ...E2E_TEST,
  async fn(t) {
    const clients = await testCA("e2e-clients");
    const caFile = await Deno.makeTempFile({ prefix: "denolet-client-ca-", suffix: ".crt" });
    await Deno.writeTextFile(caFile, clients.certPem);
    const port = freePort();
    const e2e = await setupE2E({
      extraArgs: [
        "--port",
        String(port),
        "--address",
        "127.0.0.1",
        "--client-ca-file",
        caFile,
        "--anonymous-auth=false",
        "--authentication-token-webhook=false",
        "--authorization-mode=AlwaysAllow",
        "--container-log-max-size=8Ki",
      ],
    });
    try {
      const ca = await servingCA(`${e2e.agent.rootDir}/pki`);
      const admin = await clients.issue({ commonName: "admin", usages: ["clientAuth"] });
      const id: TlsIdentity = { caCerts: [ca], cert: admin.certPem, key: admin.keyPem };
      const stranger = await (await testCA("strangers")).issue({
        commonName: "admin",
        usages: ["clientAuth"],
      });

      await t.step("only a client certificate from the client CA gets in", async () => {
        const anonymous = await nodeFetch(port, "/pods", { caCerts: [ca] });
        assert.equal(anonymous.status, 401);
        assert.equal(await anonymous.text(), "Unauthorized");
        const untrusted = await nodeFetch(port, "/pods", {
          caCerts: [ca],
          cert: stranger.certPem,
          key: stranger.keyPem,
        });
        assert.equal(untrusted.status, 401);
        const ok = await nodeFetch(port, "/pods", id);
        assert.equal(ok.status, 200);
        assert.equal((await ok.json()).kind, "PodList");
      });

      await e2e.writePod("counter.yaml", shellPod("counter", COUNTER));
      await e2e.writePod(
        "crasher.yaml",
        shellPod("crasher", 'echo "run at $(cat /proc/uptime)"; sleep 1; exit 1'),
      );
      await e2e.writePod(
        "shell.yaml",
        shellPod("shell", "echo ready; sleep 3600"),
      );
      const counter = await e2e.waitPod("counter", isRunning, { what: "counter running" });
      await e2e.waitLog(counter, "main", ["line 50 "]);
      const logs = (q: string) => `/containerLogs/default/${e2e.podName("counter")}/main${q}`;

      await t.step(
        "--healthz-port answers /healthz alone; /runningpods/ needs authentication",
        async () => {
          const health = await fetch(`${e2e.agent.healthzURL}/healthz?verbose`);
          assert.equal(health.status, 200);
          assert.equal(await health.text(), "[+]ping ok\n[+]log ok\nhealthz check passed\n");
          const other = await fetch(`${e2e.agent.healthzURL}/pods`);
          assert.equal(other.status, 404);
          await other.body?.cancel();
          const plain = await e2e.agent.get("/runningpods/");
          assert.equal(plain.status, 404, "not on the read-only port");
          await plain.body?.cancel();
          const running = await nodeFetch(port, "/runningpods/", id);
          assert.equal(running.status, 200);
          const names = (await running.json()).items.map((p: V1Pod) => p.metadata?.name);
          assert.ok(names.includes(e2e.podName("counter")), JSON.stringify(names));
        },
      );

      await t.step("tailLines, timestamps and limitBytes", async () => {
        const tail = (await (await nodeFetch(port, logs("?tailLines=3"), id)).text()).split("\n");
        assert.equal(tail.length, 4, tail.join("\n"));
        const n = tail.slice(0, 3).map((l) => Number(l.split(" ")[1]));
        assert.deepEqual(n, [n[0], n[0] + 1, n[0] + 2], tail.join("\n"));
        const stamped = await (await nodeFetch(port, logs("?tailLines=2&timestamps=true"), id))
          .text();
        for (const line of stamped.trimEnd().split("\n")) {
          assert.match(
            line,
            /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+(Z|[+-]\d{2}:\d{2}) line \d+ 0{60}$/,
          );
        }
        // The oldest lines may have been rotated away already: any first line will do.
        const limited = await (await nodeFetch(port, logs("?limitBytes=10"), id)).text();
        assert.equal(limited.length, 10);
        assert.match(limited, /^line \d/);
      });

      await t.step("follow streams every line, in order, across a log rotation", async () => {
        const logDir = `${e2e.podLogDir(counter)}/main`;
        const stamps = async () => {
          const out = new Set<string>();
          for await (const e of Deno.readDir(logDir)) {
            const m = /\.log\.(\d{8}-\d{6})/.exec(e.name);
            if (m) out.add(m[1]);
          }
          return out;
        };
        // The first rotation may already have happened; wait for a new one while following.
        const before = await stamps();
        let rotatedAtLine: number | undefined;
        let lastLine = 0;
        const watching = waitFor(async () => [...await stamps()].some((x) => !before.has(x)), {
          what: "a log rotation",
          timeoutMs: 60_000,
          intervalMs: 200,
        }).then(() => (rotatedAtLine = lastLine));
        const text = await readStreamUntil(port, logs("?follow=true&tailLines=1"), id, (s) => {
          lastLine = Number(s.trimEnd().split("\n").at(-1)?.split(" ")[1] ?? 0);
          return rotatedAtLine !== undefined && lastLine >= rotatedAtLine + 200;
        }, 90_000);
        await watching;
        const numbers = text.trimEnd().split("\n").map((l) => Number(l.split(" ")[1]));
        assert.ok(
          numbers.at(-1)! >= rotatedAtLine! + 200,
          `followed to line ${numbers.at(-1)}, rotation at line ${rotatedAtLine}`,
        );
        for (let i = 1; i < numbers.length; i++) {
          assert.equal(
            numbers[i],
            numbers[i - 1] + 1,
            `gap or repeat after line ${numbers[i - 1]}`,
          );
        }
      });

      await t.step("previous shows the instance before the last restart", async () => {
        const crasher = await e2e.waitPod(
          "crasher",
          (p) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1,
          { what: "crasher restarted", timeoutMs: 60_000 },
        );
        const path = `/containerLogs/default/${crasher.metadata!.name}/main`;
        const previous = await (await nodeFetch(port, `${path}?previous=true`, id)).text();
        assert.match(previous, /^run at [\d.]+ [\d.]+\n$/);
        const missing = await nodeFetch(
          port,
          `/containerLogs/default/${e2e.podName("shell")}/main?previous=true`,
          id,
        );
        assert.equal(missing.status, 400);
        assert.match(
          await missing.text(),
          /previous terminated container "main" in pod ".*" not found/,
        );
      });

      await t.step("exec runs in the container through the runtime's stream server", async () => {
        await e2e.waitPod("shell", isRunning, { what: "shell running" });
        const path = `/exec/default/${e2e.podName("shell")}/main?` +
          ["sh", "-c", "echo out; echo err >&2; exit 3"].map((c) =>
            `command=${encodeURIComponent(c)}`
          )
            .join("&") +
          "&output=1&error=1";
        const r = await webSocketExec(port, path, id);
        assert.equal(r.status, 101, r.refusal);
        assert.equal(r.channels[1], "out\n");
        assert.equal(r.channels[2], "err\n");
        const status = JSON.parse(r.channels[3]);
        assert.equal(status.status, "Failure");
        assert.equal(status.reason, "NonZeroExitCode");
        assert.deepEqual(status.details.causes, [{ reason: "ExitCode", message: "3" }]);
        const missing = await webSocketExec(
          port,
          `/exec/default/${e2e.podName("shell")}/nope?command=ls&output=1`,
          id,
        );
        assert.equal(missing.status, 404);
        assert.match(missing.refusal!, /container "nope" not found in pod/);
        const noUpgrade = await nodeFetch(port, path, id, { method: "POST" });
        assert.equal(noUpgrade.status, 400);
        assert.match(await noUpgrade.text(), /Upgrade request required/);
      });

      await t.step("run answers with the command's output", async () => {
        const res = await nodeFetch(
          port,
          `/run/default/${e2e.podName("shell")}/main?cmd=echo%20hello%20run`,
          id,
          { method: "POST" },
        );
        assert.equal(res.status, 200);
        assert.equal(await res.text(), "hello run\n");
      });
    } finally {
      await e2e.close();
      await Deno.remove(caFile);
    }
  },
});
