import assert from "node:assert/strict";
import {
  type Authorizer,
  createAuthenticator,
  x509Authenticator,
} from "../../src/server/auth/mod.ts";
import { createNodeApiHandler } from "../../src/server/mod.ts";
import { createSecureNodeApiHandler } from "../../src/server/secure_handler.ts";
import type { CadvisorMetrics } from "../../src/stats/mod.ts";
import { fakeDeps } from "./_fakes.ts";

const TEXT = "# HELP container_scrape_error x\n# TYPE container_scrape_error gauge\n" +
  "container_scrape_error 0\n";

function fakeCadvisor(): CadvisorMetrics & { signals: (AbortSignal | undefined)[] } {
  const signals: (AbortSignal | undefined)[] = [];
  return {
    signals,
    render(opts) {
      signals.push(opts?.signal);
      return Promise.resolve(TEXT);
    },
  };
}

Deno.test("/metrics/cadvisor on the read-only port: the exposition, as Prometheus text", async () => {
  const cadvisor = fakeCadvisor();
  const handler = createNodeApiHandler(fakeDeps({ cadvisor }));
  const res = await handler(new Request("http://node/metrics/cadvisor"));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  assert.equal(await res.text(), TEXT);
  assert.ok(cadvisor.signals[0] instanceof AbortSignal, "the request's signal is passed on");
  const head = await handler(new Request("http://node/metrics/cadvisor", { method: "HEAD" }));
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
});

Deno.test("/metrics/cadvisor is 404 when the agent has no collector", async () => {
  const res = await createNodeApiHandler(fakeDeps())(new Request("http://node/metrics/cadvisor"));
  assert.equal(res.status, 404);
  await res.body?.cancel();
});

Deno.test("/metrics/cadvisor on the authenticated port needs nodes/metrics, as upstream", async () => {
  const asked: string[] = [];
  const allowing = (...subresources: string[]): Authorizer => ({
    authorize(a) {
      asked.push(`${a.verb} ${a.subresource}`);
      return Promise.resolve({ allowed: subresources.includes(a.subresource) });
    },
  });
  const authenticate = createAuthenticator({ methods: [x509Authenticator()], anonymous: true });
  const secure = (authorizer: Authorizer) =>
    createSecureNodeApiHandler({
      ...fakeDeps({ cadvisor: fakeCadvisor() }),
      authenticate,
      authorizer,
    });
  const req = () => new Request("https://node-a:10250/metrics/cadvisor");
  const denied = await secure(allowing("stats", "proxy"))(req());
  assert.equal(denied.status, 403);
  assert.equal(
    await denied.text(),
    "Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource(s)=[metrics])",
  );
  const ok = await secure(allowing("metrics"))(req());
  assert.equal(ok.status, 200);
  assert.equal(await ok.text(), TEXT);
  assert.deepEqual(asked, ["get metrics", "get metrics"]);
});
