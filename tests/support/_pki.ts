/**
 * A throwaway PKI for a test control plane, made with the openssl command: one CA that signs
 * every serving and client certificate (and, through the controller manager, CSRs), plus the
 * service-account key pair. Private to tests/support.
 */
import { stringify } from "yaml";
import { DevSetupError, hasCommand, run } from "./_exec.ts";

/** A certificate and its private key (PKCS#8 PEM), as file paths. */
export interface CertFiles {
  cert: string;
  key: string;
}

export interface CertSpec {
  /** File name stem under the PKI dir: `admin` → admin.crt, admin.key. */
  name: string;
  commonName: string;
  /** Organisations: Kubernetes reads them as the user's groups. */
  organizations?: string[];
  usage: "server" | "client" | "server+client";
  /** Subject alternative names; IPv4 literals become IP entries, the rest DNS. */
  hosts?: string[];
}

const DAYS = 365;

export class Pki {
  readonly dir: string;
  readonly ca: CertFiles;

  private constructor(dir: string) {
    this.dir = dir;
    this.ca = { cert: `${dir}/ca.crt`, key: `${dir}/ca.key` };
  }

  /** Creates `dir` with a fresh CA in it. */
  static async create(dir: string, opts: { caName?: string } = {}): Promise<Pki> {
    if (!(await hasCommand("openssl"))) {
      throw new DevSetupError("Cannot create the test PKI: the openssl command is not on PATH");
    }
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const pki = new Pki(dir);
    const config = await pki.#config("ca", [
      "basicConstraints = critical,CA:TRUE",
      "keyUsage = critical,digitalSignature,keyEncipherment,keyCertSign",
      "subjectKeyIdentifier = hash",
    ]);
    await openssl([
      "req",
      "-x509",
      "-config",
      config,
      "-extensions",
      "ext",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      pki.ca.key,
      "-subj",
      subject(opts.caName ?? "denolet-test-ca", []),
      "-days",
      String(DAYS * 10),
      "-out",
      pki.ca.cert,
    ]);
    return pki;
  }

  /** A new key and a certificate for it signed by the CA. */
  async issue(spec: CertSpec): Promise<CertFiles> {
    const files = { cert: `${this.dir}/${spec.name}.crt`, key: `${this.dir}/${spec.name}.key` };
    const usages = {
      server: "serverAuth",
      client: "clientAuth",
      "server+client": "serverAuth,clientAuth",
    };
    const ext = [
      "basicConstraints = critical,CA:FALSE",
      "keyUsage = critical,digitalSignature,keyEncipherment",
      `extendedKeyUsage = ${usages[spec.usage]}`,
      "authorityKeyIdentifier = keyid",
    ];
    if (spec.hosts?.length) {
      const sans = spec.hosts.map((h) => /^\d+\.\d+\.\d+\.\d+$/.test(h) ? `IP:${h}` : `DNS:${h}`);
      ext.push(`subjectAltName = ${sans.join(",")}`);
    }
    const config = await this.#config(spec.name, ext);
    await openssl([
      "req",
      "-x509",
      "-config",
      config,
      "-extensions",
      "ext",
      "-CA",
      this.ca.cert,
      "-CAkey",
      this.ca.key,
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      files.key,
      "-subj",
      subject(spec.commonName, spec.organizations ?? []),
      "-days",
      String(DAYS),
      "-out",
      files.cert,
    ]);
    return files;
  }

  /** An RSA key pair for signing and verifying service-account tokens. */
  async serviceAccountKeys(): Promise<{ privateKey: string; publicKey: string }> {
    const privateKey = `${this.dir}/sa.key`;
    const publicKey = `${this.dir}/sa.pub`;
    await openssl([
      "genpkey",
      "-algorithm",
      "RSA",
      "-pkeyopt",
      "rsa_keygen_bits:2048",
      "-out",
      privateKey,
    ]);
    await openssl(["pkey", "-in", privateKey, "-pubout", "-out", publicKey]);
    return { privateKey, publicKey };
  }

  /**
   * Writes a kubeconfig at `path` for `server` that trusts the CA and authenticates with
   * `client`, everything embedded so the file stands alone.
   */
  async writeKubeconfig(
    path: string,
    opts: { server: string; client: CertFiles; user: string },
  ): Promise<string> {
    const b64 = async (file: string) => btoa(await Deno.readTextFile(file));
    const config = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{
        name: "denolet-test",
        cluster: { server: opts.server, "certificate-authority-data": await b64(this.ca.cert) },
      }],
      users: [{
        name: opts.user,
        user: {
          "client-certificate-data": await b64(opts.client.cert),
          "client-key-data": await b64(opts.client.key),
        },
      }],
      contexts: [{ name: "default", context: { cluster: "denolet-test", user: opts.user } }],
      "current-context": "default",
      preferences: {},
    };
    await Deno.writeTextFile(path, stringify(config), { mode: 0o600 });
    return path;
  }

  /** openssl reads its extensions from a config file; ours, so the system's cannot interfere. */
  async #config(name: string, ext: string[]): Promise<string> {
    const path = `${this.dir}/${name}.cnf`;
    const text = ["[req]", "distinguished_name = dn", "[dn]", "[ext]", ...ext, ""].join("\n");
    await Deno.writeTextFile(path, text);
    return path;
  }
}

/** openssl's `-subj` form; Kubernetes names never hold a slash, so no escaping is needed. */
function subject(commonName: string, organizations: string[]): string {
  for (const part of [commonName, ...organizations]) {
    if (/[/\\=+,]/.test(part)) {
      throw new DevSetupError(
        `Cannot issue a certificate for ${JSON.stringify(part)}: bad character`,
      );
    }
  }
  return [...organizations.map((o) => `/O=${o}`), `/CN=${commonName}`].join("");
}

async function openssl(args: string[]): Promise<void> {
  await run("openssl", args);
}
