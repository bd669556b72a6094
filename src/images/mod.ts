/**
 * Images already on the node and who may use them: the pulled-image records and the
 * credential verification policy (upstream pkg/kubelet/images/pullmanager).
 */
export {
  allowlistPattern,
  AllowlistPatternError,
  type RequireVerification,
  VERIFICATION_POLICIES,
  type VerificationPolicy,
  verificationPolicy,
} from "./_policy.ts";
export type {
  ImagePullCredentials,
  ImagePulledRecord,
  ImagePullSecret,
  ImagePullServiceAccount,
} from "./_records.ts";
export { type PodCredentials, PullManager, type PullManagerDeps } from "./pull_manager.ts";
