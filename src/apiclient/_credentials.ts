/**
 * The credentials a request carries, kept fresh: a bearer token (inline, re-read from its file
 * every minute as client-go does, or from an exec plugin until it expires), basic auth, or a
 * client certificate (re-read from its files every minute, so a rotated certificate is used
 * without a restart).
 */
import type { Clock } from "../util/clock.ts";
import { errorMessage } from "../util/log.ts";
import type { Connection, ExecPlugin } from "./_kubeconfig.ts";
import { KubeconfigError } from "./types.ts";

export interface Credentials {
  /** `Authorization` header value, if any. */
  authorization?: string;
  /** Client certificate and key (PEM); part of the TLS identity. */
  cert?: string;
  key?: string;
}

export interface CredentialDeps {
  clock: Clock;
  readFile?: (path: string) => Promise<string>;
  /** Runs an exec plugin; returns its stdout. */
  runPlugin?: (plugin: ExecPlugin, env: Record<string, string>) => Promise<string>;
}

/** client-go re-reads token files this often. */
const FILE_REFRESH_MS = 60_000;

export class CredentialSource {
  readonly #conn: Connection;
  readonly #deps: CredentialDeps;
  /**
   * `refreshAt` is monotonic (the file re-read interval); `expiresAt` is the wall time an exec
   * plugin's credential expires at, as the plugin states it.
   */
  #cached?: { creds: Credentials; refreshAt: number; expiresAt: number };

  constructor(conn: Connection, deps: CredentialDeps) {
    this.#conn = conn;
    this.#deps = deps;
  }

  /** True when a 401 may be cured by asking again (plugins and files change). */
  get refreshable(): boolean {
    const c = this.#conn;
    return !!(c.exec || c.tokenFile || c.clientCertFile);
  }

  /** The credentials to use now. May run the exec plugin or read files. */
  async get(): Promise<Credentials> {
    const { clock } = this.#deps;
    const c = this.#cached;
    if (c && clock.monotonic() < c.refreshAt && clock.now() < c.expiresAt) {
      return this.#managed(c.creds);
    }
    const fresh = await this.#load(clock.monotonic());
    this.#cached = fresh;
    return this.#managed(fresh.creds);
  }

  /** A certificate manager's pair, when there is one, is the one used, read every time. */
  #managed(creds: Credentials): Credentials {
    const provide = this.#conn.certificate;
    if (!provide) return creds;
    const pair = provide();
    return { ...creds, cert: pair?.cert, key: pair?.key };
  }

  /** Forgets cached credentials (after the server answered 401). */
  invalidate(): void {
    this.#cached = undefined;
  }

  async #load(
    now: number,
  ): Promise<{ creds: Credentials; refreshAt: number; expiresAt: number }> {
    const c = this.#conn;
    const read = this.#deps.readFile ?? ((p: string) => Deno.readTextFile(p));
    const creds: Credentials = { cert: c.clientCert, key: c.clientKey };
    let refreshAt = Infinity;
    let expiresAt = Infinity;
    if (c.clientCertFile && c.clientKeyFile) {
      creds.cert = await read(c.clientCertFile);
      creds.key = await read(c.clientKeyFile);
      refreshAt = now + FILE_REFRESH_MS;
    }
    if (c.token) creds.authorization = `Bearer ${c.token}`;
    else if (c.tokenFile) {
      const token = (await read(c.tokenFile)).trim();
      creds.authorization = `Bearer ${token}`;
      refreshAt = Math.min(refreshAt, now + FILE_REFRESH_MS);
    } else if (c.basic) {
      creds.authorization = `Basic ${btoa(`${c.basic.username}:${c.basic.password}`)}`;
    }
    if (c.exec) {
      const out = await this.#exec(c.exec);
      if (out.token) creds.authorization = `Bearer ${out.token}`;
      if (out.cert && out.key) {
        creds.cert = out.cert;
        creds.key = out.key;
      }
      expiresAt = out.expires ?? Infinity;
    }
    return { creds, refreshAt, expiresAt };
  }

  async #exec(
    plugin: ExecPlugin,
  ): Promise<{ token?: string; cert?: string; key?: string; expires?: number }> {
    const info = {
      apiVersion: plugin.apiVersion,
      kind: "ExecCredential",
      spec: { interactive: false },
    };
    const env = { ...plugin.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
    const run = this.#deps.runPlugin ?? runPlugin;
    let text: string;
    try {
      text = await run(plugin, env);
    } catch (cause) {
      throw new KubeconfigError(`exec plugin ${plugin.command} failed: ${errorMessage(cause)}`, {
        cause,
      });
    }
    let status: Record<string, unknown>;
    try {
      status = (JSON.parse(text) as { status?: Record<string, unknown> }).status ?? {};
    } catch (cause) {
      throw new KubeconfigError(`exec plugin ${plugin.command}: output is not an ExecCredential`, {
        cause,
      });
    }
    const expiry = typeof status.expirationTimestamp === "string"
      ? Date.parse(status.expirationTimestamp)
      : NaN;
    return {
      token: typeof status.token === "string" ? status.token : undefined,
      cert: typeof status.clientCertificateData === "string"
        ? status.clientCertificateData
        : undefined,
      key: typeof status.clientKeyData === "string" ? status.clientKeyData : undefined,
      expires: Number.isNaN(expiry) ? undefined : expiry,
    };
  }
}

async function runPlugin(plugin: ExecPlugin, env: Record<string, string>): Promise<string> {
  const out = await new Deno.Command(plugin.command, {
    args: plugin.args,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const stderr = new TextDecoder().decode(out.stderr).trim();
    throw new Error(`exit ${out.code}${stderr ? `: ${stderr}` : ""}`);
  }
  return new TextDecoder().decode(out.stdout);
}
