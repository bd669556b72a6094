/** A pod admission verdict, as upstream's PodAdmitResult: a refusal carries a reason and message. */
export interface AdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}
