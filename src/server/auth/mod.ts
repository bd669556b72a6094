/**
 * Authentication and authorization of the node API. The webhook clients (TokenReview,
 * SubjectAccessReview) live in `reviews.ts`, imported only by the API-server mode.
 */
export {
  ANONYMOUS_USER,
  AUTHENTICATED_GROUP,
  type AuthenticatorOptions,
  createAuthenticator,
  type ReviewToken,
  tokenAuthenticator,
  type TokenReviewStatus,
  UNAUTHENTICATED_GROUP,
  x509Authenticator,
} from "./authenticator.ts";
export {
  alwaysAllow,
  type ReviewAccess,
  type SubjectAccessReviewSpec,
  type SubjectAccessReviewStatus,
  webhookAuthorizer,
} from "./authorizer.ts";
export { isSubpath, requestAttributes, subresourcesFor } from "./attributes.ts";
export {
  type Attributes,
  AuthenticationError,
  type AuthenticatorFn,
  type AuthnRequest,
  AuthorizationError,
  type Authorizer,
  type Decision,
  type PeerCertificate,
  ReviewBudgetError,
  type UserInfo,
} from "./types.ts";
