import assert from "node:assert/strict";
import {
  KUBELET_SERVING_SIGNER,
  ServingCertManager,
  servingTemplate,
} from "../../src/server/tls/serving_cert.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";
import { fakeCsrApi, testSigner } from "../certificate/_fake_csr_api.ts";
import { until } from "../certificate/_drive.ts";
import { opensslText } from "../certificate/_openssl.ts";

const MIN = 60_000;

Deno.test("serving cert: a kubelet-serving CSR for system:node:<name> with its names, stored and reused", async () => {
  const certDir = await Deno.makeTempDir({ prefix: "denolet-serving-" });
  const clock = new FakeClock(Math.floor(Date.now() / 1000) * 1000);
  const api = fakeCsrApi();
  const signer = await testSigner();
  const deps = {
    client: api.client,
    clock,
    logger: createLogger({ write: () => {} }),
    nodeName: "node-a",
    certDir,
    hosts: ["node-a", "192.0.2.2", "fd00::0002"],
    random: () => 0.5,
  };
  const m = await ServingCertManager.open(deps);
  assert.equal(m.current(), undefined);
  const seen: string[] = [];
  const ac = new AbortController();
  const running = m.run((c) => seen.push(c.cert), { signal: ac.signal });
  const csr = await api.nextCreated();
  assert.equal(csr.spec?.signerName, KUBELET_SERVING_SIGNER);
  assert.deepEqual(csr.spec?.usages, ["digital signature", "server auth"]);
  const text = await opensslText(atob(csr.spec!.request!));
  assert.match(text, /Subject: O ?= ?system:nodes, CN ?= ?system:node:node-a/);
  assert.match(text, /DNS:node-a, IP Address:192\.0\.2\.2, IP Address:FD00:0:0:0:0:0:0:2/);
  assert.match(text, /verify OK/);
  const from = clock.now() - 5 * MIN;
  const cert = await signer.sign(csr, { notBeforeMs: from, notAfterMs: from + 100 * MIN });
  api.approve(csr.metadata!.name!, cert);
  await until(() => seen.length === 1);
  assert.equal(seen[0], cert);
  assert.match(await Deno.readLink(m.currentPath), /kubelet-server-\d{4}(-\d\d){5}\.pem$/);
  ac.abort();
  await running;
  // The next start serves it at once and renews it at 80 % of its life (random() = 0.5).
  const again = await ServingCertManager.open(deps);
  assert.equal(again.current()?.cert, cert);
  const ac2 = new AbortController();
  const running2 = again.run((c) => seen.push(c.cert), { signal: ac2.signal });
  await until(() => true);
  await clock.advance(from + 80 * MIN - clock.now() - 1000);
  await until(() => true);
  assert.equal(api.created.length, 1);
  const renewal = api.nextCreated();
  await clock.advance(1000);
  assert.equal((await renewal).metadata?.name, "csr-2");
  ac2.abort();
  await running2;
  await Deno.remove(certDir, { recursive: true });
});

Deno.test("serving cert: the template sorts names and IPs as upstream's, without duplicates", () => {
  assert.deepEqual(servingTemplate("n", ["n", "b.example", "10.0.0.2", "10.0.0.1", "n", ""]), {
    commonName: "system:node:n",
    organizations: ["system:nodes"],
    dnsNames: ["b.example", "n"],
    ipAddresses: ["10.0.0.1", "10.0.0.2"],
  });
});
