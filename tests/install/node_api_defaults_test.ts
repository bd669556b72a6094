/**
 * `denolet install` writes a configuration in which nothing on the node API is served without
 * authentication: no read-only port; --port on loopback when standalone, and with Webhook
 * authentication and authorization (client certificates from the cluster CA) in API mode.
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

Deno.test("install config, standalone: read-only port off, node API on loopback only", async () => {
  const c = await load(defaultConfigYaml());
  assert.equal(c.readOnlyPort, 0);
  assert.equal(c.port, 10250);
  assert.equal(c.address, "127.0.0.1");
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
