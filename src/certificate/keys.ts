/**
 * Private keys for certificate requests, as client-go's certificate manager makes them: ECDSA
 * P-256 from WebCrypto, kept as PKCS#8 PEM ("PRIVATE KEY", which Go's tls.X509KeyPair, rustls
 * and OpenSSL all read). A key read back from a file (the bootstrap's pending key) may be any
 * PEM form node:crypto reads; RSA keys sign with PKCS#1 v1.5 and SHA-256, as Go's x509 does.
 */
import { PemError } from "./pem.ts";

export type KeyKind = "ecdsa" | "rsa";

/** A key pair usable with WebCrypto, and the private key as PEM. */
export interface RequestKey {
  kind: KeyKind;
  keys: CryptoKeyPair;
  /** The public key as DER SubjectPublicKeyInfo, what a CSR and a certificate carry. */
  spki: Uint8Array;
  pem: string;
}

const EC: EcKeyImportParams & EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const RSA: RsaHashedImportParams = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };

/** A new ECDSA P-256 key (upstream's generateKeyFunc and keyutil.MakeEllipticPrivateKeyPEM). */
export async function generateRequestKey(): Promise<RequestKey> {
  const keys = await crypto.subtle.generateKey(EC, true, ["sign", "verify"]) as CryptoKeyPair;
  return await describe("ecdsa", keys);
}

/**
 * Reads a PEM private key (PKCS#8, SEC1 "EC PRIVATE KEY" or PKCS#1) of an ECDSA P-256/P-384 or
 * RSA key. Throws PemError for anything else.
 */
export async function importRequestKey(pem: string): Promise<RequestKey> {
  const { createPrivateKey, createPublicKey } = await import("node:crypto");
  let key;
  try {
    key = createPrivateKey(pem);
  } catch (cause) {
    throw new PemError("the private key does not parse", { cause });
  }
  const pkcs8 = new Uint8Array(key.export({ type: "pkcs8", format: "der" }));
  const spki = new Uint8Array(createPublicKey(key).export({ type: "spki", format: "der" }));
  let params: EcKeyImportParams | RsaHashedImportParams;
  let kind: KeyKind;
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const named = curve === "prime256v1" ? "P-256" : curve === "secp384r1" ? "P-384" : undefined;
    if (!named) throw new PemError(`unsupported elliptic curve ${curve}`);
    params = { name: "ECDSA", namedCurve: named };
    kind = "ecdsa";
  } else if (key.asymmetricKeyType === "rsa") {
    params = RSA;
    kind = "rsa";
  } else {
    throw new PemError(`unsupported key type ${key.asymmetricKeyType}`);
  }
  const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, params, true, ["sign"]);
  const publicKey = await crypto.subtle.importKey("spki", spki, params, true, ["verify"]);
  return await describe(kind, { privateKey, publicKey });
}

/** The WebCrypto signature algorithm for a key of `kind`. */
export function signingAlgorithm(kind: KeyKind): EcdsaParams | RsaHashedImportParams {
  return kind === "ecdsa" ? { name: "ECDSA", hash: "SHA-256" } : RSA;
}

async function describe(kind: KeyKind, keys: CryptoKeyPair): Promise<RequestKey> {
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", keys.publicKey));
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  return { kind, keys, spki, pem: toPem("PRIVATE KEY", der) };
}

/** DER bytes as PEM with `label`, 64 characters a line. */
export function toPem(label: string, der: Uint8Array): string {
  let bin = "";
  for (const b of der) bin += String.fromCharCode(b);
  const b64 = btoa(bin).replace(/.{64}/g, "$&\n").replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}
