/**
 * client-go's certificate FileStore: the pairs a certificate manager has been issued, each as
 * `<dir>/<prefix>-<YYYY-MM-DD-hh-mm-ss>.pem` (certificates, then the key; mode 0600), and
 * `<prefix>-current.pem`, a symlink to the one in use (the path a kubeconfig points at). A new
 * pair is linked as `<prefix>-updated.pem` first and renamed over `-current`, so a crash leaves
 * one or the other, which the next start recovers. Without a current pair, a configured
 * cert/key file pair or `<prefix>.crt` and `<prefix>.key` are read, as upstream's.
 */
import { posix } from "node:path";
import { DenoletError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { certificatesPem, type KeyPair, loadKeyPair, privateKeyPemOf } from "./pem.ts";

/** The store cannot read or write its files. */
export class CertificateStoreError extends DenoletError {}

export interface FileStoreOptions {
  /** `kubelet-client` or `kubelet-server`. */
  prefix: string;
  dir: string;
  /** A pair configured elsewhere (the kubeconfig's or --tls-cert-file's), read when no current one. */
  certFile?: string;
  keyFile?: string;
  /** Wall time for the file names (the clock's). */
  now: () => number;
}

export class CertificateFileStore {
  readonly #o: FileStoreOptions;

  constructor(opts: FileStoreOptions) {
    this.#o = opts;
  }

  /** `<dir>/<prefix>-current.pem`: what a kubeconfig names. */
  get currentPath(): string {
    return posix.join(this.#o.dir, `${this.#o.prefix}-current.pem`);
  }

  get #updatedPath(): string {
    return posix.join(this.#o.dir, `${this.#o.prefix}-updated.pem`);
  }

  /**
   * The pair in use, or undefined when there is none on disk. A crash between linking and
   * renaming is recovered first. Throws CertificateStoreError for a pair that exists but does
   * not load (upstream fails too: a broken file is not silently replaced).
   */
  async current(): Promise<KeyPair | undefined> {
    await this.#recover();
    if (await exists(this.currentPath)) return await this.#load(this.currentPath, this.currentPath);
    const { certFile, keyFile } = this.#o;
    if (certFile && keyFile && await exists(certFile) && await exists(keyFile)) {
      return await this.#load(certFile, keyFile);
    }
    const crt = posix.join(this.#o.dir, `${this.#o.prefix}.crt`);
    const key = posix.join(this.#o.dir, `${this.#o.prefix}.key`);
    if (await exists(crt) && await exists(key)) return await this.#load(crt, key);
    return undefined;
  }

  /** Writes a new pair and makes it current; returns it as loaded back from disk. */
  async update(certPem: string, keyPem: string): Promise<KeyPair> {
    const { dir, prefix } = this.#o;
    const certs = certificatesPem(certPem);
    const key = privateKeyPemOf(keyPem);
    if (certs === "" || key === undefined) {
      throw new CertificateStoreError("Cannot store a certificate: no certificate or key in it");
    }
    const file = posix.join(dir, `${prefix}-${stamp(this.#o.now())}.pem`);
    try {
      await Deno.mkdir(dir, { recursive: true, mode: 0o755 });
      using f = await Deno.open(file, { write: true, create: true, truncate: true, mode: 0o600 });
      await f.write(new TextEncoder().encode(certs + key));
      await f.sync();
    } catch (err) {
      throw new CertificateStoreError(`Cannot write ${file}: ${errorMessage(err)}`, { cause: err });
    }
    const pair = await this.#load(file, file);
    await this.#link(posix.resolve(file));
    return pair;
  }

  async #link(target: string): Promise<void> {
    try {
      await removeSymlink(this.#updatedPath);
      await Deno.symlink(target, this.#updatedPath);
      await Deno.rename(this.#updatedPath, this.currentPath);
    } catch (err) {
      if (err instanceof CertificateStoreError) throw err;
      throw new CertificateStoreError(`Cannot link ${this.currentPath}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }

  async #recover(): Promise<void> {
    if (await exists(this.currentPath)) return;
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(this.#updatedPath);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      throw new CertificateStoreError(`Cannot read ${this.#updatedPath}`, { cause: err });
    }
    if (!info.isSymlink) {
      throw new CertificateStoreError(`${this.#updatedPath} should be a symlink but is a file`);
    }
    await Deno.rename(this.#updatedPath, this.currentPath);
  }

  async #load(certFile: string, keyFile: string): Promise<KeyPair> {
    try {
      return await loadKeyPair(await Deno.readTextFile(certFile), await Deno.readTextFile(keyFile));
    } catch (err) {
      throw new CertificateStoreError(
        `Cannot load the certificate and key from ${
          certFile === keyFile ? certFile : `${certFile} and ${keyFile}`
        }: ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }
}

/** Go's time.Now().Format("2006-01-02-15-04-05"), in local time as upstream's. */
function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}-${p(d.getHours())}-${
    p(d.getMinutes())
  }-${p(d.getSeconds())}`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw new CertificateStoreError(`Cannot read ${path}: ${errorMessage(err)}`, { cause: err });
  }
}

async function removeSymlink(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  if (!info.isSymlink) throw new CertificateStoreError(`${path} should be a symlink but is a file`);
  await Deno.remove(path);
}
