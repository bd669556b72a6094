/**
 * Reading a kubeconfig (clientcmd's `Config`, apiVersion v1) down to what one connection needs:
 * the current context's cluster and user. Paths in the file are relative to the file's directory,
 * as kubectl resolves them. Pure apart from reading the files it names.
 */
import { dirname, isAbsolute, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { KubeconfigError } from "./types.ts";

/** An exec credential plugin (client.authentication.k8s.io). */
export interface ExecPlugin {
  apiVersion: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Everything needed to reach and authenticate to one API server. PEM texts, not paths. */
export interface Connection {
  server: string;
  /** CA bundle to verify the server with; undefined uses the system roots. */
  caCert?: string;
  /** Client certificate and key (PEM). With files, they are re-read when rotated. */
  clientCert?: string;
  clientKey?: string;
  clientCertFile?: string;
  clientKeyFile?: string;
  token?: string;
  tokenFile?: string;
  basic?: { username: string; password: string };
  exec?: ExecPlugin;
  /**
   * The client certificate from a certificate manager (client certificate rotation): asked at
   * every request, it replaces any other client certificate; undefined sends none.
   */
  certificate?: () => { cert: string; key: string } | undefined;
  /** The context's namespace, or "default". */
  namespace: string;
}

type Obj = Record<string, unknown>;

/**
 * Loads `path` and resolves its current context (or `context`). `anonymous`: only the server and
 * its CA, no credentials (client-go's AnonymousClientConfig), for a client whose certificate
 * comes from a certificate manager: the files the user names may not exist yet.
 */
export async function loadKubeconfig(
  path: string,
  opts: { context?: string; readFile?: (p: string) => Promise<string>; anonymous?: boolean } = {},
): Promise<Connection> {
  const read = opts.readFile ?? ((p: string) => Deno.readTextFile(p));
  let text: string;
  try {
    text = await read(path);
  } catch (cause) {
    throw new KubeconfigError(`${path}: cannot read the kubeconfig`, { cause });
  }
  const partial = resolveKubeconfig(text, { path, context: opts.context });
  // File references become contents now, so a missing file fails the start, not the first call.
  const fromFile = async (field: string, file: string | undefined) => {
    if (file === undefined) return undefined;
    try {
      return await read(file);
    } catch (cause) {
      throw new KubeconfigError(`${path}: ${field}: cannot read ${file}`, { cause });
    }
  };
  const caCert = partial.connection.caCert ??
    await fromFile("certificate-authority", partial.files.ca);
  if (opts.anonymous) {
    const { server, namespace } = partial.connection;
    return { server, namespace, caCert };
  }
  return {
    ...partial.connection,
    caCert,
    clientCert: partial.connection.clientCert ??
      await fromFile("client-certificate", partial.connection.clientCertFile),
    clientKey: partial.connection.clientKey ??
      await fromFile("client-key", partial.connection.clientKeyFile),
  };
}

/**
 * Resolves the current context of kubeconfig text. File references are returned resolved
 * against the kubeconfig's directory but not read. Throws KubeconfigError naming the field.
 */
export function resolveKubeconfig(
  text: string,
  opts: { path: string; context?: string },
): { connection: Connection; files: { ca?: string } } {
  const { path } = opts;
  const fail = (field: string, why: string): never => {
    throw new KubeconfigError(`${path}: ${field}: ${why}`);
  };
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (cause) {
    throw new KubeconfigError(`${path}: cannot parse as YAML`, { cause });
  }
  if (!isObj(doc)) return fail("(root)", "expected a kubeconfig object");
  const contextName = opts.context ?? str(doc["current-context"]);
  if (!contextName) return fail("current-context", "is not set");
  const context = named(doc, "contexts", contextName, "context", fail);
  const clusterName = str(context.cluster) ??
    fail(`contexts[${contextName}].cluster`, "is not set");
  const userName = str(context.user) ?? "";
  const cluster = named(doc, "clusters", clusterName, "cluster", fail);
  const user = userName ? named(doc, "users", userName, "user", fail) : {};
  const at = (kind: string, name: string, field: string) => `${kind}[${name}].${field}`;
  const file = (v: unknown) => {
    const s = str(v);
    return s === undefined || s === "" ? undefined : (isAbsolute(s) ? s : join(dirname(path), s));
  };
  const data = (v: unknown, field: string) => {
    const s = str(v);
    if (s === undefined || s === "") return undefined;
    try {
      return new TextDecoder().decode(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)));
    } catch {
      return fail(field, "is not valid base64");
    }
  };

  const server = str(cluster.server) ?? fail(at("clusters", clusterName, "server"), "is not set");
  if (!/^https?:\/\//.test(server)) {
    fail(at("clusters", clusterName, "server"), `${JSON.stringify(server)} is not an http(s) URL`);
  }
  if (cluster["insecure-skip-tls-verify"] === true) {
    fail(
      at("clusters", clusterName, "insecure-skip-tls-verify"),
      "is not supported: give certificate-authority or certificate-authority-data",
    );
  }
  const connection: Connection = {
    server: server.replace(/\/+$/, ""),
    caCert: data(
      cluster["certificate-authority-data"],
      at("clusters", clusterName, "certificate-authority-data"),
    ),
    clientCert: data(
      user["client-certificate-data"],
      at("users", userName, "client-certificate-data"),
    ),
    clientKey: data(user["client-key-data"], at("users", userName, "client-key-data")),
    clientCertFile: file(user["client-certificate"]),
    clientKeyFile: file(user["client-key"]),
    token: str(user.token) || undefined,
    tokenFile: file(user.tokenFile),
    namespace: str(context.namespace) || "default",
  };
  if (str(user.username) !== undefined) {
    connection.basic = { username: str(user.username)!, password: str(user.password) ?? "" };
  }
  if (isObj(user.exec)) {
    connection.exec = execPlugin(user.exec, at("users", userName, "exec"), fail);
  }
  if (!!connection.clientCert !== !!connection.clientKey && !connection.clientCertFile) {
    fail(
      at("users", userName, "client-key"),
      "a client certificate needs its key and the other way round",
    );
  }
  return { connection, files: { ca: file(cluster["certificate-authority"]) } };
}

function execPlugin(
  e: Obj,
  field: string,
  fail: (field: string, why: string) => never,
): ExecPlugin {
  const command = str(e.command) ?? fail(`${field}.command`, "is not set");
  const args = Array.isArray(e.args) ? e.args.map(String) : [];
  const env: Record<string, string> = {};
  if (Array.isArray(e.env)) {
    for (const item of e.env) {
      if (isObj(item) && str(item.name)) env[str(item.name)!] = str(item.value) ?? "";
    }
  }
  const apiVersion = str(e.apiVersion) ?? "client.authentication.k8s.io/v1";
  return { apiVersion, command, args, env };
}

function named(
  doc: Obj,
  list: string,
  name: string,
  inner: string,
  fail: (field: string, why: string) => never,
): Obj {
  const items = Array.isArray(doc[list]) ? doc[list] as unknown[] : [];
  const found = items.find((i) => isObj(i) && i.name === name) as Obj | undefined;
  if (!found) return fail(list, `no entry named ${JSON.stringify(name)}`);
  const value = found[inner];
  return isObj(value) ? value : {};
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}
