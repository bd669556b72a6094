/**
 * The kubelet's certificates from the cluster (upstream pkg/kubelet/certificate and client-go's
 * util/certificate): TLS bootstrapping of the client certificate, the certificate manager that
 * rotates the client and serving certificates through CertificateSigningRequests, and the file
 * store they are kept in. API-server mode only: imported with the cluster mode.
 */
export {
  BootstrapError,
  CLIENT_PREFIX,
  digestedName,
  isClientConfigStillValid,
  loadClientCert,
  nodeClientTemplate,
  writeKubeconfigFromBootstrap,
} from "./bootstrap.ts";
export {
  CERTIFICATE_WAIT_MS,
  CertificateManager,
  type CertificateManagerOptions,
} from "./manager.ts";
export {
  type CertificateInfo,
  type KeyPair,
  loadKeyPair,
  normalizeIP,
  parseCertificates,
  PemError,
} from "./pem.ts";
export { generateRequestKey, importRequestKey, type RequestKey } from "./keys.ts";
export {
  type CertificateTemplate,
  createCsr,
  CsrCreateError,
  CsrRefusedError,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  KUBELET_SERVING_SIGNER,
  kubeletClientUsages,
  kubeletServingUsages,
  makeCsrPem,
  waitForCertificate,
} from "./request.ts";
export { CertificateFileStore, CertificateStoreError } from "./store.ts";
