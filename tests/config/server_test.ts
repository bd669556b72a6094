import assert from "node:assert/strict";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

Deno.test("without a config file the node API keeps upstream's open legacy defaults", async () => {
  const { config } = await run([]);
  assert.equal(config.anonymousAuth, true);
  assert.equal(config.authenticationTokenWebhook, false);
  assert.equal(config.authorizationMode, "AlwaysAllow");
  assert.equal(config.certDir, "/var/lib/kubelet/pki");
});

Deno.test("a config file switches the node API to Webhook authentication and authorization", async () => {
  const { config } = await run(["--config", "/k.yaml"], { "/k.yaml": HEAD });
  assert.equal(config.anonymousAuth, false);
  assert.equal(config.authenticationTokenWebhook, true);
  assert.equal(config.authorizationMode, "Webhook");
  assert.equal(config.readOnlyPort, 0);
});

Deno.test("server flags set their fields with upstream names", async () => {
  const { config } = await run([
    "--root-dir=/srv/kubelet",
    "--tls-cert-file=/etc/pki/node.crt",
    "--tls-private-key-file=/etc/pki/node.key",
    "--tls-min-version=VersionTLS13",
    "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "--anonymous-auth=false",
    "--client-ca-file=/etc/pki/ca.crt",
    "--authentication-token-webhook",
    "--authentication-token-webhook-cache-ttl=30s",
    "--authorization-mode=Webhook",
    "--authorization-webhook-cache-authorized-ttl=1m",
    "--authorization-webhook-cache-unauthorized-ttl=5s",
    "--rotate-server-certificates",
    "--enable-debugging-handlers=false",
  ]);
  assert.equal(config.tlsCertFile, "/etc/pki/node.crt");
  assert.equal(config.tlsPrivateKeyFile, "/etc/pki/node.key");
  assert.equal(config.tlsMinVersion, "VersionTLS13");
  assert.deepEqual(config.tlsCipherSuites, [
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
  ]);
  assert.equal(config.anonymousAuth, false);
  assert.equal(config.clientCAFile, "/etc/pki/ca.crt");
  assert.equal(config.authenticationTokenWebhook, true);
  assert.equal(config.authenticationTokenWebhookCacheTTLMs, 30_000);
  assert.equal(config.authorizationMode, "Webhook");
  assert.equal(config.authorizationWebhookCacheAuthorizedTTLMs, 60_000);
  assert.equal(config.authorizationWebhookCacheUnauthorizedTTLMs, 5_000);
  assert.equal(config.serverTLSBootstrap, true);
  assert.equal(config.enableDebuggingHandlers, false);
  // --cert-dir follows --root-dir unless given.
  assert.equal(config.certDir, "/srv/kubelet/pki");
  assert.equal((await run(["--cert-dir=/pki"])).config.certDir, "/pki");
});

Deno.test("authentication and authorization are read from the config file, paths relative to it", async () => {
  const { config } = await run(["--config", "/etc/kubernetes/kubelet.yaml"], {
    "/etc/kubernetes/kubelet.yaml": HEAD + `
tlsCertFile: pki/serving.crt
tlsPrivateKeyFile: /abs/serving.key
tlsMinVersion: VersionTLS12
tlsCipherSuites: [TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384]
serverTLSBootstrap: true
enableSystemLogHandler: false
authentication:
  x509: {clientCAFile: ca.crt}
  webhook: {enabled: false, cacheTTL: 10s}
  anonymous: {enabled: true}
authorization:
  mode: AlwaysAllow
  webhook: {cacheAuthorizedTTL: 2m, cacheUnauthorizedTTL: 10s}
`,
  });
  assert.equal(config.tlsCertFile, "/etc/kubernetes/pki/serving.crt");
  assert.equal(config.tlsPrivateKeyFile, "/abs/serving.key");
  assert.equal(config.tlsMinVersion, "VersionTLS12");
  assert.deepEqual(config.tlsCipherSuites, ["TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"]);
  assert.equal(config.serverTLSBootstrap, true);
  assert.equal(config.enableSystemLogHandler, false);
  assert.equal(config.clientCAFile, "/etc/kubernetes/ca.crt");
  assert.equal(config.authenticationTokenWebhook, false);
  assert.equal(config.authenticationTokenWebhookCacheTTLMs, 10_000);
  assert.equal(config.anonymousAuth, true);
  assert.equal(config.authorizationMode, "AlwaysAllow");
  assert.equal(config.authorizationWebhookCacheAuthorizedTTLMs, 120_000);
  assert.equal(config.authorizationWebhookCacheUnauthorizedTTLMs, 10_000);
});

Deno.test("flags win over the file's authentication settings", async () => {
  const { config } = await run(["--config", "/k.yaml", "--anonymous-auth=true"], {
    "/k.yaml": HEAD + "authentication:\n  anonymous: {enabled: false}\n",
  });
  assert.equal(config.anonymousAuth, true);
});

Deno.test("bad server settings name their flag or field", async () => {
  await fails(
    ["--authorization-mode=RBAC"],
    "--authorization-mode",
    /must be one of AlwaysAllow, Webhook/,
  );
  await fails(["--tls-min-version=TLS1.2"], "--tls-min-version", /unknown TLS version "TLS1.2"/);
  await fails(
    ["--tls-cipher-suites=TLS_FANCY"],
    "--tls-cipher-suites",
    /Cipher suite TLS_FANCY not supported or doesn't exist/,
  );
  await fails(
    ["--tls-cert-file=/a.crt"],
    "tlsPrivateKeyFile",
    /--tls-cert-file and --tls-private-key-file must be given together/,
  );
  await fails(
    ["--config", "/k.yaml"],
    "/k.yaml: authorization.mode",
    /"Node" must be one of AlwaysAllow, Webhook/,
    { "/k.yaml": HEAD + "authorization: {mode: Node}\n" },
  );
  await fails(
    ["--config", "/k.yaml"],
    "/k.yaml: authentication.webhok",
    /unknown field "webhok" \(did you mean "webhook"\?\)/,
    { "/k.yaml": HEAD + "authentication: {webhok: {enabled: true}}\n" },
  );
  await fails(
    ["--config", "/k.yaml"],
    "/k.yaml: authentication.anonymous.enabled",
    /expected true or false/,
    { "/k.yaml": HEAD + "authentication: {anonymous: {enabled: yes please}}\n" },
  );
});

Deno.test("insecure and TLS 1.3-only cipher settings load with upstream's warnings", async () => {
  const { warnings } = await run([
    "--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA",
    "--tls-min-version=VersionTLS13",
  ]);
  assert.deepEqual(warnings, [
    "--tls-cipher-suites: use of insecure cipher TLS_RSA_WITH_RC4_128_SHA",
    "--tls-cipher-suites: TLS 1.3 cipher suites are not configurable, ignored",
  ]);
});

Deno.test("enableSystemLogQuery is read from the file and needs enableSystemLogHandler", async () => {
  assert.equal((await run([])).config.enableSystemLogQuery, false);
  const { config } = await run(["--config", "/k.yaml"], {
    "/k.yaml": HEAD + "enableSystemLogQuery: true\n",
  });
  assert.equal(config.enableSystemLogQuery, true);
  await fails(
    ["--config", "/k.yaml"],
    "/k.yaml: enableSystemLogQuery",
    /invalid configuration: enableSystemLogHandler is required for enableSystemLogQuery/,
    { "/k.yaml": HEAD + "enableSystemLogQuery: true\nenableSystemLogHandler: false\n" },
  );
});
