import assert from "node:assert/strict";
import { CertificateFileStore, generateRequestKey } from "../../src/certificate/mod.ts";
import { makeCsrPem, nodeClientTemplate } from "../../src/certificate/mod.ts";
import { fakeCsrApi, testSigner } from "./_fake_csr_api.ts";

async function issuedPair(notAfterMs = Date.now() + 3_600_000) {
  const signer = await testSigner();
  const key = await generateRequestKey();
  const pem = await makeCsrPem(key, nodeClientTemplate("n1"));
  const api = fakeCsrApi();
  await api.client.request({
    method: "POST",
    path: "/apis/certificates.k8s.io/v1/certificatesigningrequests",
    body: { metadata: {}, spec: { request: btoa(pem) } },
  });
  const cert = await signer.sign(api.created[0], { notBeforeMs: Date.now() - 1000, notAfterMs });
  return { cert, key: key.pem };
}

Deno.test("store: update writes kubelet-client-<local time>.pem 0600 and links -current.pem to it", async () => {
  const dir = await Deno.makeTempDir();
  const at = new Date(2026, 4, 6, 7, 8, 9).getTime();
  const store = new CertificateFileStore({ prefix: "kubelet-client", dir, now: () => at });
  assert.equal(await store.current(), undefined);
  const { cert, key } = await issuedPair();
  const pair = await store.update(cert, key);
  const file = `${dir}/kubelet-client-2026-05-06-07-08-09.pem`;
  assert.equal(await Deno.readLink(store.currentPath), file);
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  assert.equal(await Deno.readTextFile(file), cert + key);
  assert.equal(pair.leaf.commonName, "system:node:n1");
  assert.deepEqual(pair.leaf.organizations, ["system:nodes"]);
  assert.deepEqual(await store.current(), pair);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("store: a crash between link and rename is recovered; a configured pair is read without one", async () => {
  const dir = await Deno.makeTempDir();
  const { cert, key } = await issuedPair();
  await Deno.writeTextFile(`${dir}/a.pem`, cert + key);
  await Deno.symlink(`${dir}/a.pem`, `${dir}/kubelet-client-updated.pem`);
  const store = new CertificateFileStore({ prefix: "kubelet-client", dir, now: Date.now });
  assert.equal((await store.current())?.certPem, cert);
  assert.equal(await Deno.readLink(store.currentPath), `${dir}/a.pem`);

  const other = await Deno.makeTempDir();
  await Deno.writeTextFile(`${other}/c.crt`, cert);
  await Deno.writeTextFile(`${other}/c.key`, key);
  const files = new CertificateFileStore({
    prefix: "kubelet-client",
    dir: `${other}/pki`,
    certFile: `${other}/c.crt`,
    keyFile: `${other}/c.key`,
    now: Date.now,
  });
  assert.equal((await files.current())?.keyPem, key);
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(other, { recursive: true });
});

Deno.test("store: a pair whose key is not the certificate's is refused", async () => {
  const dir = await Deno.makeTempDir();
  const a = await issuedPair();
  const b = await issuedPair();
  const store = new CertificateFileStore({ prefix: "kubelet-client", dir, now: Date.now });
  await assert.rejects(store.update(a.cert, b.key), /does not match/);
  await Deno.remove(dir, { recursive: true });
});
