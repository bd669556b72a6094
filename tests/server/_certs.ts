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

/** A CA made with the openssl CLI, for certificates the project's writer does not make. */
export interface OpensslCA {
  certPem: string;
  /**
   * A client certificate for `subject` (openssl's `/CN=a/O=b` form, attributes in that order).
   * Without `extensions` it is what `openssl x509 -req` makes by default: X.509 v1.
   */
  issue(
    subject: string,
    opts?: { extensions?: string },
  ): Promise<{ certPem: string; keyPem: string }>;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

export async function opensslCA(name = "openssl-ca"): Promise<OpensslCA> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-openssl-ca-" });
  await openssl([
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "2",
    "-subj",
    `/CN=${name}`,
  ], dir);
  let n = 0;
  return {
    certPem: await Deno.readTextFile(`${dir}/ca.crt`),
    async issue(subject, opts = {}) {
      const id = `leaf${++n}`;
      await openssl([
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        `${id}.key`,
        "-out",
        `${id}.csr`,
        "-subj",
        subject,
      ], dir);
      const ext = opts.extensions === undefined ? [] : ["-extfile", `${id}.ext`];
      if (opts.extensions !== undefined) {
        await Deno.writeTextFile(`${dir}/${id}.ext`, opts.extensions);
      }
      await openssl([
        "x509",
        "-req",
        "-in",
        `${id}.csr`,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        `${id}.crt`,
        "-days",
        "1",
        ...ext,
      ], dir);
      return {
        certPem: await Deno.readTextFile(`${dir}/${id}.crt`),
        keyPem: await Deno.readTextFile(`${dir}/${id}.key`),
      };
    },
  };
}
