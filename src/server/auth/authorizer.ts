/**
 * Authorization as the kubelet's --authorization-mode offers it: AlwaysAllow, or Webhook (a
 * SubjectAccessReview to the API server per set of attributes, allowed answers cached for
 * cacheAuthorizedTTL and the others for cacheUnauthorizedTTL; failures are not cached).
 */
import { type Clock, realClock } from "../../util/clock.ts";
import { errorMessage } from "../../util/log.ts";
import { TtlCache } from "./_ttl_cache.ts";
import { type Attributes, AuthorizationError, type Authorizer, type Decision } from "./types.ts";

export const alwaysAllow: Authorizer = {
  authorize: () => Promise.resolve({ allowed: true }),
};

/** The spec of a SubjectAccessReview (authorization.k8s.io/v1). */
export interface SubjectAccessReviewSpec {
  resourceAttributes: {
    namespace: string;
    verb: string;
    group: string;
    version: string;
    resource: string;
    subresource: string;
    name: string;
  };
  user: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface SubjectAccessReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** Asks the API server. Throws when no answer could be had. Honours `signal`. */
export type ReviewAccess = (
  spec: SubjectAccessReviewSpec,
  opts: { signal?: AbortSignal },
) => Promise<SubjectAccessReviewStatus>;

export interface WebhookAuthorizerOptions {
  review: ReviewAccess;
  /** authorization.webhook.cacheAuthorizedTTL (5m). */
  allowedTTLMs: number;
  /** authorization.webhook.cacheUnauthorizedTTL (30s). */
  deniedTTLMs: number;
  clock?: Clock;
}

export function subjectAccessReviewSpec(a: Attributes): SubjectAccessReviewSpec {
  return {
    resourceAttributes: {
      namespace: "",
      verb: a.verb,
      group: "",
      version: a.apiVersion,
      resource: a.resource,
      subresource: a.subresource,
      name: a.name,
    },
    user: a.user.name,
    ...(a.user.uid ? { uid: a.user.uid } : {}),
    groups: a.user.groups,
    ...(a.user.extra ? { extra: a.user.extra } : {}),
  };
}

export function webhookAuthorizer(opts: WebhookAuthorizerOptions): Authorizer {
  const cache = new TtlCache<Decision>(opts.clock ?? realClock);
  return {
    async authorize(attrs, o = {}) {
      const spec = subjectAccessReviewSpec(attrs);
      const key = JSON.stringify(spec);
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      let status: SubjectAccessReviewStatus;
      try {
        status = await opts.review(spec, { signal: o.signal });
      } catch (err) {
        throw new AuthorizationError(`SubjectAccessReview failed: ${errorMessage(err)}`, {
          cause: err,
        });
      }
      // Upstream: allowed, explicitly denied, or no opinion; only "allowed" lets a request in.
      const decision: Decision = {
        allowed: status.allowed === true && status.denied !== true,
        reason: status.reason || status.evaluationError || undefined,
      };
      cache.set(key, decision, decision.allowed ? opts.allowedTTLMs : opts.deniedTTLMs);
      return decision;
    },
  };
}
