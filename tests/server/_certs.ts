/** Certificates for the TLS tests: a CA and leaf certificates signed by it, as PEM. */
import {
  createCertificate,
  generateKeyPair,
  pem,
  privateKeyPem,
} from "../../src/server/tls/mod.ts";

export interface TestCA {
  certPem: string;
  issue(opts: {
    commonName: string;
    organizations?: string[];
    usages: ("serverAuth" | "clientAuth")[];
    hosts?: string[];
    notAfterMs?: number;
  }): Promise<{ certPem: string; keyPem: string }>;
}

export async function testCA(name = "test-ca"): Promise<TestCA> {
  const key = await generateKeyPair("ecdsa");
  const subject = { commonName: name };
  const now = Date.now();
  const issuer = { subject, key, spki: key.spki };
  const ca = await createCertificate({
    subject,
    publicKey: key,
    issuer,
    notBeforeMs: now - 3_600_000,
    notAfterMs: now + 86_400_000,
    isCA: true,
  });
  return {
    certPem: pem("CERTIFICATE", ca),
    async issue(o) {
      const leafKey = await generateKeyPair("ecdsa");
      const cert = await createCertificate({
        subject: { commonName: o.commonName, organizations: o.organizations },
        publicKey: leafKey,
        issuer,
        notBeforeMs: now - 3_600_000,
        notAfterMs: o.notAfterMs ?? now + 86_400_000,
        isCA: false,
        usages: o.usages,
        hosts: o.hosts,
      });
      return { certPem: pem("CERTIFICATE", cert), keyPem: await privateKeyPem(leafKey) };
    },
  };
}
