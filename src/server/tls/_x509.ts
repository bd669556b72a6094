/**
 * X.509 certificates built with WebCrypto keys and the DER writer: what client-go's certutil
 * does for the kubelet (a self-signed serving pair) and `denolet install` for its local
 * administrator, and the PKCS#10 requests of certificate rotation (src/certificate). Written
 * here rather than with an X.509 library: one (@peculiar/x509) cost 6–9 MB of RSS for good once
 * loaded (tests/bench/join_footprint.ts), and these three documents need little of it.
 */
import { isIP } from "node:net";
import {
  bitString,
  boolean,
  type Der,
  explicit,
  implicitConstructed,
  implicitPrimitive,
  namedBits,
  nullValue,
  objectId,
  octetString,
  pem,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from "./_der.ts";

const OID = {
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  sha256WithRSA: "1.2.840.113549.1.1.11",
  ecdsaWithSHA256: "1.2.840.10045.4.3.2",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  extensionRequest: "1.2.840.113549.1.9.14",
  subjectAltName: "2.5.29.17",
  subjectKeyIdentifier: "2.5.29.14",
  authorityKeyIdentifier: "2.5.29.35",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

/** RFC 5280 key usage bit numbers. */
const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5 };

export interface Subject {
  commonName: string;
  organizations?: readonly string[];
}

export type KeyKind = "rsa" | "ecdsa";

/** A generated key pair with its public key as DER SubjectPublicKeyInfo. */
export interface KeyPair {
  kind: KeyKind;
  privateKey: CryptoKey;
  spki: Der;
}

const RSA_PARAMS: RsaHashedKeyGenParams = {
  name: "RSASSA-PKCS1-v1_5",
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: "SHA-256",
};
const EC_PARAMS: EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };

/** RSA 2048 (what certutil uses for self-signed pairs) or ECDSA P-256 (the CSR key). */
export async function generateKeyPair(kind: KeyKind): Promise<KeyPair> {
  const pair = await crypto.subtle.generateKey(
    kind === "rsa" ? RSA_PARAMS : EC_PARAMS,
    true,
    ["sign", "verify"],
  ) as CryptoKeyPair;
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  return { kind, privateKey: pair.privateKey, spki };
}

/** The private key as PKCS#8 PEM ("PRIVATE KEY"), which node:tls and Go both read. */
export async function privateKeyPem(key: KeyPair): Promise<string> {
  return pem("PRIVATE KEY", new Uint8Array(await crypto.subtle.exportKey("pkcs8", key.privateKey)));
}

function name(s: Subject): Der {
  const rdns = [
    ...(s.organizations ?? []).map((o) => set(sequence(objectId(OID.organization), utf8String(o)))),
    set(sequence(objectId(OID.commonName), utf8String(s.commonName))),
  ];
  return sequence(...rdns);
}

function algorithm(kind: KeyKind): Der {
  return kind === "rsa"
    ? sequence(objectId(OID.sha256WithRSA), nullValue())
    : sequence(objectId(OID.ecdsaWithSHA256));
}

async function sign(key: KeyPair, data: Der): Promise<Der> {
  const params = key.kind === "rsa"
    ? { name: "RSASSA-PKCS1-v1_5" }
    : { name: "ECDSA", hash: "SHA-256" };
  const raw = new Uint8Array(await crypto.subtle.sign(params, key.privateKey, data));
  if (key.kind === "rsa") return raw;
  // WebCrypto gives ECDSA signatures as r || s; X.509 wants SEQUENCE { INTEGER r, INTEGER s }.
  const half = raw.length / 2;
  return sequence(unsignedInteger(raw.subarray(0, half)), unsignedInteger(raw.subarray(half)));
}

function extension(oid: string, critical: boolean, value: Der): Der {
  return sequence(objectId(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

/** subjectAltName entries: IP literals become iPAddress, the rest dNSName. */
export function subjectAltNames(hosts: readonly string[]): Der {
  return sequence(...hosts.map((h) => {
    const family = isIP(h);
    if (family === 0) return implicitPrimitive(2, new TextEncoder().encode(h));
    return implicitPrimitive(7, ipBytes(h, family));
  }));
}

function ipBytes(ip: string, family: number): Uint8Array {
  if (family === 4) return new Uint8Array(ip.split(".").map(Number));
  const [head, tail = ""] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = parseInt(g, 16);
    out[2 * i] = v >> 8;
    out[2 * i + 1] = v & 0xff;
  });
  return out;
}

async function keyId(spki: Der): Promise<Der> {
  // RFC 5280 4.2.1.2 method 1 hashes the subjectPublicKey bits; hashing the whole SPKI, as
  // several CAs do, identifies the key as well and needs no parser.
  return new Uint8Array(await crypto.subtle.digest("SHA-1", spki)).subarray(0, 20);
}

export interface CertificateSpec {
  subject: Subject;
  /** The subject's public key. */
  publicKey: KeyPair;
  /** Who signs: the subject itself (self-signed) or an issuer and its key. */
  issuer: { subject: Subject; key: KeyPair; spki: Der };
  notBeforeMs: number;
  notAfterMs: number;
  isCA: boolean;
  /** Extended key usages; a CA gets none. */
  usages?: readonly ("serverAuth" | "clientAuth")[];
  /** subjectAltName DNS names and IP addresses. */
  hosts?: readonly string[];
}

/** A signed X.509 v3 certificate as DER. */
export async function createCertificate(spec: CertificateSpec): Promise<Der> {
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] &= 0x7f;
  const keyUsage = spec.isCA
    ? [KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment, KEY_USAGE.keyCertSign]
    : [KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment];
  const extensions = [
    extension(OID.keyUsage, true, namedBits(keyUsage)),
    ...(spec.usages?.length
      ? [extension(
        OID.extKeyUsage,
        false,
        sequence(...spec.usages.map((u) => objectId(OID[u]))),
      )]
      : []),
    extension(OID.basicConstraints, true, spec.isCA ? sequence(boolean(true)) : sequence()),
    extension(OID.subjectKeyIdentifier, false, octetString(await keyId(spec.publicKey.spki))),
    extension(
      OID.authorityKeyIdentifier,
      false,
      sequence(implicitPrimitive(0, await keyId(spec.issuer.spki))),
    ),
    ...(spec.hosts?.length
      ? [extension(OID.subjectAltName, false, subjectAltNames(spec.hosts))]
      : []),
  ];
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(serial),
    algorithm(spec.issuer.key.kind),
    name(spec.issuer.subject),
    sequence(time(spec.notBeforeMs), time(spec.notAfterMs)),
    name(spec.subject),
    spec.publicKey.spki,
    explicit(3, sequence(...extensions)),
  );
  const signature = await sign(spec.issuer.key, tbs);
  return sequence(tbs, algorithm(spec.issuer.key.kind), bitString(signature));
}

/**
 * A PKCS#10 certificate request as DER, as Go's x509.CreateCertificateRequest writes the
 * kubelet's (certutil.MakeCSRFromTemplate): version 0, the subject (O then CN), the key, and
 * the subjectAltName in an extensionRequest attribute when there are names; signed with the key.
 */
export async function createCertificateRequest(
  subject: Subject,
  key: KeyPair,
  hosts: readonly string[] = [],
): Promise<Der> {
  const attributes = hosts.length
    ? sequence(
      objectId(OID.extensionRequest),
      set(sequence(extension(OID.subjectAltName, false, subjectAltNames(hosts)))),
    )
    : new Uint8Array() as Der;
  const info = sequence(
    smallInteger(0),
    name(subject),
    key.spki,
    implicitConstructed(0, attributes),
  );
  return sequence(info, algorithm(key.kind), bitString(await sign(key, info)));
}
