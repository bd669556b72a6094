import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { TokenManager } from "../../src/objects/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeApi } from "./_fakes.ts";

const pod: V1Pod = {
  metadata: { name: "web", namespace: "ns", uid: "uid-1" },
  spec: { serviceAccountName: "builder", containers: [] },
};

function setup(jitter = 0) {
  const clock = new FakeClock();
  const api = new FakeApi();
  api.now = () => clock.now();
  const tokens = new TokenManager({ client: api, clock, logger: nullLogger, random: () => jitter });
  return { clock, api, tokens };
}

Deno.test("token manager asks a TokenRequest bound to the pod, with audience and lifetime", async () => {
  const { api, tokens } = setup();
  assert.equal(await tokens.get(pod, { audience: "vault", expirationSeconds: 3600 }), "token-1");
  const req = api.requests[0];
  assert.equal(req.method, "POST");
  assert.equal(req.path, "/api/v1/namespaces/ns/serviceaccounts/builder/token");
  assert.deepEqual(req.body, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: {
      audiences: ["vault"],
      expirationSeconds: 3600,
      boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "web", uid: "uid-1" },
    },
  });
  // No audience: the API server's own (the list is left out), and the default account.
  const plain = { ...pod, spec: { containers: [] } };
  await tokens.get(plain, { expirationSeconds: 3600 });
  const body = api.requests[1].body as { spec: Record<string, unknown> };
  assert.equal(body.spec.audiences, undefined);
  assert.equal(api.requests[1].path, "/api/v1/namespaces/ns/serviceaccounts/default/token");
});

Deno.test("token manager refreshes at 80 % of the lifetime, minus the jitter", async () => {
  const { clock, api, tokens } = setup();
  const spec = { expirationSeconds: 1000 };
  assert.equal(await tokens.get(pod, spec), "token-1");
  await clock.advance(799_000);
  assert.equal(await tokens.get(pod, spec), "token-1");
  assert.deepEqual(tokens.dueForRefresh(), []);
  await clock.advance(1000);
  assert.deepEqual(tokens.dueForRefresh(), ["uid-1"]);
  assert.deepEqual(tokens.dueForRefresh(), [], "reported once");
  assert.equal(await tokens.get(pod, spec), "token-2");
  assert.equal(api.tokenCalls, 2);

  // With the largest jitter (10 s) the refresh comes that much earlier.
  const early = setup(0.999999);
  await early.tokens.get(pod, spec);
  await early.clock.advance(790_001);
  assert.deepEqual(early.tokens.dueForRefresh(), ["uid-1"]);
});

Deno.test("token manager refreshes long-lived tokens after 24 hours", async () => {
  const { clock, api, tokens } = setup();
  const spec = { expirationSeconds: 7 * 24 * 3600 };
  await tokens.get(pod, spec);
  await clock.advance(24 * 3600_000 - 1000);
  await tokens.get(pod, spec);
  assert.equal(api.tokenCalls, 1);
  await clock.advance(1000);
  await tokens.get(pod, spec);
  assert.equal(api.tokenCalls, 2);
});

Deno.test("token manager keys tokens by audience, lifetime and pod", async () => {
  const { api, tokens } = setup();
  await tokens.get(pod, { audience: "a", expirationSeconds: 3600 });
  await tokens.get(pod, { audience: "b", expirationSeconds: 3600 });
  await tokens.get(pod, { audience: "a", expirationSeconds: 7200 });
  await tokens.get({ ...pod, metadata: { ...pod.metadata, uid: "uid-2" } }, {
    audience: "a",
    expirationSeconds: 3600,
  });
  await tokens.get(pod, { audience: "a", expirationSeconds: 3600 });
  assert.equal(api.tokenCalls, 4);
  assert.deepEqual(tokens.pods().sort(), ["uid-1", "uid-2"]);
  tokens.forgetPod("uid-1");
  assert.deepEqual(tokens.pods(), ["uid-2"]);
});

Deno.test("token manager keeps a valid token when a refresh fails, and fails once it expired", async () => {
  const { clock, api, tokens } = setup();
  const spec = { expirationSeconds: 1000 };
  await tokens.get(pod, spec);
  await clock.advance(900_000);
  api.tokenError = new Error("connection refused");
  assert.equal(await tokens.get(pod, spec), "token-1");
  await clock.advance(100_000);
  await assert.rejects(tokens.get(pod, spec), /failed to fetch token: connection refused/);
  tokens.cleanup();
  assert.deepEqual(tokens.pods(), []);
});

Deno.test("token manager refuses an answer without a token", async () => {
  const { api, tokens } = setup();
  api.token = () => ({ status: {} });
  await assert.rejects(
    tokens.get(pod, { expirationSeconds: 600 }),
    /failed to fetch token: .*no token/,
  );
});
