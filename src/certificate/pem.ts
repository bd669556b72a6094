/**
 * Reading PEM certificates and keys: the blocks of a PEM text, and a certificate's validity,
 * subject and names through node:crypto's X509Certificate (Deno's own parser, native code: no
 * library is loaded for reading). node:crypto is imported on use, not at the top: a bundle
 * evaluates every static node: import at start.
 */
import { DenoletError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";

/** What the certificate manager needs to know of a certificate. */
export interface CertificateInfo {
  notBeforeMs: number;
  notAfterMs: number;
  /** The subject's CN (the last one, as Go's pkix.Name reads several). */
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
}

/** A certificate chain (leaf first) with its private key, both PEM, and the leaf read. */
export interface KeyPair {
  certPem: string;
  keyPem: string;
  leaf: CertificateInfo;
}

/** The PEM, key or certificate, cannot be used. */
export class PemError extends DenoletError {}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** The PEM blocks of `text` with their labels, in order; each ends with a newline. */
export function pemBlocks(text: string): { label: string; pem: string }[] {
  return [...text.matchAll(BLOCK)].map((m) => ({ label: m[1], pem: `${m[0]}\n` }));
}

/** The CERTIFICATE blocks of `text`, joined (leaf first, as they came). */
export function certificatesPem(text: string): string {
  return pemBlocks(text).filter((b) => b.label === "CERTIFICATE").map((b) => b.pem).join("");
}

/** The first private key block of `text` (PKCS#8, SEC1 or PKCS#1), or undefined. */
export function privateKeyPemOf(text: string): string | undefined {
  return pemBlocks(text).find((b) => /^(EC |RSA )?PRIVATE KEY$/.test(b.label))?.pem;
}

/** Reads every certificate of `text`. Throws PemError when one does not parse or there is none. */
export async function parseCertificates(text: string): Promise<CertificateInfo[]> {
  const { X509Certificate } = await import("node:crypto");
  const blocks = pemBlocks(text).filter((b) => b.label === "CERTIFICATE");
  if (blocks.length === 0) throw new PemError("no certificate found");
  return blocks.map((b) => {
    let c: InstanceType<typeof X509Certificate>;
    try {
      c = new X509Certificate(b.pem);
    } catch (cause) {
      throw new PemError(`a certificate does not parse: ${errorMessage(cause)}`, { cause });
    }
    const subject = c.subject.split("\n");
    const values = (key: string) =>
      subject.filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
    const sans = (c.subjectAltName ?? "").split(/,\s*/).filter((s) => s !== "");
    return {
      notBeforeMs: Date.parse(c.validFrom),
      notAfterMs: Date.parse(c.validTo),
      commonName: values("CN").at(-1) ?? "",
      organizations: values("O"),
      dnsNames: sans.filter((s) => s.startsWith("DNS:")).map((s) => s.slice(4)),
      ipAddresses: sans.filter((s) => s.startsWith("IP Address:")).map((s) =>
        normalizeIP(s.slice(11))
      ),
    };
  });
}

/**
 * Reads a certificate chain and its key, checking the key belongs to the leaf (Go's
 * tls.X509KeyPair). Throws PemError saying which part is wrong.
 */
export async function loadKeyPair(certText: string, keyText: string): Promise<KeyPair> {
  const certPem = certificatesPem(certText);
  const keyPem = privateKeyPemOf(keyText);
  if (certPem === "") throw new PemError("no certificate found");
  if (keyPem === undefined) throw new PemError("no private key found");
  const [leaf] = await parseCertificates(certPem);
  const { X509Certificate, createPrivateKey } = await import("node:crypto");
  let matches: boolean;
  try {
    matches = new X509Certificate(pemBlocks(certPem)[0].pem).checkPrivateKey(
      createPrivateKey(keyPem),
    );
  } catch (cause) {
    throw new PemError(`the private key does not parse: ${errorMessage(cause)}`, { cause });
  }
  if (!matches) throw new PemError("the private key does not match the certificate");
  return { certPem, keyPem, leaf };
}

/** IPv6 as Go prints it (lower case, zeros compressed), so sets of addresses compare. */
export function normalizeIP(ip: string): string {
  if (!ip.includes(":")) return ip;
  const groups = expandIPv6(ip.toLowerCase()).map((g) => g.replace(/^0+(?=.)/, ""));
  // The longest run of two or more zero groups becomes "::" (RFC 5952).
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.at < 0) return groups.join(":");
  return `${groups.slice(0, best.at).join(":")}::${groups.slice(best.at + best.len).join(":")}`;
}

function expandIPv6(ip: string): string[] {
  const [head, tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  const h = head ? head.split(":") : [];
  if (tail === undefined) return h;
  const t = tail ? tail.split(":") : [];
  return [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
}
