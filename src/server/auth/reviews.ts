/**
 * TokenReview and SubjectAccessReview through the API client: the webhooks behind
 * --authentication-token-webhook and --authorization-mode=Webhook. Only the API-server mode
 * imports this file. Like upstream's webhook clients, a failed review is retried a few times
 * with back-off (500 ms, ×1.5) when the API server is unreachable or busy.
 *
 * Anyone who reaches the port can make the agent ask: every fresh random bearer token is a
 * TokenReview. Each kind of review therefore has a budget of its own (a token bucket and a cap
 * on reviews under way) that refuses what exceeds it at once, so a flood is answered 401 (or
 * an authorization error) without queueing, and never spends the API client's own budget (the
 * caller passes a client whose connection and rate limit are not the heartbeat's nor the pods').
 */
import { RateLimiter } from "../../apiclient/_rate_limiter.ts";
import type { ApiClient } from "../../apiclient/types.ts";
import { ApiError, ApiUnavailableError } from "../../apiclient/types.ts";
import type { Clock } from "../../util/clock.ts";
import { ReviewBudgetError } from "./types.ts";

export { ReviewBudgetError };
import type { ReviewToken, TokenReviewStatus } from "./authenticator.ts";
import type {
  ReviewAccess,
  SubjectAccessReviewSpec,
  SubjectAccessReviewStatus,
} from "./authorizer.ts";

const ATTEMPTS = 5;
const FIRST_BACKOFF_MS = 500;
/** Upstream's webhook client timeout. */
const REVIEW_TIMEOUT_MS = 10_000;

/** How many reviews of one kind may be asked: per second, at once, and under way together. */
export interface ReviewBudgetOptions {
  qps: number;
  burst: number;
  maxInFlight: number;
}

/**
 * The default budget per kind: ample for kubectl and metrics scrapers (answers are cached for
 * minutes), and a small share of what the API server takes from one node.
 */
export const DEFAULT_REVIEW_BUDGET: ReviewBudgetOptions = { qps: 10, burst: 20, maxInFlight: 8 };

/** A review was not asked: its budget is spent. Refused at once, never queued. */

class ReviewBudget {
  readonly #limiter: RateLimiter;
  readonly #maxInFlight: number;
  #inFlight = 0;

  constructor(readonly what: string, clock: Clock, opts: ReviewBudgetOptions) {
    this.#limiter = new RateLimiter({ qps: opts.qps, burst: opts.burst, clock });
    this.#maxInFlight = opts.maxInFlight;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#inFlight >= this.#maxInFlight) {
      throw new ReviewBudgetError(`too many ${this.what}s under way; refused`);
    }
    if (!this.#limiter.tryAcquire()) {
      throw new ReviewBudgetError(`${this.what} budget spent; refused`);
    }
    this.#inFlight++;
    try {
      return await fn();
    } finally {
      this.#inFlight--;
    }
  }
}

function retriable(err: unknown): boolean {
  return err instanceof ApiUnavailableError ||
    (err instanceof ApiError && (err.status === 429 || err.status >= 500));
}

async function withRetries<T>(
  clock: Clock,
  signal: AbortSignal | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  let wait = FIRST_BACKOFF_MS;
  for (let attempt = 1;; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= ATTEMPTS || !retriable(err) || signal?.aborted) throw err;
      await clock.sleep(wait, { signal });
      wait *= 1.5;
    }
  }
}

export function tokenReviewer(
  client: ApiClient,
  clock: Clock,
  opts: { budget?: ReviewBudgetOptions } = {},
): ReviewToken {
  const budget = new ReviewBudget("TokenReview", clock, opts.budget ?? DEFAULT_REVIEW_BUDGET);
  return (token, { signal }) =>
    budget.run(() =>
      withRetries(clock, signal, async () => {
        const review = await client.request<{ status?: TokenReviewStatus }>({
          method: "POST",
          path: "/apis/authentication.k8s.io/v1/tokenreviews",
          body: {
            apiVersion: "authentication.k8s.io/v1",
            kind: "TokenReview",
            spec: { token },
          },
        }, { signal, timeoutMs: REVIEW_TIMEOUT_MS });
        return review?.status ?? {};
      })
    );
}

export function accessReviewer(
  client: ApiClient,
  clock: Clock,
  opts: { budget?: ReviewBudgetOptions } = {},
): ReviewAccess {
  const budget = new ReviewBudget(
    "SubjectAccessReview",
    clock,
    opts.budget ?? DEFAULT_REVIEW_BUDGET,
  );
  return (spec: SubjectAccessReviewSpec, { signal }) =>
    budget.run(() =>
      withRetries(clock, signal, async () => {
        const review = await client.request<{ status?: SubjectAccessReviewStatus }>({
          method: "POST",
          path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
          body: {
            apiVersion: "authorization.k8s.io/v1",
            kind: "SubjectAccessReview",
            spec,
          },
        }, { signal, timeoutMs: REVIEW_TIMEOUT_MS });
        return review?.status ?? {};
      })
    );
}
