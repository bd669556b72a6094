/**
 * `denolet install` writes a configuration in which nothing on the node API is served without
 * authentication: no read-only port; --port on loopback taking only the client certificate the
 * install made for root when standalone, and with Webhook authentication and authorization
 * (client certificates from the cluster CA) in API mode.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config/mod.ts";
import {
  DEFAULT_CLIENT_CA_FILE,
  defaultConfigYaml,
  LAYOUT,
  runInstallCommand,
} from "../../src/install/mod.ts";

async function load(yaml: string, extra: string[] = []) {
  const r = await loadConfig(["--config", LAYOUT.configFile, ...extra], {
    readFile: () => Promise.resolve(yaml),
    hostname: () => "node-1",
  });
  if (r.kind !== "run") throw new Error("not a run");
  assert.deepEqual(r.warnings, []);
  return r.config;
}

Deno.test("install config, standalone: read-only port off, node API on loopback only, client certificates only", async () => {
  const c = await load(defaultConfigYaml());
  assert.equal(c.readOnlyPort, 0);
  assert.equal(c.port, 10250);
  assert.equal(c.address, "127.0.0.1");
  assert.equal(c.anonymousAuth, false);
  assert.equal(c.clientCAFile, LAYOUT.clientCAFile);
  // No API server to ask: local callers only, so no Webhook mode that could not start.
  assert.equal(c.authenticationTokenWebhook, false);
  assert.equal(c.authorizationMode, "AlwaysAllow");
});

Deno.test("install config, API mode: Webhook authentication and authorization, client certs from the cluster CA", async () => {
  const c = await load(defaultConfigYaml({ kubeconfig: "/etc/kubernetes/kubelet.conf" }), [
    "--kubeconfig",
    "/etc/kubernetes/kubelet.conf",
  ]);
  assert.equal(c.readOnlyPort, 0);
  assert.equal(c.address, "0.0.0.0");
  assert.equal(c.anonymousAuth, false);
  assert.equal(c.authenticationTokenWebhook, true);
  assert.equal(c.authorizationMode, "Webhook");
  assert.equal(c.clientCAFile, DEFAULT_CLIENT_CA_FILE);
  const custom = await load(
    defaultConfigYaml({ kubeconfig: "/k", clientCAFile: "/etc/pki/cluster-ca.pem" }),
  );
  assert.equal(custom.clientCAFile, "/etc/pki/cluster-ca.pem");
});

async function install(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runInstallCommand("install", argv, {
    compiled: true,
    execPath: () => "/usr/local/bin/denolet",
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

Deno.test("install --kubeconfig: the unit joins the cluster and the config checks callers with it", async () => {
  const r = await install([
    "--script",
    "--kubeconfig",
    "/etc/kubernetes/kubelet.conf",
    "--client-ca-file",
    "/etc/kubernetes/pki/ca.crt",
  ]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /ExecStart=\/usr\/local\/bin\/denolet --config \/etc\/denolet\/config\.yaml --kubeconfig \/etc\/kubernetes\/kubelet\.conf/,
  );
  assert.match(r.out, /mode: Webhook/);
  assert.doesNotMatch(r.out, /10255/);
  const plain = await install(["--script"]);
  assert.match(
    plain.out,
    /ExecStart=\/usr\/local\/bin\/denolet --config \/etc\/denolet\/config\.yaml\n/,
  );
  assert.match(plain.out, /address: 127\.0\.0\.1/);
});

Deno.test("install: --client-ca-file needs --kubeconfig; both need absolute paths", async () => {
  assert.match(
    (await install(["--client-ca-file", "/ca.crt"])).err,
    /--client-ca-file goes with --kubeconfig/,
  );
  assert.match(
    (await install(["--kubeconfig", "kubelet.conf"])).err,
    /--kubeconfig must be absolute/,
  );
  const un = await runInstallCommand("uninstall", ["--kubeconfig", "/k"], {
    compiled: true,
    execPath: () => "/x",
    out: () => {},
    err: () => {},
  });
  assert.equal(un, 1);
});

Deno.test("install, standalone: the node API takes only root's certificate; no anonymous caller reaches pods, logs or exec", async () => {
  const { serveAuthenticatedNodeApi } = await import("../../src/server/mod.ts");
  const { realClock } = await import("../../src/util/clock.ts");
  const { createLogger } = await import("../../src/util/log.ts");
  const { fakeDeps, staticPod } = await import("../server/_fakes.ts");
  const { MODES } = await import("../../src/install/mod.ts");
  const root = await Deno.makeTempDir({ prefix: "denolet-install-api-" });
  const binary = `${root}.bin`;
  await Deno.writeTextFile(binary, "#!/bin/sh\n");
  const ac = new AbortController();
  try {
    const r = await runInstallCommand("install", ["--prefix", root], {
      compiled: true,
      execPath: () => binary,
      out: () => {},
      err: (l) => assert.fail(l),
    });
    assert.equal(r, 0);
    // The installed configuration as the agent reads it, paths moved under the test's root.
    const installed = await Deno.readTextFile(`${root}${LAYOUT.configFile}`);
    const r2 = await loadConfig([
      "--config",
      LAYOUT.configFile,
      "--root-dir",
      `${root}/var/lib/kubelet`,
      ...(/clientCAFile: \//.test(installed)
        ? ["--client-ca-file", `${root}${LAYOUT.clientCAFile}`]
        : []),
      "--port",
      "0",
    ], { readFile: () => Promise.resolve(installed), hostname: () => "node-1" });
    if (r2.kind !== "run") throw new Error("not a run");
    const c = r2.config;
    const server = await serveAuthenticatedNodeApi({
      config: c,
      nodeIPs: [],
      api: fakeDeps({ pods: () => [staticPod()] }),
      cri: {} as never,
      clock: realClock,
      logger: createLogger({ write: () => {} }),
      signal: ac.signal,
    });
    const pem = await Deno.readTextFile(`${root}/var/lib/kubelet/pki/kubelet.crt`);
    const status = async (path: string, cert?: { cert: string; key: string }) => {
      const client = Deno.createHttpClient({ caCerts: [pem], ...cert });
      try {
        const res = await fetch(`https://127.0.0.1:${server.port}${path}`, { client });
        await res.body?.cancel();
        return res.status;
      } finally {
        client.close();
      }
    };
    for (
      const path of [
        "/pods",
        "/configz",
        "/logs/",
        "/containerLogs/default/web-node-a/web",
        "/exec/default/web-node-a/web?command=id&output=1",
      ]
    ) {
      assert.equal(await status(path), 401, `anonymous ${path}`);
    }
    assert.equal(c.anonymousAuth, false);
    assert.equal(c.enableDebuggingHandlers, true, "root keeps logs and exec");
    assert.equal((await Deno.stat(`${root}${LAYOUT.pkiDir}`)).mode! & 0o777, MODES.pkiDir);
    for (const f of [LAYOUT.clientCAFile, LAYOUT.adminCertFile, LAYOUT.adminKeyFile]) {
      assert.equal((await Deno.stat(`${root}${f}`)).mode! & 0o777, 0o600, f);
    }
    const admin = {
      cert: await Deno.readTextFile(`${root}${LAYOUT.adminCertFile}`),
      key: await Deno.readTextFile(`${root}${LAYOUT.adminKeyFile}`),
    };
    assert.equal(await status("/pods", admin), 200, "root's certificate opens it");
    ac.abort();
    await server.finished;

    // A reinstall keeps the identity root holds.
    const again = await runInstallCommand("install", ["--prefix", root], {
      compiled: true,
      execPath: () => binary,
      out: () => {},
      err: (l) => assert.fail(l),
    });
    assert.equal(again, 0);
    assert.equal(await Deno.readTextFile(`${root}${LAYOUT.adminCertFile}`), admin.cert);
  } finally {
    ac.abort();
    await Deno.remove(root, { recursive: true });
    await Deno.remove(binary);
  }
});
