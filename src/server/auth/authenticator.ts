/**
 * Authentication as upstream's delegating authenticator builds it for the kubelet: client
 * certificates (user = CN, groups = O) when a client CA is configured, bearer tokens through
 * TokenReview when the token webhook is on (also as a WebSocket subprotocol), every
 * authenticated user in `system:authenticated`, and anonymous requests as `system:anonymous`
 * only when nothing else applied: a request that tried a method and failed is refused (401),
 * never downgraded to anonymous.
 */
import { type Clock, realClock } from "../../util/clock.ts";
import { errorMessage } from "../../util/log.ts";
import { TtlCache } from "./_ttl_cache.ts";
import {
  AuthenticationError,
  type AuthenticatorFn,
  type PeerCertificate,
  type UserInfo,
} from "./types.ts";
import { sha256Hex } from "../../util/digest.ts";

export const ANONYMOUS_USER = "system:anonymous";
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";
export const AUTHENTICATED_GROUP = "system:authenticated";

/** The status of a TokenReview (authentication.k8s.io/v1). */
export interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

/**
 * Asks the API server about a token. Throws when no answer could be had (that is not cached, so
 * the next request asks again). Honours `signal`.
 */
export type ReviewToken = (
  token: string,
  opts: { signal?: AbortSignal },
) => Promise<TokenReviewStatus>;

/** The x509 authenticator: the TLS stack has verified the chain against the client CA. */
export function x509Authenticator(): AuthenticatorFn {
  return (req) => Promise.resolve(userFromCertificate(req.peer));
}

function userFromCertificate(peer: PeerCertificate | undefined): UserInfo | undefined {
  if (peer === undefined) return undefined;
  if (!peer.verified) {
    throw new AuthenticationError(
      `verifying certificate for ${JSON.stringify(peer.commonName)} failed: ` +
        (peer.error ?? "not signed by a trusted client CA"),
    );
  }
  // Upstream's CommonNameUserConversion: no CN is "not this method", not a failure.
  if (peer.commonName === "") return undefined;
  return { name: peer.commonName, groups: [...peer.organizations] };
}

export interface TokenAuthenticatorOptions {
  review: ReviewToken;
  /** authentication.webhook.cacheTTL: answers (authenticated or not) are kept this long. */
  cacheTTLMs: number;
  clock?: Clock;
}

/** Bearer tokens (Authorization header, or the WebSocket subprotocol) through TokenReview. */
export function tokenAuthenticator(opts: TokenAuthenticatorOptions): AuthenticatorFn {
  const clock = opts.clock ?? realClock;
  const cache = new TtlCache<TokenReviewStatus>(clock);
  return async (req) => {
    const token = bearerToken(req.headers) ?? webSocketToken(req.headers);
    if (token === undefined) return undefined;
    // Cache by a digest: the cache must not keep usable credentials in memory longer than needed.
    const key = await sha256Hex(token);
    let status = cache.get(key);
    if (status === undefined) {
      try {
        status = await opts.review(token, { signal: req.signal });
      } catch (err) {
        throw new AuthenticationError(`cannot review the bearer token: ${errorMessage(err)}`, {
          cause: err,
        });
      }
      cache.set(key, status, opts.cacheTTLMs);
    }
    if (!status.authenticated || !status.user?.username) {
      throw new AuthenticationError(
        status.error ? `invalid bearer token: ${status.error}` : "invalid bearer token",
      );
    }
    return {
      name: status.user.username,
      uid: status.user.uid,
      groups: [...status.user.groups ?? []],
      extra: status.user.extra,
    };
  };
}

/** `Authorization: Bearer <token>` (scheme case-insensitive, as upstream). */
function bearerToken(headers: Headers): string | undefined {
  const parts = (headers.get("authorization") ?? "").trim().split(" ");
  if (parts.length < 2 || parts[0].toLowerCase() !== "bearer" || parts[1] === "") return undefined;
  return parts[1];
}

const WS_TOKEN_PREFIX = "base64url.bearer.authorization.k8s.io.";

/** Browsers cannot set headers on WebSockets; upstream takes the token from a subprotocol. */
function webSocketToken(headers: Headers): string | undefined {
  if ((headers.get("upgrade") ?? "").toLowerCase() !== "websocket") return undefined;
  for (const proto of (headers.get("sec-websocket-protocol") ?? "").split(",")) {
    const p = proto.trim();
    if (!p.startsWith(WS_TOKEN_PREFIX)) continue;
    const b64 = p.slice(WS_TOKEN_PREFIX.length).replace(/-/g, "+").replace(/_/g, "/");
    try {
      const token = new TextDecoder("utf-8", { fatal: true }).decode(
        Uint8Array.from(
          atob(b64.padEnd(Math.ceil(b64.length / 4) * 4, "=")),
          (c) => c.charCodeAt(0),
        ),
      );
      if (token !== "") return token;
    } catch (err) {
      throw new AuthenticationError(`invalid bearer token subprotocol: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }
  return undefined;
}

export interface AuthenticatorOptions {
  /** The methods in order (x509 before tokens, as upstream). */
  methods: AuthenticatorFn[];
  /** --anonymous-auth. */
  anonymous: boolean;
}

/**
 * The node API's authenticator. Resolves the user, or undefined for 401 (no method applied
 * and anonymous is off); throws AuthenticationError (401 too, with a reason to log) when a
 * method failed.
 */
export function createAuthenticator(opts: AuthenticatorOptions): AuthenticatorFn {
  if (opts.methods.length === 0 && !opts.anonymous) {
    throw new AuthenticationError(
      "No authentication method configured: set --client-ca-file, " +
        "--authentication-token-webhook or --anonymous-auth",
    );
  }
  return async (req) => {
    const failures: string[] = [];
    for (const method of opts.methods) {
      try {
        const user = await method(req);
        if (user !== undefined) return withAuthenticatedGroup(user);
      } catch (err) {
        if (!(err instanceof AuthenticationError)) throw err;
        // Upstream's union tries the other methods before giving up.
        failures.push(err.message);
      }
    }
    if (failures.length > 0) throw new AuthenticationError(failures.join("; "));
    if (opts.anonymous) return { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };
    return undefined;
  };
}

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER) return user;
  if (user.groups.some((g) => g === AUTHENTICATED_GROUP || g === UNAUTHENTICATED_GROUP)) {
    return user;
  }
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
