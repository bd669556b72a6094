/**
 * serveAuthenticatedNodeApi from a configuration: what it refuses to start with, and the
 * self-signed certificate generated once and reused.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/mod.ts";
import type { CriClient } from "../../src/cri/mod.ts";
import { serveAuthenticatedNodeApi } from "../../src/server/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { DenoletError } from "../../src/util/errors.ts";
import { createLogger } from "../../src/util/log.ts";
import { fakeDeps } from "./_fakes.ts";

const unusedCri = {} as CriClient;

async function config(argv: string[], root: string) {
  const r = await loadConfig(
    ["--root-dir", root, "--port", "0", "--address", "127.0.0.1", ...argv],
    {
      hostname: () => "node-a",
    },
  );
  if (r.kind !== "run") throw new Error("not a run");
  // --port 0 turns the server off for the agent; here it asks for any free port.
  return r.config;
}

function deps(cfg: Awaited<ReturnType<typeof config>>, signal: AbortSignal) {
  return {
    config: cfg,
    nodeIPs: ["192.0.2.2"],
    api: fakeDeps(),
    cri: unusedCri,
    clock: realClock,
    logger: createLogger({ write: () => {} }),
    signal,
  };
}

Deno.test("node API start: Webhook modes and serverTLSBootstrap need an API server", async () => {
  const root = await Deno.makeTempDir();
  const ac = new AbortController();
  for (
    const [argv, what] of [
      [["--authentication-token-webhook"], /authentication\.webhook\.enabled.*needs --kubeconfig/],
      [["--authorization-mode=Webhook"], /authorization\.mode Webhook.*needs --kubeconfig/],
      [["--rotate-server-certificates"], /serverTLSBootstrap.*needs --kubeconfig/],
    ] as const
  ) {
    await assert.rejects(
      serveAuthenticatedNodeApi(deps(await config([...argv], root), ac.signal)),
      (err: unknown) => err instanceof DenoletError && what.test(err.message),
    );
  }
  await assert.rejects(
    serveAuthenticatedNodeApi(deps(await config(["--anonymous-auth=false"], root), ac.signal)),
    /No authentication method configured/,
  );
  await assert.rejects(
    serveAuthenticatedNodeApi(
      deps(await config(["--client-ca-file", `${root}/missing-ca.crt`], root), ac.signal),
    ),
    /Cannot read the client CA file .*missing-ca\.crt/,
  );
});

Deno.test("node API start: a self-signed pair is generated under --cert-dir once, then reused", async () => {
  const root = await Deno.makeTempDir();
  const start = async () => {
    const ac = new AbortController();
    const server = await serveAuthenticatedNodeApi(deps(await config([], root), ac.signal));
    const pem = await Deno.readTextFile(`${root}/pki/kubelet.crt`);
    const ca = pem.slice(pem.indexOf("-----END CERTIFICATE-----") + 26);
    const client = Deno.createHttpClient({ caCerts: [ca] });
    try {
      const res = await fetch(`https://127.0.0.1:${server.port}/healthz`, { client });
      assert.equal(await res.text(), "ok");
    } finally {
      client.close();
      ac.abort();
      await server.finished;
    }
    return pem;
  };
  const first = await start();
  assert.equal(await start(), first, "the second start reuses the pair");
  assert.equal((await Deno.stat(`${root}/pki/kubelet.key`)).mode! & 0o777, 0o600);
  // Half a pair is not silently replaced.
  await Deno.remove(`${root}/pki/kubelet.key`);
  await assert.rejects(start(), /kubelet\.crt can be read, but .*kubelet\.key cannot/);
});

Deno.test("node API start: replaced --tls-cert-file/--tls-private-key-file are reloaded", async () => {
  const { generateSelfSignedPair } = await import("../../src/server/tls/mod.ts");
  const { FakeClock } = await import("../../src/util/clock.ts");
  const root = await Deno.makeTempDir();
  const write = async () => {
    const pair = await generateSelfSignedPair("node-a", { ips: ["127.0.0.1"], nowMs: Date.now() });
    await Deno.writeTextFile(`${root}/tls.crt`, pair.certPem);
    await Deno.writeTextFile(`${root}/tls.key`, pair.keyPem);
    return pair.certPem.slice(pair.certPem.indexOf("-----END CERTIFICATE-----") + 26);
  };
  const firstCA = await write();
  const clock = new FakeClock(Date.now());
  const ac = new AbortController();
  const cfg = await config(
    ["--tls-cert-file", `${root}/tls.crt`, "--tls-private-key-file", `${root}/tls.key`],
    root,
  );
  const server = await serveAuthenticatedNodeApi({ ...deps(cfg, ac.signal), clock });
  const ok = async (ca: string) => {
    const client = Deno.createHttpClient({ caCerts: [ca] });
    try {
      const res = await fetch(`https://127.0.0.1:${server.port}/healthz`, { client });
      await res.body?.cancel();
      return res.ok;
    } catch {
      // Not trusted with this CA.
      return false;
    } finally {
      client.close();
    }
  };
  try {
    assert.ok(await ok(firstCA));
    // A distinct modification time, as a renewal a while later has.
    await new Promise((r) => setTimeout(r, 20));
    const secondCA = await write();
    for (let i = 0; i < 50 && !(await ok(secondCA)); i++) {
      await clock.advance(60_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(await ok(secondCA), "the new pair is served");
    assert.ok(!(await ok(firstCA)));
  } finally {
    ac.abort();
    await server.finished;
  }
});

Deno.test("node API start: a replaced --client-ca-file verifies new connections (a rotated cluster CA)", async () => {
  const { testCA } = await import("./_certs.ts");
  const { FakeClock } = await import("../../src/util/clock.ts");
  const root = await Deno.makeTempDir();
  const before = await testCA("cluster-ca-old");
  const after = await testCA("cluster-ca-new");
  const apiserver = await after.issue({ commonName: "kube-apiserver", usages: ["clientAuth"] });
  await Deno.writeTextFile(`${root}/ca.crt`, before.certPem);
  const clock = new FakeClock(Date.now());
  const ac = new AbortController();
  const cfg = await config(
    ["--client-ca-file", `${root}/ca.crt`, "--anonymous-auth=false"],
    root,
  );
  const server = await serveAuthenticatedNodeApi({ ...deps(cfg, ac.signal), clock });
  const pem = await Deno.readTextFile(`${root}/pki/kubelet.crt`);
  const servingCA = pem.slice(pem.indexOf("-----END CERTIFICATE-----") + 26);
  const status = async () => {
    const client = Deno.createHttpClient({
      caCerts: [servingCA],
      cert: apiserver.certPem,
      key: apiserver.keyPem,
    });
    try {
      const res = await fetch(`https://127.0.0.1:${server.port}/pods`, { client });
      await res.body?.cancel();
      return res.status;
    } finally {
      client.close();
    }
  };
  try {
    assert.equal(await status(), 401);
    // A distinct modification time, as a rotation a while later has.
    await new Promise((r) => setTimeout(r, 20));
    await Deno.writeTextFile(`${root}/ca.crt`, before.certPem + after.certPem);
    for (let i = 0; i < 50 && (await status()) !== 200; i++) {
      await clock.advance(60_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(await status(), 200, "the new CA is used");
    // A file that holds no certificate keeps the current bundle.
    await new Promise((r) => setTimeout(r, 20));
    await Deno.writeTextFile(`${root}/ca.crt`, "being rewritten");
    await clock.advance(60_000);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await status(), 200);
  } finally {
    ac.abort();
    await server.finished;
  }
});
