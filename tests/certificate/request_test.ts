import assert from "node:assert/strict";
import {
  createCsr,
  CsrCreateError,
  CsrRefusedError,
  digestedName,
  generateRequestKey,
  importRequestKey,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  kubeletClientUsages,
  makeCsrPem,
  nodeClientTemplate,
  waitForCertificate,
} from "../../src/certificate/mod.ts";
import { fakeCsrApi, testSigner } from "./_fake_csr_api.ts";
import { opensslText } from "./_openssl.ts";

Deno.test("csr: a node client request is O=system:nodes, CN=system:node:<name>, ECDSA P-256, no SANs", async () => {
  const key = await generateRequestKey();
  const text = await opensslText(await makeCsrPem(key, nodeClientTemplate("node-a")));
  assert.match(text, /Subject: O ?= ?system:nodes, CN ?= ?system:node:node-a/);
  assert.match(text, /NIST CURVE: P-256/);
  assert.match(text, /ecdsa-with-SHA256/);
  assert.doesNotMatch(text, /Subject Alternative Name/);
  assert.match(text, /verify OK/);
  assert.deepEqual(kubeletClientUsages(key.kind), ["digital signature", "client auth"]);
});

Deno.test("csr: serving names go into a subjectAltName extension request; RSA keys sign too", async () => {
  const rsa = await new Deno.Command("openssl", {
    args: ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const key = await importRequestKey(new TextDecoder().decode(rsa.stdout));
  assert.equal(key.kind, "rsa");
  const text = await opensslText(
    await makeCsrPem(key, {
      commonName: "system:node:n",
      organizations: ["system:nodes"],
      dnsNames: ["n"],
      ipAddresses: ["192.0.2.7", "fd00::7"],
    }),
  );
  assert.match(text, /DNS:n, IP Address:192\.0\.2\.7, IP Address:FD00:0:0:0:0:0:0:7/);
  assert.match(text, /sha256WithRSAEncryption/);
  assert.match(text, /verify OK/);
});

Deno.test("csr: digestedName is upstream's node-csr-<SHA-512/256 of key, subject and usages>", async () => {
  const spki = new Uint8Array([1, 2, 3]);
  const t = nodeClientTemplate("n1");
  const name = await digestedName(spki, t, ["digital signature", "client auth"]);
  // Computed by hand: base64url("AQID")|... hashed with SHA-512/256 (openssl dgst -sha512-256).
  const input =
    "AQID|c3lzdGVtOm5vZGU6bjE|c3lzdGVtOm5vZGVz|ZGlnaXRhbCBzaWduYXR1cmU|Y2xpZW50IGF1dGg|";
  const out = await new Deno.Command("sh", {
    args: ["-c", `printf '%s' '${input}' | openssl dgst -sha512-256 -binary | base64 -w0`],
    stdout: "piped",
  }).output();
  const expected = new TextDecoder().decode(out.stdout).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
  assert.equal(name, `node-csr-${expected}`);
  assert.notEqual(await digestedName(spki, nodeClientTemplate("n2"), ["client auth"]), name);
});

Deno.test("csr: a request of the same name and key is reused; another key's is refused", async () => {
  const api = fakeCsrApi();
  const key = await generateRequestKey();
  const pem = await makeCsrPem(key, nodeClientTemplate("n1"));
  const req = {
    pem,
    key,
    name: "node-csr-x",
    signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
    usages: kubeletClientUsages(key.kind),
  };
  const first = await createCsr(api.client, req);
  assert.equal(first.name, "node-csr-x");
  assert.deepEqual(await createCsr(api.client, req), first, "a restart picks up its request");
  const other = await generateRequestKey();
  await assert.rejects(
    createCsr(api.client, {
      ...req,
      key: other,
      pem: await makeCsrPem(other, nodeClientTemplate("n1")),
    }),
    (e: unknown) => e instanceof CsrCreateError && /another key/.test(e.message),
  );
  const body = api.created[0];
  assert.deepEqual(body.spec?.usages, ["digital signature", "client auth"]);
  assert.equal(body.spec?.signerName, "kubernetes.io/kube-apiserver-client-kubelet");
});

Deno.test("csr: waitForCertificate returns the certificate once approved and issued", async () => {
  const api = fakeCsrApi();
  const signer = await testSigner();
  const key = await generateRequestKey();
  const csr = await createCsr(api.client, {
    pem: await makeCsrPem(key, nodeClientTemplate("n1")),
    key,
    signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
    usages: ["digital signature", "client auth"],
  });
  const ac = new AbortController();
  let approvedSeen = false;
  const waiting = waitForCertificate(api.client, csr, {
    signal: ac.signal,
    onApproved: () => (approvedSeen = true),
  });
  const now = Date.now();
  const cert = await signer.sign(api.created[0], { notBeforeMs: now, notAfterMs: now + 60_000 });
  api.approve(csr.name, cert);
  assert.equal(await waiting, cert);
  assert.equal(approvedSeen, false, "approved and issued in one step");
});

Deno.test("csr: a denied request is CsrRefusedError with upstream's reason and message", async () => {
  const api = fakeCsrApi();
  const key = await generateRequestKey();
  const csr = await createCsr(api.client, {
    pem: await makeCsrPem(key, nodeClientTemplate("n1")),
    key,
    signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
    usages: ["digital signature", "client auth"],
  });
  api.deny(csr.name, "NotOurs", "no such node");
  await assert.rejects(
    waitForCertificate(api.client, csr, { signal: new AbortController().signal }),
    (e: unknown) =>
      e instanceof CsrRefusedError &&
      e.message ===
        "certificate signing request csr-1 is denied, reason: NotOurs, message: no such node",
  );
});
