/** Who is asking the node API, and what they may do: the authentication and authorization seams. */
import { DenoletError } from "../../util/errors.ts";

/** A request used an authentication method and failed it (401, whatever else is enabled). */
export class AuthenticationError extends DenoletError {}

/** The authorizer could not decide (the API server unreachable, a bad answer): 500. */
export class AuthorizationError extends DenoletError {}

/** A review refused by its own budget (a flood of them): the caller may retry. */
export class ReviewBudgetError extends DenoletError {}

/** An authenticated (or anonymous) user, as Kubernetes' user.Info. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** What the TLS layer learned about the client's certificate, when it presented one. */
export interface PeerCertificate {
  /** The chain verified against the client CA bundle, for client authentication, and in date. */
  verified: boolean;
  /** Why it did not verify (the TLS stack's code), when `verified` is false. */
  error?: string;
  commonName: string;
  organizations: string[];
}

/** The parts of a request authentication looks at. */
export interface AuthnRequest {
  headers: Headers;
  peer?: PeerCertificate;
  signal?: AbortSignal;
}

/**
 * One way of telling who sent a request. Resolves undefined when the request does not use this
 * method (no certificate, no bearer token); throws `AuthenticationError` when it does but fails
 * (an untrusted certificate, a rejected token), which ends authentication with 401. May block on
 * the API server (TokenReview); honours `signal`.
 */
export type AuthenticatorFn = (req: AuthnRequest) => Promise<UserInfo | undefined>;

/** The request attributes a SubjectAccessReview is about (always resource `nodes`). */
export interface Attributes {
  user: UserInfo;
  verb: string;
  resource: "nodes";
  subresource: string;
  /** The node name. */
  name: string;
  apiVersion: "v1";
  path: string;
}

export interface Decision {
  allowed: boolean;
  /** The authorizer's reason, logged (never sent to the client, as upstream). */
  reason?: string;
}

/**
 * Decides one set of attributes. May block on the API server (SubjectAccessReview) and honours
 * `signal`; throws `AuthorizationError` when no decision could be had (500 to the client).
 */
export interface Authorizer {
  authorize(attrs: Attributes, opts?: { signal?: AbortSignal }): Promise<Decision>;
}
