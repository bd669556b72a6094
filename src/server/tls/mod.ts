/**
 * The node API's certificates: the self-signed serving pair generated once under --cert-dir and
 * the X.509 writer it is made with. The serving-certificate bootstrap (a CSR) is in
 * serving_cert.ts, loaded only with serverTLSBootstrap.
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
  generateKeyPair,
  type KeyKind,
  type KeyPair,
  privateKeyPem,
  type Subject,
} from "./_x509.ts";
export { certificateVersion, pem } from "./_der.ts";
