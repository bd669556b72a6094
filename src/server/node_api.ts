/**
 * Assembles the authenticated node API on --port from the configuration, as upstream's
 * InitializeTLS, BuildAuth and ListenAndServeKubeletServer do: the serving certificate (the
 * configured files, a bootstrapped one, or a self-signed pair generated once), the client CA,
 * the authenticators and the authorizer, then the HTTPS server.
 */
import type { ApiClient } from "../apiclient/types.ts";
import type { AgentConfig } from "../config/types.ts";
import type { CriClient } from "../cri/mod.ts";
import type { Clock } from "../util/clock.ts";
import { DenoletError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import {
  alwaysAllow,
  type AuthenticatorFn,
  type Authorizer,
  createAuthenticator,
  tokenAuthenticator,
  webhookAuthorizer,
  x509Authenticator,
} from "./auth/mod.ts";
import { configzView } from "./_configz.ts";
import { createSecureNodeApiHandler } from "./secure_handler.ts";
import type { SecureServer, ServingCertificate } from "./secure_serve.ts";
import { ensureSelfSignedFiles } from "./tls/mod.ts";
import type { NodeApiDeps } from "./types.ts";

export interface AuthenticatedApiDeps {
  config: AgentConfig;
  /** The node's IPs, for the self-signed certificate's names. */
  nodeIPs: string[];
  /** The read-only API's deps (pods, stats, metrics, ...). */
  api: NodeApiDeps;
  cri: CriClient;
  clock: Clock;
  logger: Logger;
  /** The API-server mode's client: TokenReview, SubjectAccessReview, serving CSRs. */
  apiClient?: ApiClient;
  /** The reviews' own client (its budget is not the pods'); `apiClient` when absent. */
  reviewClient?: ApiClient;
  signal: AbortSignal;
}

/** The node's log directory upstream's /logs/ serves. */
const SYSTEM_LOG_DIR = "/var/log";

/**
 * Binds --port and serves until the signal aborts. Throws DenoletError naming what is wrong
 * (unreadable certificate or CA files, a Webhook mode without an API server, a taken port), so
 * the agent fails at start instead of serving less securely than configured.
 */
export async function serveAuthenticatedNodeApi(deps: AuthenticatedApiDeps): Promise<SecureServer> {
  const { config, logger } = deps;
  const reviews = deps.apiClient ? await import("./auth/reviews.ts") : undefined;
  const needsApi = (what: string): never => {
    throw new DenoletError(
      `${what} needs --kubeconfig: a standalone node has no API server to ask. Turn it off ` +
        "(--authentication-token-webhook=false, --authorization-mode=AlwaysAllow) and use " +
        "--client-ca-file, --anonymous-auth or a loopback --address instead",
    );
  };

  const methods: AuthenticatorFn[] = [];
  let clientCA: string | undefined;
  if (config.clientCAFile !== "") {
    clientCA = await readPem(config.clientCAFile, "client CA file");
    methods.push(x509Authenticator());
  }
  if (config.authenticationTokenWebhook) {
    if (!reviews || !deps.apiClient) {
      needsApi("authentication.webhook.enabled (--authentication-token-webhook)");
    }
    methods.push(tokenAuthenticator({
      review: reviews!.tokenReviewer(deps.reviewClient ?? deps.apiClient!, deps.clock),
      cacheTTLMs: config.authenticationTokenWebhookCacheTTLMs,
      clock: deps.clock,
    }));
  }
  let authenticate: AuthenticatorFn;
  try {
    authenticate = createAuthenticator({ methods, anonymous: config.anonymousAuth });
  } catch (err) {
    throw new DenoletError(`Cannot serve the node API: ${errorMessage(err)}`, { cause: err });
  }
  let authorizer: Authorizer = alwaysAllow;
  if (config.authorizationMode === "Webhook") {
    if (!reviews || !deps.apiClient) needsApi("authorization.mode Webhook (--authorization-mode)");
    authorizer = webhookAuthorizer({
      review: reviews!.accessReviewer(deps.reviewClient ?? deps.apiClient!, deps.clock),
      allowedTTLMs: config.authorizationWebhookCacheAuthorizedTTLMs,
      deniedTTLMs: config.authorizationWebhookCacheUnauthorizedTTLMs,
      clock: deps.clock,
    });
  }

  const handler = createSecureNodeApiHandler({
    ...deps.api,
    authenticate,
    authorizer,
    configz: () => configzView(config),
    debugging: config.enableDebuggingHandlers
      ? {
        clock: deps.clock,
        runtime: deps.cri.runtime,
        streaming: deps.cri.streaming,
        runningPods: deps.api.runningPods,
        logDir: config.enableSystemLogHandler ? SYSTEM_LOG_DIR : undefined,
        logQuery: config.enableSystemLogQuery ? {} : undefined,
      }
      : undefined,
  });
  logger.info("Node API authentication and authorization", {
    clientCertificates: clientCA !== undefined,
    tokenWebhook: config.authenticationTokenWebhook,
    anonymous: config.anonymousAuth,
    authorization: config.authorizationMode,
  });
  // node:https is loaded only when --port is on: an agent without it does not pay for it.
  const { serveSecureNodeApi, nodeMinVersion } = await import("./secure_serve.ts");
  const serve = (certificate: ServingCertificate) =>
    serveSecureNodeApi(handler, {
      address: config.address,
      port: config.port,
      certificate,
      clientCA,
      minVersion: nodeMinVersion(config.tlsMinVersion),
      cipherSuites: config.tlsMinVersion === "VersionTLS13" ? [] : config.tlsCipherSuites,
      clock: deps.clock,
      logger,
      signal: deps.signal,
    });
  let server: SecureServer;
  if (config.serverTLSBootstrap && config.tlsCertFile === "") {
    if (!deps.apiClient) needsApi("serverTLSBootstrap (--rotate-server-certificates)");
    server = await serveBootstrapped(deps, serve);
  } else {
    server = await serve(await servingCertificate(deps));
    if (config.tlsCertFile !== "") watchCertificateFiles(deps, server);
  }
  if (clientCA !== undefined) watchClientCA(deps, server);
  return server;
}

/** How often configured certificate and CA files are checked for replacement. */
const CERT_FILE_CHECK_MS = 60_000;

/**
 * Calls `reload` when one of `files` was replaced (another modification time), checking every
 * minute. A reload that fails is logged and the current state kept; the next change tries again.
 */
function watchFiles(
  deps: AuthenticatedApiDeps,
  files: readonly string[],
  what: string,
  reload: () => Promise<void>,
): void {
  const stamp = async () =>
    (await Promise.all(files.map((f) => Deno.stat(f)))).map((i) => i.mtime?.getTime()).join("/");
  // Unknown at first (files unreadable right now): the first check that can read them reloads.
  let last: Promise<string | undefined> = stamp().catch(() => undefined);
  let checking = false;
  deps.clock.every(CERT_FILE_CHECK_MS, () => {
    if (checking) return;
    checking = true;
    (async () => {
      const before = await last;
      const now = await stamp();
      if (now === before) return;
      last = Promise.resolve(now);
      await reload();
    })().catch((err) => {
      deps.logger.error(`Cannot reload the ${what}; keeping the current one`, {
        err: errorMessage(err),
      });
    }).finally(() => (checking = false));
  }, { signal: deps.signal });
}

/**
 * Upstream reloads --tls-cert-file/--tls-private-key-file when they change (an external tool
 * renews them); so does this. A pair that does not load is logged and the current one kept.
 */
function watchCertificateFiles(deps: AuthenticatedApiDeps, server: SecureServer): void {
  const { config, logger } = deps;
  watchFiles(
    deps,
    [config.tlsCertFile, config.tlsPrivateKeyFile],
    "serving certificate",
    async () => {
      server.setCertificate({
        cert: await readPem(config.tlsCertFile, "serving certificate"),
        key: await readPem(config.tlsPrivateKeyFile, "serving key"),
      });
      logger.info("Serving certificate reloaded", { cert: config.tlsCertFile });
    },
  );
}

/**
 * As upstream's dynamic CA content: a replaced --client-ca-file (a rotated cluster CA) verifies
 * the client certificates of new connections; one that holds no certificate is logged and the
 * current bundle kept.
 */
function watchClientCA(deps: AuthenticatedApiDeps, server: SecureServer): void {
  const file = deps.config.clientCAFile;
  watchFiles(deps, [file], "client CA file", async () => {
    server.setClientCA(await readPem(file, "client CA file"));
    deps.logger.info("Client CA reloaded", { file });
  });
}

/**
 * With serverTLSBootstrap the certificate comes from a CSR. A stored one still valid is served
 * at once; otherwise nothing is served until the first is issued (as upstream, which cannot
 * complete a handshake before that), and each renewal replaces it for new connections.
 */
async function serveBootstrapped(
  deps: AuthenticatedApiDeps,
  serve: (c: ServingCertificate) => Promise<SecureServer>,
): Promise<SecureServer> {
  const { ServingCertManager } = await import("./tls/serving_cert.ts");
  const manager = await ServingCertManager.open({
    client: deps.apiClient!,
    clock: deps.clock,
    logger: deps.logger,
    nodeName: deps.config.nodeName,
    certDir: deps.config.certDir,
    hosts: [deps.config.nodeName, ...deps.nodeIPs],
  });
  const stored = manager.current();
  let server = stored ? await serve(stored) : undefined;
  let starting: Promise<void> | undefined;
  let pending: ServingCertificate | undefined;
  // A client CA reloaded before the first certificate came: the server starts with the old one.
  let reloadedCA: string | undefined;
  const loop = manager.run((c) => {
    if (server) return server.setCertificate(c);
    pending = c;
    starting ??= serve(c).then((s) => {
      server = s;
      if (pending !== c && pending) s.setCertificate(pending);
      if (reloadedCA !== undefined) s.setClientCA(reloadedCA);
    }, (err) => {
      deps.logger.error("Cannot serve the node API", { err: errorMessage(err) });
    });
  }, { signal: deps.signal });
  if (!stored) deps.logger.info("Node API waits for its serving certificate (serverTLSBootstrap)");
  return {
    port: deps.config.port,
    finished: (async () => {
      await loop;
      await starting;
      await server?.finished;
    })(),
    setCertificate: (c) => server?.setCertificate(c),
    setClientCA: (pem) => {
      reloadedCA = pem;
      server?.setClientCA(pem);
    },
  };
}

/** The configured pair, else the self-signed one under --cert-dir (generated on first start). */
async function servingCertificate(deps: AuthenticatedApiDeps): Promise<ServingCertificate> {
  const { config } = deps;
  let files = { certFile: config.tlsCertFile, keyFile: config.tlsPrivateKeyFile };
  if (files.certFile === "") {
    // Beside upstream's host name: the node's IPs, and the bound address when it is a specific
    // one (a loopback-only node is reached at 127.0.0.1), so clients can verify the name.
    const bound = config.address === "0.0.0.0" || config.address === "::" ? [] : [config.address];
    const made = await ensureSelfSignedFiles(config.certDir, {
      host: config.nodeName,
      ips: [...new Set([...deps.nodeIPs, ...bound])],
      nowMs: deps.clock.now(),
      keyKind: selfSignedKeyKind(config),
    });
    if (made.generated) {
      deps.logger.info("Generated a self-signed serving certificate", { cert: made.certFile });
    }
    files = made;
  }
  return {
    cert: await readPem(files.certFile, "serving certificate"),
    key: await readPem(files.keyFile, "serving key"),
  };
}

/**
 * ECDSA unless TLS 1.2 is allowed and every configured suite is an RSA one (ECDHE_RSA_*,
 * RSA_*): an ECDSA certificate could serve none of them.
 */
export function selfSignedKeyKind(
  config: Pick<AgentConfig, "tlsMinVersion" | "tlsCipherSuites">,
): "rsa" | "ecdsa" {
  const suites = config.tlsCipherSuites;
  if (config.tlsMinVersion === "VersionTLS13" || suites.length === 0) return "ecdsa";
  return suites.some((s) => s.includes("_ECDSA_")) ? "ecdsa" : "rsa";
}

async function readPem(path: string, what: string): Promise<string> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    throw new DenoletError(`Cannot read the ${what} ${path}: ${errorMessage(err)}`, { cause: err });
  }
  if (!text.includes("-----BEGIN ")) {
    throw new DenoletError(`The ${what} ${path} holds no PEM block`);
  }
  return text;
}
