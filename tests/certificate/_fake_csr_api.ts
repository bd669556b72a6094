/**
 * An API server that holds CertificateSigningRequests, for the certificate tests, and a CA that
 * signs them (with @peculiar/x509, so a test chooses any validity).
 */
import type {
  ApiClient,
  ApiRequest,
  RequestOptions,
  WatchEvent,
  WatchOptions,
} from "../../src/apiclient/types.ts";
import { ApiError } from "../../src/apiclient/types.ts";
import type { Csr } from "../../src/certificate/request.ts";
import { x509Library } from "./_x509_lib.ts";

export interface FakeCsrApi {
  client: ApiClient;
  /** Every CSR created, in order. */
  created: Csr[];
  /** Resolves with the next CSR created. */
  nextCreated(): Promise<Csr>;
  approve(name: string, certPem: string): void;
  deny(name: string, reason: string, message: string): void;
}

export function fakeCsrApi(): FakeCsrApi {
  const csrs = new Map<string, Csr>();
  const created: Csr[] = [];
  let uid = 0;
  let rv = 0;
  const waiters: Array<(c: Csr) => void> = [];
  const watchers = new Set<(ev: WatchEvent<Csr>) => void>();
  // Every event, so a watch from a resourceVersion sees what happened since (as the API's).
  const history: WatchEvent<Csr>[] = [];
  const emit = (type: "ADDED" | "MODIFIED", csr: Csr) => {
    csr.metadata!.resourceVersion = String(++rv);
    const ev = { type, object: structuredClone(csr) };
    history.push(ev);
    for (const w of watchers) w(ev);
  };
  const client: ApiClient = {
    server: "https://fake",
    request<T>(req: ApiRequest, _o?: RequestOptions): Promise<T> {
      if (req.method === "POST") {
        const body = structuredClone(req.body) as Csr & { metadata: { name?: string } };
        const name = body.metadata.name ?? `csr-${created.length + 1}`;
        if (csrs.has(name)) {
          return Promise.reject(new ApiError(409, "AlreadyExists", `${name} already exists`));
        }
        body.metadata = { name, uid: `uid-${++uid}` };
        csrs.set(name, body);
        created.push(body);
        emit("ADDED", body);
        waiters.splice(0).forEach((w) => w(body));
        return Promise.resolve(structuredClone(body) as T);
      }
      if (req.path.endsWith("/certificatesigningrequests")) {
        const sel = String(req.query?.fieldSelector ?? "").replace("metadata.name=", "");
        const items = [...csrs.values()].filter((c) => !sel || c.metadata?.name === sel);
        return Promise.resolve({ metadata: { resourceVersion: String(rv) }, items } as T);
      }
      const found = csrs.get(req.path.split("/").at(-1)!);
      if (!found) return Promise.reject(new ApiError(404, "NotFound", "not found"));
      return Promise.resolve(structuredClone(found) as T);
    },
    async *watch<T>(_path: string, opts: WatchOptions): AsyncIterable<WatchEvent<T>> {
      const from = Number(opts.query?.resourceVersion ?? rv);
      const sel = String(opts.query?.fieldSelector ?? "").replace("metadata.name=", "");
      const mine = (e: WatchEvent<Csr>) => !sel || e.object.metadata?.name === sel;
      const queue = history.filter((e) =>
        mine(e) && Number(e.object.metadata!.resourceVersion) > from
      );
      let wake: (() => void) | undefined;
      const push = (ev: WatchEvent<Csr>) => {
        if (!mine(ev)) return;
        queue.push(ev);
        wake?.();
      };
      watchers.add(push);
      const aborted = new Promise<void>((r) => opts.signal.addEventListener("abort", () => r()));
      try {
        while (!opts.signal.aborted) {
          const ev = queue.shift();
          if (ev) {
            yield ev as unknown as WatchEvent<T>;
            continue;
          }
          await Promise.race([new Promise<void>((r) => (wake = r)), aborted]);
        }
      } finally {
        watchers.delete(push);
      }
    },
    close() {},
  };
  const update = (name: string, f: (c: Csr) => void) => {
    const c = csrs.get(name);
    if (!c) throw new Error(`no CSR ${name}`);
    f(c);
    emit("MODIFIED", c);
  };
  return {
    client,
    created,
    nextCreated: () => new Promise((r) => waiters.push(r)),
    approve: (name, certPem) =>
      update(name, (c) => {
        c.status = {
          conditions: [{ type: "Approved", status: "True", reason: "AutoApproved" }],
          certificate: btoa(certPem),
        };
      }),
    deny: (name, reason, message) =>
      update(name, (c) => {
        c.status = { conditions: [{ type: "Denied", status: "True", reason, message }] };
      }),
  };
}

export interface TestSigner {
  caPem: string;
  /** Signs the CSR's key and subject, valid from `notBeforeMs` to `notAfterMs`. */
  sign(csr: Csr, validity: { notBeforeMs: number; notAfterMs: number }): Promise<string>;
}

export async function testSigner(): Promise<TestSigner> {
  const x = await x509Library();
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]) as CryptoKeyPair;
  const now = Date.now();
  const ca = await x.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: "CN=test-signer",
    notBefore: new Date(now - 86_400_000),
    notAfter: new Date(now + 30 * 86_400_000),
    keys,
    signingAlgorithm: alg,
    extensions: [new x.BasicConstraintsExtension(true, undefined, true)],
  });
  let serial = 1;
  return {
    caPem: ca.toString("pem") + "\n",
    async sign(csr, v) {
      const req = new x.Pkcs10CertificateRequest(atob(csr.spec!.request!));
      const cert = await x.X509CertificateGenerator.create({
        serialNumber: (++serial).toString(16).padStart(2, "0"),
        subject: req.subject,
        issuer: ca.subject,
        notBefore: new Date(v.notBeforeMs),
        notAfter: new Date(v.notAfterMs),
        signingKey: keys.privateKey,
        publicKey: await req.publicKey.export(),
        signingAlgorithm: alg,
        extensions: req.extensions,
      });
      return cert.toString("pem") + "\n";
    },
  };
}
