import assert from "node:assert/strict";
import type { ApiClient } from "../../src/apiclient/types.ts";
import {
  CertificateFileStore,
  CertificateManager,
  type CertificateManagerOptions,
  generateRequestKey,
  type KeyPair,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  kubeletClientUsages,
  makeCsrPem,
  nodeClientTemplate,
} from "../../src/certificate/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";
import { fakeCsrApi, testSigner } from "./_fake_csr_api.ts";
import { until } from "./_drive.ts";

const MIN = 60_000;

async function setup(clock: FakeClock, extra: Partial<CertificateManagerOptions> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "denolet-certmgr-" });
  const api = fakeCsrApi();
  const signer = await testSigner();
  const store = new CertificateFileStore({ prefix: "kubelet-client", dir, now: () => clock.now() });
  const used: string[] = [];
  const lines: string[] = [];
  const opts: CertificateManagerOptions = {
    name: "kubelet-client",
    store,
    signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
    template: () => nodeClientTemplate("n1"),
    usages: kubeletClientUsages,
    client: (current) => {
      used.push(current ? "node" : "bootstrap");
      return api.client as ApiClient;
    },
    clock,
    logger: createLogger({ write: (l) => lines.push(l), verbosity: 2 }),
    random: () => 0.5,
    ...extra,
  };
  /** A pair valid from `from` for `lifeMs`, signed for the next CSR the API receives. */
  const issueNext = async (from: number, lifeMs: number) => {
    const csr = await api.nextCreated();
    api.approve(
      csr.metadata!.name!,
      await signer.sign(csr, { notBeforeMs: from, notAfterMs: from + lifeMs }),
    );
  };
  return { dir, api, signer, store, used, lines, opts, issueNext };
}

Deno.test("certificate manager: with no certificate it asks at once with the bootstrap credentials", async () => {
  const clock = new FakeClock(Date.now());
  const s = await setup(clock);
  const m = await CertificateManager.open(s.opts);
  assert.equal(m.current(), undefined);
  const rotated: KeyPair[] = [];
  m.onRotate((p) => rotated.push(p));
  const ac = new AbortController();
  const running = m.run({ signal: ac.signal });
  await s.issueNext(clock.now() - 5 * MIN, 100 * MIN);
  await until(() => rotated.length === 1);
  assert.deepEqual(s.used, ["bootstrap"]);
  assert.equal(m.current()?.leaf.commonName, "system:node:n1");
  assert.equal(m.current()?.certPem, rotated[0].certPem);
  assert.equal(
    await Deno.readTextFile(s.store.currentPath),
    rotated[0].certPem + rotated[0].keyPem,
  );
  const body = s.api.created[0];
  assert.equal(body.metadata?.name, "csr-1");
  assert.deepEqual(body.spec?.usages, ["digital signature", "client auth"]);
  ac.abort();
  await running;
  await Deno.remove(s.dir, { recursive: true });
});

Deno.test("certificate manager: renews at 70-90 % of the lifetime with its own identity, not before", async () => {
  const start = Math.floor(Date.now() / 1000) * 1000; // certificates hold whole seconds
  const clock = new FakeClock(start);
  const s = await setup(clock);
  // A stored certificate issued 5 minutes ago (backdated as the signer does), 100 minutes long.
  const key = await generateRequestKey();
  await s.api.client.request({
    method: "POST",
    path: "/apis/certificates.k8s.io/v1/certificatesigningrequests",
    body: {
      metadata: {},
      spec: { request: btoa(await makeCsrPem(key, nodeClientTemplate("n1"))) },
    },
  });
  const notBefore = start - 5 * MIN;
  await s.store.update(
    await s.signer.sign(s.api.created[0], {
      notBeforeMs: notBefore,
      notAfterMs: notBefore + 100 * MIN,
    }),
    key.pem,
  );
  const m = await CertificateManager.open(s.opts);
  assert.ok(m.current(), "the stored one is used");
  // random() = 0.5: 80 % of the lifetime.
  assert.equal(m.nextRotationDeadline(), notBefore + 80 * MIN);
  for (const r of [0, 0.999]) {
    const d = await CertificateManager.open({ ...s.opts, random: () => r });
    const at = (d.nextRotationDeadline() - notBefore) / (100 * MIN);
    assert.ok(at >= 0.7 && at < 0.9, `deadline at ${at} of the lifetime`);
  }
  const rotated: KeyPair[] = [];
  m.onRotate((p) => rotated.push(p));
  const ac = new AbortController();
  const running = m.run({ signal: ac.signal });
  await until(() => true);
  await clock.advance(notBefore + 80 * MIN - clock.now() - 1000);
  await until(() => true);
  assert.equal(s.api.created.length, 1, "nothing asked before the deadline");
  const issued = s.issueNext(notBefore + 80 * MIN, 100 * MIN);
  await clock.advance(2000);
  await issued;
  await until(() => rotated.length === 1);
  assert.deepEqual(s.used, ["node"], "renewed with the node's own certificate");
  ac.abort();
  await running;
  await Deno.remove(s.dir, { recursive: true });
});

Deno.test("certificate manager: an expired certificate is renewed with the bootstrap credentials", async () => {
  const start = Math.floor(Date.now() / 1000) * 1000; // certificates hold whole seconds
  const clock = new FakeClock(start);
  const s = await setup(clock);
  const key = await generateRequestKey();
  await s.api.client.request({
    method: "POST",
    path: "/apis/certificates.k8s.io/v1/certificatesigningrequests",
    body: {
      metadata: {},
      spec: { request: btoa(await makeCsrPem(key, nodeClientTemplate("n1"))) },
    },
  });
  await s.store.update(
    await s.signer.sign(s.api.created[0], {
      notBeforeMs: start - 10 * MIN,
      notAfterMs: start + MIN,
    }),
    key.pem,
  );
  const m = await CertificateManager.open(s.opts);
  await clock.advance(2 * MIN);
  assert.equal(m.current(), undefined, "expired");
  const ac = new AbortController();
  const running = m.run({ signal: ac.signal });
  await s.issueNext(clock.now(), 100 * MIN);
  await until(() => m.current());
  assert.deepEqual(s.used, ["bootstrap"]);
  ac.abort();
  await running;
  await Deno.remove(s.dir, { recursive: true });
});

Deno.test("certificate manager: a denied request is logged with what to do and asked again after 2 s", async () => {
  const clock = new FakeClock(Date.now());
  const s = await setup(clock, { hint: (csr) => `approve ${csr} by hand` });
  const m = await CertificateManager.open(s.opts);
  const ac = new AbortController();
  const running = m.run({ signal: ac.signal });
  const first = await s.api.nextCreated();
  s.api.deny(first.metadata!.name!, "Nope", "not this node");
  await until(() => s.lines.some((l) => l.includes("Certificate request was not signed")));
  const line = s.lines.find((l) => l.includes("Certificate request was not signed"))!;
  assert.match(line, /is denied, reason: Nope, message: not this node/);
  assert.match(line, /hint="approve csr-1 by hand"/);
  const second = s.api.nextCreated();
  await clock.advance(2_300);
  assert.equal((await second).metadata?.name, "csr-2");
  ac.abort();
  await running;
  await Deno.remove(s.dir, { recursive: true });
});

Deno.test("certificate manager: a year-long certificate is not renewed early; a wall clock NTP steps past its deadline is followed within the hour", async () => {
  const start = Math.floor(Date.now() / 1000) * 1000;
  const clock = new FakeClock(start);
  const s = await setup(clock);
  const DAY = 24 * 60 * MIN;
  const m = await CertificateManager.open(s.opts);
  const rotated: KeyPair[] = [];
  m.onRotate((p) => rotated.push(p));
  const ac = new AbortController();
  const running = m.run({ signal: ac.signal });
  await s.issueNext(start, 365 * DAY);
  await until(() => rotated.length === 1);
  // Well past setTimeout's 24.8-day limit, which a single timer would overflow at once.
  await clock.advance(30 * DAY);
  await until(() => true);
  assert.equal(s.api.created.length, 1, "no renewal a month into a year-long certificate");
  // The box's wall clock jumps ahead past the 80 % point (random() = 0.5).
  clock.stepWall(300 * DAY);
  const issued = s.issueNext(clock.now(), 365 * DAY);
  await clock.advance(60 * MIN);
  await issued;
  await until(() => rotated.length === 2);
  ac.abort();
  await running;
  await Deno.remove(s.dir, { recursive: true });
});
