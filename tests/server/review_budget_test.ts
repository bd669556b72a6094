/**
 * The reviews' own budget: anyone who reaches the node API can send fresh random bearer tokens,
 * each a TokenReview. Past the budget they are refused at once (401), never queued, and what is
 * refused never reaches the API client.
 */
import assert from "node:assert/strict";
import type { ApiClient, ApiRequest } from "../../src/apiclient/mod.ts";
import { AuthenticationError, tokenAuthenticator } from "../../src/server/auth/mod.ts";
import { accessReviewer, ReviewBudgetError, tokenReviewer } from "../../src/server/auth/reviews.ts";
import { FakeClock } from "../../src/util/clock.ts";

/** Answers every review "not authenticated / not allowed", or holds it until released. */
class ReviewApi implements ApiClient {
  readonly server = "https://fake";
  readonly asked: ApiRequest[] = [];
  hold = false;
  readonly #held: Array<() => void> = [];

  request<T>(req: ApiRequest): Promise<T> {
    this.asked.push(req);
    const answer = { status: { authenticated: false, allowed: false } } as T;
    if (!this.hold) return Promise.resolve(answer);
    return new Promise<T>((resolve) => this.#held.push(() => resolve(answer)));
  }

  release(): void {
    for (const r of this.#held.splice(0)) r();
  }

  watch(): AsyncIterable<never> {
    throw new Error("reviews do not watch");
  }

  close(): void {}
}

const bearer = (t: string) => ({ headers: new Headers({ authorization: `Bearer ${t}` }) });

Deno.test("a flood of fresh bearer tokens gets 401 at once past the review budget, never queued", async () => {
  const clock = new FakeClock();
  const api = new ReviewApi();
  const authn = tokenAuthenticator({
    review: tokenReviewer(api, clock, { budget: { qps: 10, burst: 20, maxInFlight: 100 } }),
    cacheTTLMs: 120_000,
    clock,
  });
  const results = await Promise.allSettled(
    Array.from({ length: 100 }, (_, i) => authn(bearer(`random-${i}`))),
  );
  // Every request is answered without the clock moving: nothing waited for a token.
  assert.ok(
    results.every((r) => r.status === "rejected" && r.reason instanceof AuthenticationError),
  );
  assert.equal(api.asked.length, 20, "only the burst reached the API server");
  const refused = results.filter((r) =>
    r.status === "rejected" && /budget spent/.test(String(r.reason.message))
  );
  assert.equal(refused.length, 80);
  // The bucket refills at qps: a second later ten more may be asked.
  await clock.advance(1_000);
  await Promise.allSettled(Array.from({ length: 30 }, (_, i) => authn(bearer(`later-${i}`))));
  assert.equal(api.asked.length, 30);
});

Deno.test("reviews under way are capped: one past the cap is refused, not queued", async () => {
  const clock = new FakeClock();
  const api = new ReviewApi();
  api.hold = true;
  const review = accessReviewer(api, clock, { budget: { qps: 100, burst: 100, maxInFlight: 3 } });
  const spec = {
    resourceAttributes: {
      namespace: "",
      verb: "get",
      group: "",
      version: "v1",
      resource: "nodes",
      subresource: "proxy",
      name: "n",
    },
    user: "u",
    groups: [],
  };
  const pending = Array.from({ length: 3 }, () => review(spec, {}));
  await assert.rejects(review(spec, {}), ReviewBudgetError);
  assert.equal(api.asked.length, 3);
  api.hold = false;
  api.release();
  await Promise.all(pending);
  await review(spec, {});
  assert.equal(api.asked.length, 4, "a slot freed is used again");
});
