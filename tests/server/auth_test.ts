import assert from "node:assert/strict";
import {
  alwaysAllow,
  AuthenticationError,
  AuthorizationError,
  createAuthenticator,
  requestAttributes,
  type ReviewAccess,
  type ReviewToken,
  subresourcesFor,
  tokenAuthenticator,
  webhookAuthorizer,
  x509Authenticator,
} from "../../src/server/auth/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";

const headers = (h: Record<string, string> = {}) => new Headers(h);
const verified = { verified: true, commonName: "alice", organizations: ["devs", "ops"] };

Deno.test("authn: a verified client certificate is user CN with groups O and system:authenticated", async () => {
  const authn = createAuthenticator({ methods: [x509Authenticator()], anonymous: false });
  assert.deepEqual(await authn({ headers: headers(), peer: verified }), {
    name: "alice",
    groups: ["devs", "ops", "system:authenticated"],
  });
});

Deno.test("authn: an untrusted certificate is refused even with anonymous on, never anonymous", async () => {
  const authn = createAuthenticator({ methods: [x509Authenticator()], anonymous: true });
  await assert.rejects(
    authn({
      headers: headers(),
      peer: {
        verified: false,
        error: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
        commonName: "mallory",
        organizations: [],
      },
    }),
    (err: unknown) =>
      err instanceof AuthenticationError &&
      /"mallory" failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE/.test(err.message),
  );
});

Deno.test("authn: no credentials are system:anonymous only when anonymous auth is on", async () => {
  const on = createAuthenticator({ methods: [x509Authenticator()], anonymous: true });
  assert.deepEqual(await on({ headers: headers() }), {
    name: "system:anonymous",
    groups: ["system:unauthenticated"],
  });
  const off = createAuthenticator({ methods: [x509Authenticator()], anonymous: false });
  assert.equal(await off({ headers: headers() }), undefined);
  assert.throws(
    () => createAuthenticator({ methods: [], anonymous: false }),
    /No authentication method configured/,
  );
});

Deno.test("authn: bearer tokens go through TokenReview, answers cached for the TTL", async () => {
  const clock = new FakeClock();
  const asked: string[] = [];
  const review: ReviewToken = (token) => {
    asked.push(token);
    return Promise.resolve(
      token === "good"
        ? { authenticated: true, user: { username: "bob", uid: "u1", groups: ["team"] } }
        : { authenticated: false, error: "token expired" },
    );
  };
  const authn = createAuthenticator({
    methods: [tokenAuthenticator({ review, cacheTTLMs: 120_000, clock })],
    anonymous: true,
  });
  const bearer = (t: string) => ({ headers: headers({ authorization: `Bearer ${t}` }) });
  assert.deepEqual(await authn(bearer("good")), {
    name: "bob",
    uid: "u1",
    groups: ["team", "system:authenticated"],
    extra: undefined,
  });
  await authn(bearer("good"));
  assert.deepEqual(asked, ["good"]);
  // A rejected token is a 401, not anonymous; the refusal is cached too.
  await assert.rejects(authn(bearer("bad")), /invalid bearer token: token expired/);
  await assert.rejects(authn(bearer("bad")), AuthenticationError);
  assert.deepEqual(asked, ["good", "bad"]);
  await clock.advance(120_001);
  await authn(bearer("good"));
  assert.deepEqual(asked, ["good", "bad", "good"]);
  // The scheme is case-insensitive; a WebSocket client passes the token as a subprotocol.
  await authn({ headers: headers({ authorization: "bearer good" }) });
  const b64 = btoa("good").replace(/=+$/, "");
  assert.equal(
    (await authn({
      headers: headers({
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-protocol": `v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.${b64}`,
      }),
    }))?.name,
    "bob",
  );
});

Deno.test("authn: a TokenReview that cannot be had is a 401 and is not cached", async () => {
  let calls = 0;
  const review: ReviewToken = () => {
    calls++;
    return Promise.reject(new Error("connection refused"));
  };
  const authn = createAuthenticator({
    methods: [tokenAuthenticator({ review, cacheTTLMs: 120_000, clock: new FakeClock() })],
    anonymous: false,
  });
  const req = { headers: headers({ authorization: "Bearer t" }) };
  await assert.rejects(authn(req), /cannot review the bearer token: connection refused/);
  await assert.rejects(authn(req), AuthenticationError);
  assert.equal(calls, 2);
});

Deno.test("authz: attributes follow upstream's path mapping and method verbs", () => {
  assert.deepEqual(subresourcesFor("/stats/summary"), ["stats"]);
  assert.deepEqual(subresourcesFor("/stats"), ["stats"]);
  assert.deepEqual(subresourcesFor("/statsfoo"), ["proxy"]);
  assert.deepEqual(subresourcesFor("/metrics"), ["metrics"]);
  assert.deepEqual(subresourcesFor("/metrics/resource"), ["metrics"]);
  assert.deepEqual(subresourcesFor("/logs/syslog"), ["log"]);
  assert.deepEqual(subresourcesFor("/spec/"), ["spec"]);
  assert.deepEqual(subresourcesFor("/pods"), ["pods", "proxy"]);
  assert.deepEqual(subresourcesFor("/runningpods/"), ["pods", "proxy"]);
  assert.deepEqual(subresourcesFor("/healthz"), ["healthz", "proxy"]);
  assert.deepEqual(subresourcesFor("/configz"), ["configz", "proxy"]);
  assert.deepEqual(subresourcesFor("/exec/ns/pod/c"), ["proxy"]);
  assert.deepEqual(subresourcesFor("/containerLogs/ns/pod/c"), ["proxy"]);
  const user = { name: "u", groups: [] };
  for (
    const [method, verb] of [
      ["GET", "get"],
      ["POST", "create"],
      ["PUT", "update"],
      ["PATCH", "patch"],
      ["DELETE", "delete"],
      ["HEAD", ""],
    ]
  ) {
    const [a] = requestAttributes(user, { method, path: "/containerLogs/a/b/c" }, "node-a");
    assert.deepEqual(a, {
      user,
      verb,
      resource: "nodes",
      subresource: "proxy",
      name: "node-a",
      apiVersion: "v1",
      path: "/containerLogs/a/b/c",
    });
  }
});

Deno.test("authz: exec, attach, run and portForward ask for create whatever the method (a WebSocket GET too)", () => {
  const user = { name: "u", groups: [] };
  for (
    const path of [
      "/exec/a/b/c",
      "/attach/a/b/c",
      "/run/a/b/c",
      "/portForward/a/b",
      "/portForward/a/b/uid",
      "/%65xec/a/b/c",
      "/exec/a/%zz/c",
    ]
  ) {
    for (const method of ["GET", "POST", "HEAD"]) {
      const attrs = requestAttributes(user, { method, path }, "node-a");
      assert.deepEqual(attrs.map((a) => `${a.verb} ${a.subresource}`), ["create proxy"], path);
    }
  }
  // Only those paths: a look-alike keeps the method's verb.
  const [other] = requestAttributes(user, { method: "GET", path: "/execute" }, "node-a");
  assert.equal(other.verb, "get");
});

Deno.test("authz: Webhook asks a SubjectAccessReview, caches allowed 5m and denied 30s", async () => {
  const clock = new FakeClock();
  const specs: unknown[] = [];
  let allow = true;
  const review: ReviewAccess = (spec) => {
    specs.push(spec);
    return Promise.resolve(allow ? { allowed: true } : { allowed: false, reason: "no RBAC rule" });
  };
  const authz = webhookAuthorizer({ review, allowedTTLMs: 300_000, deniedTTLMs: 30_000, clock });
  const user = { name: "alice", uid: "7", groups: ["devs", "system:authenticated"] };
  const [attrs] = requestAttributes(user, { method: "GET", path: "/stats/summary" }, "node-a");
  assert.deepEqual(await authz.authorize(attrs), { allowed: true, reason: undefined });
  assert.deepEqual(specs[0], {
    resourceAttributes: {
      namespace: "",
      verb: "get",
      group: "",
      version: "v1",
      resource: "nodes",
      subresource: "stats",
      name: "node-a",
    },
    user: "alice",
    uid: "7",
    groups: ["devs", "system:authenticated"],
  });
  allow = false;
  await clock.advance(299_000);
  assert.equal((await authz.authorize(attrs)).allowed, true);
  assert.equal(specs.length, 1);
  await clock.advance(2_000);
  assert.deepEqual(await authz.authorize(attrs), { allowed: false, reason: "no RBAC rule" });
  allow = true;
  await clock.advance(29_000);
  assert.equal((await authz.authorize(attrs)).allowed, false);
  await clock.advance(2_000);
  assert.equal((await authz.authorize(attrs)).allowed, true);
  assert.equal(specs.length, 3);
});

Deno.test("authz: a failed SubjectAccessReview is an AuthorizationError and not cached", async () => {
  let calls = 0;
  const authz = webhookAuthorizer({
    review: () => {
      calls++;
      return Promise.reject(new Error("503 from the API server"));
    },
    allowedTTLMs: 300_000,
    deniedTTLMs: 30_000,
    clock: new FakeClock(),
  });
  const [attrs] = requestAttributes(
    { name: "a", groups: [] },
    { method: "GET", path: "/pods" },
    "n",
  );
  await assert.rejects(authz.authorize(attrs), AuthorizationError);
  await assert.rejects(authz.authorize(attrs), /SubjectAccessReview failed: 503/);
  assert.equal(calls, 2);
  assert.deepEqual(await alwaysAllow.authorize(attrs), { allowed: true });
});
