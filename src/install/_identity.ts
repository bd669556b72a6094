/**
 * The local administrator of a standalone node: with no API server to vouch for callers, the
 * installed node API accepts only client certificates from a CA made at install time. The CA
 * signs one certificate, `denolet-admin`, and its key is thrown away: nothing else can ever be
 * issued under it. Certificate and key go to root-only files (`LAYOUT.pkiDir`); an operator who
 * wants other users adds their own CA to the bundle.
 */
import { createCertificate, generateKeyPair, pem, privateKeyPem } from "../server/tls/mod.ts";

const HOUR_MS = 3_600_000;
/** Ten years: the only way into the node API must not lapse on a box nobody visits. */
const VALID_MS = 10 * 365 * 24 * HOUR_MS;

export const ADMIN_USER = "denolet-admin";

/** What a standalone install writes under `LAYOUT.pkiDir`, as PEM. */
export interface LocalIdentity {
  /** The client CA bundle the node API verifies against. */
  caPem: string;
  /** The administrator's client certificate and key. */
  certPem: string;
  keyPem: string;
}

export async function createLocalIdentity(nowMs: number): Promise<LocalIdentity> {
  const from = nowMs - HOUR_MS;
  const [caKey, key] = await Promise.all([generateKeyPair("ecdsa"), generateKeyPair("ecdsa")]);
  const caSubject = { commonName: `denolet-local-ca@${Math.floor(nowMs / 1000)}` };
  const issuer = { subject: caSubject, key: caKey, spki: caKey.spki };
  const ca = await createCertificate({
    subject: caSubject,
    publicKey: caKey,
    issuer,
    notBeforeMs: from,
    notAfterMs: from + VALID_MS,
    isCA: true,
  });
  const admin = await createCertificate({
    subject: { commonName: ADMIN_USER },
    publicKey: key,
    issuer,
    notBeforeMs: from,
    notAfterMs: from + VALID_MS,
    isCA: false,
    usages: ["clientAuth"],
  });
  return {
    caPem: pem("CERTIFICATE", ca),
    certPem: pem("CERTIFICATE", admin),
    keyPem: await privateKeyPem(key),
  };
}
