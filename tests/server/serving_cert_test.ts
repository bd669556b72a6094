import assert from "node:assert/strict";
import type { ApiClient, ApiRequest } from "../../src/apiclient/types.ts";
import {
  CsrRefusedError,
  KUBELET_SERVING_SIGNER,
  ServingCertManager,
} from "../../src/server/tls/serving_cert.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";
import { testCA } from "./_certs.ts";

/** An API server holding CSRs; `decide` answers each GET of a CSR. */
function fakeApi(decide: (name: string, polls: number) => Record<string, unknown>) {
  const created: Record<string, unknown>[] = [];
  const polls = new Map<string, number>();
  const client: ApiClient = {
    server: "https://api",
    request<T>(req: ApiRequest): Promise<T> {
      if (req.method === "POST") {
        created.push(req.body as Record<string, unknown>);
        return Promise.resolve({ metadata: { name: `csr-${created.length}` } } as T);
      }
      const name = req.path.split("/").at(-1)!;
      polls.set(name, (polls.get(name) ?? 0) + 1);
      return Promise.resolve(decide(name, polls.get(name)!) as T);
    },
    watch: () => {
      throw new Error("not used");
    },
    close() {},
  };
  return { client, created };
}

/**
 * Runs `p` to completion on the fake clock. Key generation, signing and file writes are real
 * I/O, so each step first lets pending I/O finish (a macrotask turn), then moves time on.
 */
async function drive<T>(p: Promise<T>, clock: FakeClock, stepMs = 1000): Promise<T> {
  let done = false;
  p.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 2000 && !done; i++) {
    await new Promise((r) => setTimeout(r, 1));
    await clock.advance(stepMs);
  }
  return await p;
}

async function manager(client: ApiClient, clock: FakeClock) {
  const certDir = await Deno.makeTempDir({ prefix: "denolet-serving-" });
  return new ServingCertManager({
    client,
    clock,
    logger: createLogger({ write: () => {} }),
    nodeName: "node-a",
    certDir,
    hosts: ["node-a", "192.0.2.2"],
    random: () => 0.5,
  });
}

Deno.test("serving cert: a kubelet-serving CSR for system:node:<name>, stored once issued and reused", async () => {
  const ca = await testCA("cluster");
  const issued = await ca.issue({ commonName: "system:node:node-a", usages: ["serverAuth"] });
  const clock = new FakeClock(Date.now());
  // Approved and signed on the third look.
  const api = fakeApi((_name, n) => n < 3 ? {} : { status: { certificate: btoa(issued.certPem) } });
  const m = await manager(api.client, clock);
  assert.equal(await m.load(), undefined);
  const cert = await drive(m.request(), clock);
  assert.equal(cert.cert, issued.certPem);
  assert.match(cert.key, /^-----BEGIN PRIVATE KEY-----/);
  const body = api.created[0] as { metadata: unknown; spec: Record<string, unknown> };
  assert.deepEqual(body.metadata, { generateName: "csr-" });
  assert.equal(body.spec.signerName, KUBELET_SERVING_SIGNER);
  assert.deepEqual(body.spec.usages, ["digital signature", "server auth"]);
  const request = atob(body.spec.request as string);
  assert.match(request, /^-----BEGIN CERTIFICATE REQUEST-----\n/);
  // The request names the node and its addresses (checked with openssl, which parses it).
  const text = await new Deno.Command("openssl", {
    args: ["req", "-noout", "-text", "-verify"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = text.stdin.getWriter();
  await w.write(new TextEncoder().encode(request));
  await w.close();
  const out = await text.output();
  const shown = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.match(shown, /Subject: O ?= ?system:nodes, CN ?= ?system:node:node-a/);
  assert.match(shown, /DNS:node-a, IP Address:192\.0\.2\.2/);
  assert.match(shown, /verify OK/);
  // Stored behind kubelet-server-current.pem and found again by the next start.
  const link = await Deno.readLink(m.currentPath);
  assert.match(link, /^kubelet-server-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.pem$/);
  assert.deepEqual(await m.load(), cert);
  // Renewed at 80 % of its life with random() = 0.5.
  const deadline = m.rotationDeadline(cert);
  assert.equal(deadline, cert.notBeforeMs + 0.8 * (cert.notAfterMs - cert.notBeforeMs));
});

Deno.test("serving cert: a denied CSR is an error naming it", async () => {
  const api = fakeApi(() => ({
    status: { conditions: [{ type: "Denied", status: "True", message: "not our node" }] },
  }));
  const m = await manager(api.client, new FakeClock());
  await assert.rejects(
    m.request(),
    (err: unknown) =>
      err instanceof CsrRefusedError && /csr-1 was denied: not our node/.test(err.message),
  );
});

Deno.test("serving cert: run serves the stored certificate, then renews it at the rotation deadline", async () => {
  const ca = await testCA("cluster");
  const now = Date.now();
  const first = await ca.issue({ commonName: "system:node:node-a", usages: ["serverAuth"] });
  const second = await ca.issue({ commonName: "system:node:node-a", usages: ["serverAuth"] });
  const clock = new FakeClock(now);
  let approve = first;
  const api = fakeApi(() => ({ status: { certificate: btoa(approve.certPem) } }));
  const m = await manager(api.client, clock);
  await drive(m.request(), clock);
  approve = second;
  const seen: string[] = [];
  const ac = new AbortController();
  const running = m.run((c) => seen.push(c.cert), { signal: ac.signal });
  const cert = (await m.load())!;
  const untilSeen = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (seen.length >= n ? resolve() : setTimeout(check, 1));
      check();
    });
  await drive(untilSeen(1), clock, 0);
  assert.deepEqual(seen, [first.certPem], "the stored one first, no new CSR yet");
  assert.equal(api.created.length, 1);
  await clock.advance(m.rotationDeadline(cert) - clock.now() - 1000);
  assert.equal(api.created.length, 1, "not renewed before the deadline");
  await drive(untilSeen(2), clock);
  assert.deepEqual(seen.slice(0, 2), [first.certPem, second.certPem]);
  // (The test CA dated the second certificate from real time, so it may be due at once too.)
  assert.ok(api.created.length >= 2);
  ac.abort();
  await running;
});
