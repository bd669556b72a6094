import assert from "node:assert/strict";
import { parse as parseYaml } from "yaml";
import type { Connection } from "../../src/apiclient/mod.ts";
import {
  BootstrapError,
  isClientConfigStillValid,
  loadClientCert,
} from "../../src/certificate/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { type FakeCsrApi, fakeCsrApi, testSigner } from "./_fake_csr_api.ts";

const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

async function layout() {
  const dir = await Deno.makeTempDir({ prefix: "denolet-bootstrap-" });
  const bootstrapKubeconfig = `${dir}/bootstrap-kubelet.conf`;
  await Deno.writeTextFile(
    bootstrapKubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- name: kubernetes
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: ${btoa(CA)}
contexts:
- name: tls-bootstrap-token-user@kubernetes
  context: {cluster: kubernetes, user: tls-bootstrap-token-user}
current-context: tls-bootstrap-token-user@kubernetes
users:
- name: tls-bootstrap-token-user
  user: {token: abcdef.0123456789abcdef}
`,
  );
  return { dir, bootstrapKubeconfig, kubeconfig: `${dir}/kubelet.conf`, certDir: `${dir}/pki` };
}

function options(
  l: Awaited<ReturnType<typeof layout>>,
  api: FakeCsrApi,
  clock: FakeClock,
  signal = new AbortController().signal,
) {
  const loaded: string[] = [];
  return {
    loaded,
    opts: {
      ...l,
      nodeName: "edge-1",
      clock,
      logger: nullLogger,
      connect: (_c: Connection) => api.client,
      load: (p: string) => {
        loaded.push(p);
        return Promise.resolve({ server: "https://10.0.0.1:6443", namespace: "default" });
      },
      hint: (csr: string) => `approve ${csr}`,
      signal,
    },
  };
}

Deno.test("bootstrap: without a kubeconfig, a node-csr request with the token, stored and a kubeconfig written", async () => {
  const l = await layout();
  const api = fakeCsrApi();
  const signer = await testSigner();
  const clock = new FakeClock(Date.now());
  const { opts, loaded } = options(l, api, clock);
  const done = loadClientCert(opts);
  const csr = await api.nextCreated();
  assert.deepEqual(loaded, [l.bootstrapKubeconfig]);
  assert.match(csr.metadata!.name!, /^node-csr-[A-Za-z0-9_-]{43}$/);
  assert.equal(csr.spec?.signerName, "kubernetes.io/kube-apiserver-client-kubelet");
  assert.deepEqual(csr.spec?.usages, ["digital signature", "client auth"]);
  const now = Date.now();
  api.approve(
    csr.metadata!.name!,
    await signer.sign(csr, { notBeforeMs: now, notAfterMs: now + 3_600_000 }),
  );
  await done;
  // The kubeconfig upstream writes: the bootstrap server and CA, the user the current pair.
  const kc = parseYaml(await Deno.readTextFile(l.kubeconfig));
  assert.equal((await Deno.stat(l.kubeconfig)).mode! & 0o777, 0o600);
  assert.deepEqual(kc.clusters, [{
    name: "default-cluster",
    cluster: { server: "https://10.0.0.1:6443", "certificate-authority-data": btoa(CA) },
  }]);
  assert.deepEqual(kc.users, [{
    name: "default-auth",
    user: {
      "client-certificate": `${l.certDir}/kubelet-client-current.pem`,
      "client-key": `${l.certDir}/kubelet-client-current.pem`,
    },
  }]);
  assert.equal(kc["current-context"], "default-context");
  assert.match(
    await Deno.readLink(`${l.certDir}/kubelet-client-current.pem`),
    /kubelet-client-\d{4}(-\d\d){5}\.pem$/,
  );
  await assert.rejects(Deno.stat(`${l.certDir}/kubelet-client.key.tmp`), Deno.errors.NotFound);
  // Valid now: the next start does not ask again.
  assert.equal(
    await isClientConfigStillValid(l.kubeconfig, { now: Date.now(), logger: nullLogger }),
    true,
  );
  await loadClientCert(options(l, api, clock).opts);
  assert.equal(api.created.length, 1);
  await Deno.remove(l.dir, { recursive: true });
});

Deno.test("bootstrap: an interrupted bootstrap asks again under the same name with the same key", async () => {
  const l = await layout();
  const api = fakeCsrApi();
  const clock = new FakeClock(Date.now());
  const ac = new AbortController();
  const first = loadClientCert(options(l, api, clock, ac.signal).opts);
  const csr = await api.nextCreated();
  ac.abort(new Error("restart"));
  await assert.rejects(first, /restart/);
  const again = loadClientCert(options(l, api, clock).opts);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(api.created.length, 1, "the request made before the restart is reused");
  const signer = await testSigner();
  const now = Date.now();
  api.approve(
    csr.metadata!.name!,
    await signer.sign(csr, { notBeforeMs: now, notAfterMs: now + 60_000 }),
  );
  await again;
  await Deno.remove(l.dir, { recursive: true });
});

Deno.test("bootstrap: a denied request fails the start saying so and what to do", async () => {
  const l = await layout();
  const api = fakeCsrApi();
  const clock = new FakeClock(Date.now());
  const done = loadClientCert(options(l, api, clock).opts);
  const csr = await api.nextCreated();
  api.deny(csr.metadata!.name!, "Denied", "unknown node");
  await assert.rejects(done, (e: unknown) =>
    e instanceof BootstrapError &&
    e.message.includes("is denied, reason: Denied, message: unknown node") &&
    e.message.includes(`approve ${csr.metadata!.name}`));
  await Deno.remove(l.dir, { recursive: true });
});

Deno.test("bootstrap: a kubeconfig whose client certificate expired is not valid", async () => {
  const l = await layout();
  const api = fakeCsrApi();
  const signer = await testSigner();
  const clock = new FakeClock(Date.now());
  const done = loadClientCert(options(l, api, clock).opts);
  const csr = await api.nextCreated();
  const now = Date.now();
  api.approve(
    csr.metadata!.name!,
    await signer.sign(csr, { notBeforeMs: now - 1000, notAfterMs: now + 60_000 }),
  );
  await done;
  const check = (at: number) =>
    isClientConfigStillValid(l.kubeconfig, { now: at, logger: nullLogger });
  assert.equal(await check(now), true);
  assert.equal(await check(now + 120_000), false);
  assert.equal(await check(now), true);
  assert.equal(await isClientConfigStillValid(`${l.dir}/none`, { now, logger: nullLogger }), false);
  await Deno.remove(l.dir, { recursive: true });
});
