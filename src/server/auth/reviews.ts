/**
 * TokenReview and SubjectAccessReview through the API client: the webhooks behind
 * --authentication-token-webhook and --authorization-mode=Webhook. Only the API-server mode
 * imports this file. Like upstream's webhook clients, a failed review is retried a few times
 * with back-off (500 ms, ×1.5) when the API server is unreachable or busy.
 */
import type { ApiClient } from "../../apiclient/types.ts";
import { ApiError, ApiUnavailableError } from "../../apiclient/types.ts";
import type { Clock } from "../../util/clock.ts";
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

export function tokenReviewer(client: ApiClient, clock: Clock): ReviewToken {
  return (token, { signal }) =>
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
    });
}

export function accessReviewer(client: ApiClient, clock: Clock): ReviewAccess {
  return (spec: SubjectAccessReviewSpec, { signal }) =>
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
    });
}
