/**
 * The node API's certificates: the self-signed serving pair generated once under --cert-dir,
 * and the X.509/PKCS#10 writers the serving-certificate bootstrap (a CSR) builds on.
 */
export {
  ensureSelfSignedFiles,
  generateSelfSignedPair,
  type SelfSignedPair,
  type ServingFiles,
  writeAtomically,
} from "./self_signed.ts";
export {
  type CertificateSpec,
  createCertificate,
  createCertificateRequest,
  generateKeyPair,
  type KeyKind,
  type KeyPair,
  privateKeyPem,
  type Subject,
} from "./_x509.ts";
export { certificateVersion, pem } from "./_der.ts";
