/**
 * The serving certificate when none is configured: as upstream's InitializeTLS, a pair is
 * generated once as `<certDir>/kubelet.crt` and `kubelet.key` and reused on every later start.
 * Like client-go's GenerateSelfSignedCertKey it is a one-year certificate signed by its own
 * one-year CA (`<host>-ca@<unix time>`), the CA after the leaf in the certificate file, valid
 * from an hour ago against clock skew; the SANs are the host name and the node's IPs. The keys
 * are ECDSA P-256, as the kubelet's certificate manager makes them, not client-go's RSA 2048:
 * generating two RSA keys took 0.1-1.5 s of a fresh node's start, before the node API listened
 * and the Node was registered (issue 31); P-256 takes milliseconds. `keyKind` "rsa" is for
 * TLS 1.2 cipher suites that name RSA certificates alone.
 */
import { posix } from "node:path";
import { DenoletError } from "../../util/errors.ts";
import { errorMessage } from "../../util/log.ts";
import { pem } from "./_der.ts";
import { createCertificate, generateKeyPair, type KeyKind, privateKeyPem } from "./_x509.ts";

const HOUR_MS = 3_600_000;
const YEAR_MS = 365 * 24 * HOUR_MS;

export interface ServingFiles {
  certFile: string;
  keyFile: string;
}

/** A generated PEM pair, before it is written anywhere. */
export interface SelfSignedPair {
  /** Leaf certificate, then its CA. */
  certPem: string;
  keyPem: string;
}

/** Builds a self-signed pair for `host` (the node name) with `ips` as extra SANs. */
export async function generateSelfSignedPair(
  host: string,
  opts: { ips?: readonly string[]; nowMs: number; keyKind?: KeyKind },
): Promise<SelfSignedPair> {
  const from = opts.nowMs - HOUR_MS;
  const to = from + YEAR_MS;
  const stamp = Math.floor(opts.nowMs / 1000);
  const kind = opts.keyKind ?? "ecdsa";
  const [caKey, key] = await Promise.all([generateKeyPair(kind), generateKeyPair(kind)]);
  const caSubject = { commonName: `${host}-ca@${stamp}` };
  const ca = await createCertificate({
    subject: caSubject,
    publicKey: caKey,
    issuer: { subject: caSubject, key: caKey, spki: caKey.spki },
    notBeforeMs: from,
    notAfterMs: to,
    isCA: true,
  });
  const hosts = [host, ...(opts.ips ?? []).filter((ip) => ip !== "" && ip !== host)];
  const leaf = await createCertificate({
    subject: { commonName: `${host}@${stamp}` },
    publicKey: key,
    issuer: { subject: caSubject, key: caKey, spki: caKey.spki },
    notBeforeMs: from,
    notAfterMs: to,
    isCA: false,
    usages: ["serverAuth"],
    hosts,
  });
  return {
    certPem: pem("CERTIFICATE", leaf) + pem("CERTIFICATE", ca),
    keyPem: await privateKeyPem(key),
  };
}

/**
 * Returns `<certDir>/kubelet.crt` and `kubelet.key`, generating them first unless both can be
 * read. One without the other is an error (upstream's CanReadCertAndKey), so a half-deleted pair
 * is never silently replaced. Throws DenoletError naming the path that failed.
 */
export async function ensureSelfSignedFiles(
  certDir: string,
  opts: { host: string; ips?: readonly string[]; nowMs: number; keyKind?: KeyKind },
): Promise<ServingFiles & { generated: boolean }> {
  const certFile = posix.join(certDir, "kubelet.crt");
  const keyFile = posix.join(certDir, "kubelet.key");
  const [haveCert, haveKey] = await Promise.all([readable(certFile), readable(keyFile)]);
  if (haveCert && haveKey) return { certFile, keyFile, generated: false };
  if (haveCert !== haveKey) {
    const [present, missing] = haveCert ? [certFile, keyFile] : [keyFile, certFile];
    throw new DenoletError(`Serving certificate ${present} can be read, but ${missing} cannot`);
  }
  const pair = await generateSelfSignedPair(opts.host, opts);
  try {
    await Deno.mkdir(certDir, { recursive: true, mode: 0o755 });
    await writeAtomically(keyFile, pair.keyPem, 0o600);
    await writeAtomically(certFile, pair.certPem, 0o644);
  } catch (err) {
    throw new DenoletError(
      `Cannot write the self-signed serving certificate under ${certDir}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  return { certFile, keyFile, generated: true };
}

async function readable(path: string): Promise<boolean> {
  try {
    const file = await Deno.open(path, { read: true });
    file.close();
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw new DenoletError(`Cannot read ${path}: ${errorMessage(err)}`, { cause: err });
  }
}

/** Write to a temp name and rename, so a crash never leaves half a key behind. */
export async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.writeTextFile(tmp, text, { mode });
  await Deno.chmod(tmp, mode);
  await Deno.rename(tmp, path);
}
