/**
 * The secure node API's settings (kept apart from the main table to keep it short): serving
 * certificate, TLS versions and suites, authentication and authorization, debugging handlers.
 * Flags and KubeletConfiguration fields use upstream's names; the defaults differ with and without
 * a --config file exactly as upstream's do (applyLegacyDefaults keeps the old, open command-line
 * defaults; the v1beta1 file defaults are Webhook authentication and authorization).
 */
import { ConfigError } from "../util/errors.ts";
import { formatDuration, parseDuration } from "./duration.ts";
import { parseBool, parseList } from "./_values.ts";
import { type FlagDef, scalar } from "./_flag_kit.ts";
import type { AgentConfig } from "./types.ts";

export type AuthorizationMode = "AlwaysAllow" | "Webhook";
export const AUTHORIZATION_MODES: readonly AuthorizationMode[] = ["AlwaysAllow", "Webhook"];

/** Go's `tls.VersionTLS1x` names, as --tls-min-version takes them. */
export const TLS_VERSIONS = ["VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"];

/** Cipher suite names Go (and so --tls-cipher-suites) knows, secure ones first. */
export const SECURE_CIPHER_SUITES: readonly string[] = [
  "TLS_AES_128_GCM_SHA256",
  "TLS_AES_256_GCM_SHA384",
  "TLS_CHACHA20_POLY1305_SHA256",
  "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
  "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
  "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
  "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
  "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
  "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
  "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
  "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
  "TLS_RSA_WITH_AES_128_CBC_SHA",
  "TLS_RSA_WITH_AES_128_GCM_SHA256",
  "TLS_RSA_WITH_AES_256_CBC_SHA",
  "TLS_RSA_WITH_AES_256_GCM_SHA384",
];
export const INSECURE_CIPHER_SUITES: readonly string[] = [
  "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
  "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
  "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
  "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
  "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
  "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
  "TLS_RSA_WITH_AES_128_CBC_SHA256",
  "TLS_RSA_WITH_RC4_128_SHA",
];
const KNOWN_SUITES = new Set([...SECURE_CIPHER_SUITES, ...INSECURE_CIPHER_SUITES]);

type ServerKey =
  | "tlsCertFile"
  | "tlsPrivateKeyFile"
  | "certDir"
  | "tlsMinVersion"
  | "tlsCipherSuites"
  | "serverTLSBootstrap"
  | "anonymousAuth"
  | "clientCAFile"
  | "authenticationTokenWebhook"
  | "authenticationTokenWebhookCacheTTLMs"
  | "authorizationMode"
  | "authorizationWebhookCacheAuthorizedTTLMs"
  | "authorizationWebhookCacheUnauthorizedTTLMs"
  | "enableDebuggingHandlers"
  | "enableSystemLogHandler"
  | "enableSystemLogQuery";

/**
 * The server settings' defaults. Without a config file they are upstream's legacy flag defaults
 * (anonymous requests allowed, no token webhook, AlwaysAllow); with one, the v1beta1 defaults.
 * certDir "" means `<rootDir>/pki`, filled in by the loader once rootDir is known.
 */
export function serverDefaults(opts: { withConfigFile: boolean }): Pick<AgentConfig, ServerKey> {
  const file = opts.withConfigFile;
  return {
    tlsCertFile: "",
    tlsPrivateKeyFile: "",
    certDir: "",
    tlsMinVersion: "",
    tlsCipherSuites: [],
    serverTLSBootstrap: false,
    anonymousAuth: !file,
    clientCAFile: "",
    authenticationTokenWebhook: file,
    authenticationTokenWebhookCacheTTLMs: 2 * 60_000,
    authorizationMode: file ? "Webhook" : "AlwaysAllow",
    authorizationWebhookCacheAuthorizedTTLMs: 5 * 60_000,
    authorizationWebhookCacheUnauthorizedTTLMs: 30_000,
    enableDebuggingHandlers: true,
    enableSystemLogHandler: true,
    enableSystemLogQuery: false,
  };
}

const text = (raw: string) => raw;

function parseMode(raw: string): AuthorizationMode {
  if (!(AUTHORIZATION_MODES as readonly string[]).includes(raw)) {
    throw new Error(`must be one of ${AUTHORIZATION_MODES.join(", ")}`);
  }
  return raw as AuthorizationMode;
}

/** In help order (the help text sorts anyway). */
export const SERVER_FLAGS: readonly FlagDef[] = [
  scalar(
    "anonymous-auth",
    "anonymousAuth",
    undefined,
    "Let requests to the node API that no other method authenticates through as " +
      "system:anonymous (group system:unauthenticated); authorization still applies.",
    parseBool,
  ),
  scalar(
    "authentication-token-webhook",
    "authenticationTokenWebhook",
    undefined,
    "Authenticate bearer tokens on the node API with the API server's TokenReview.",
    parseBool,
  ),
  scalar(
    "authentication-token-webhook-cache-ttl",
    "authenticationTokenWebhookCacheTTLMs",
    "duration",
    "How long TokenReview answers are cached.",
    parseDuration,
  ),
  scalar(
    "authorization-mode",
    "authorizationMode",
    "string",
    "How node API requests are authorized: AlwaysAllow, or Webhook (a SubjectAccessReview " +
      "to the API server for each request).",
    parseMode,
  ),
  scalar(
    "authorization-webhook-cache-authorized-ttl",
    "authorizationWebhookCacheAuthorizedTTLMs",
    "duration",
    "How long an allowing SubjectAccessReview answer is cached.",
    parseDuration,
  ),
  scalar(
    "authorization-webhook-cache-unauthorized-ttl",
    "authorizationWebhookCacheUnauthorizedTTLMs",
    "duration",
    "How long a denying SubjectAccessReview answer is cached.",
    parseDuration,
  ),
  scalar(
    "cert-dir",
    "certDir",
    "string",
    "Directory of the generated serving certificate (kubelet.crt/kubelet.key) and of the " +
      "bootstrapped ones; ignored with --tls-cert-file. Default <root-dir>/pki.",
    text,
  ),
  scalar(
    "client-ca-file",
    "clientCAFile",
    "string",
    "CA bundle that client certificates on the node API are verified against (user = CN, " +
      "groups = O).",
    text,
  ),
  scalar(
    "enable-debugging-handlers",
    "enableDebuggingHandlers",
    undefined,
    "Serve logs, exec, attach, port-forward and run on the node API.",
    parseBool,
  ),
  scalar(
    "rotate-server-certificates",
    "serverTLSBootstrap",
    undefined,
    "Request the serving certificate from the API server (a kubernetes.io/kubelet-serving " +
      "CertificateSigningRequest) and renew it before it expires.",
    parseBool,
  ),
  scalar(
    "tls-cert-file",
    "tlsCertFile",
    "string",
    "Serving certificate of the node API (intermediates after it). Without it, a self-signed " +
      "pair is generated once under --cert-dir.",
    text,
  ),
  {
    name: "tls-cipher-suites",
    type: "strings",
    help: "TLS 1.2 cipher suites the node API accepts (Go names, comma-separated, repeatable); " +
      "TLS 1.3 suites are not configurable.",
    field: "tlsCipherSuites",
    parse: parseList,
    // pflag's string slices: the first occurrence replaces the file's list, later ones append.
    apply(cfg, value, first) {
      const next = value as string[];
      cfg.tlsCipherSuites = first ? [...next] : [...cfg.tlsCipherSuites, ...next];
    },
  },
  scalar(
    "tls-min-version",
    "tlsMinVersion",
    "string",
    "Lowest TLS version the node API accepts: VersionTLS12 or VersionTLS13 (VersionTLS10 and " +
      "VersionTLS11 are accepted; TLS 1.2 is the floor).",
    text,
  ),
  scalar(
    "tls-private-key-file",
    "tlsPrivateKeyFile",
    "string",
    "Private key of --tls-cert-file.",
    text,
  ),
];

/**
 * Checks the server settings; throws ConfigError naming the flag or field. Returns warnings.
 * Whether Webhook modes have an API server to ask is checked when the server starts (as
 * upstream), so a config file written for an API-mode node still loads for inspection.
 */
export function validateServer(
  cfg: AgentConfig,
  where: (key: keyof AgentConfig) => string,
): string[] {
  const bad = (key: keyof AgentConfig, msg: string): never => {
    throw new ConfigError(where(key), msg);
  };
  const warnings: string[] = [];
  if ((cfg.tlsCertFile === "") !== (cfg.tlsPrivateKeyFile === "")) {
    const missing = cfg.tlsCertFile === "" ? "tlsCertFile" : "tlsPrivateKeyFile";
    bad(missing, "--tls-cert-file and --tls-private-key-file must be given together");
  }
  if (cfg.tlsMinVersion !== "" && !TLS_VERSIONS.includes(cfg.tlsMinVersion)) {
    bad(
      "tlsMinVersion",
      `unknown TLS version ${JSON.stringify(cfg.tlsMinVersion)}: use one of ${
        TLS_VERSIONS.join(", ")
      }`,
    );
  }
  for (const suite of cfg.tlsCipherSuites) {
    if (!KNOWN_SUITES.has(suite)) {
      bad("tlsCipherSuites", `Cipher suite ${suite} not supported or doesn't exist`);
    }
    if (INSECURE_CIPHER_SUITES.includes(suite)) {
      warnings.push(`${where("tlsCipherSuites")}: use of insecure cipher ${suite}`);
    }
  }
  // The NodeLogQuery gate upstream also requires is GA and locked on since 1.36.
  if (cfg.enableSystemLogQuery && !cfg.enableSystemLogHandler) {
    bad(
      "enableSystemLogQuery",
      "invalid configuration: enableSystemLogHandler is required for enableSystemLogQuery",
    );
  }
  if (cfg.tlsMinVersion === "VersionTLS13" && cfg.tlsCipherSuites.length > 0) {
    warnings.push(
      `${where("tlsCipherSuites")}: TLS 1.3 cipher suites are not configurable, ignored`,
    );
  }
  if (!(AUTHORIZATION_MODES as readonly string[]).includes(cfg.authorizationMode)) {
    bad(
      "authorizationMode",
      `${JSON.stringify(cfg.authorizationMode)} must be one of ${AUTHORIZATION_MODES.join(", ")}`,
    );
  }
  for (
    const key of [
      "authenticationTokenWebhookCacheTTLMs",
      "authorizationWebhookCacheAuthorizedTTLMs",
      "authorizationWebhookCacheUnauthorizedTTLMs",
    ] as const
  ) {
    if (cfg[key] < 0) bad(key, `${formatDuration(cfg[key])} must not be negative`);
  }
  return warnings;
}

/** What the config-file reader lends to the nested readers below (no import cycle). */
export interface FileReaderKit<Ctx> {
  str(key: KeyOf<string>, opts?: { zeroIsUnset?: boolean; isPath?: boolean }): FieldReader<Ctx>;
  bool(key: KeyOf<boolean>): FieldReader<Ctx>;
  duration(key: KeyOf<number>): FieldReader<Ctx>;
  stringList(key: KeyOf<string[]>): FieldReader<Ctx>;
  /** A struct: its known members' readers by name; unknown members are errors. */
  struct(members: Record<string, FieldReader<Ctx>>): FieldReader<Ctx>;
  /** A string that must be one of `values` ("" keeps the default). */
  oneOf(key: KeyOf<string>, values: readonly string[]): FieldReader<Ctx>;
}

type KeyOf<T> = { [K in ServerKey]: AgentConfig[K] extends T ? K : never }[ServerKey];

export type FieldReader<Ctx> = (value: unknown, ctx: Ctx, path: string) => void;

/** The server's KubeletConfiguration fields, by upstream JSON name. */
export function serverFileFields<Ctx>(k: FileReaderKit<Ctx>): Record<string, FieldReader<Ctx>> {
  return {
    tlsCertFile: k.str("tlsCertFile", { isPath: true }),
    tlsPrivateKeyFile: k.str("tlsPrivateKeyFile", { isPath: true }),
    tlsMinVersion: k.str("tlsMinVersion"),
    tlsCipherSuites: k.stringList("tlsCipherSuites"),
    serverTLSBootstrap: k.bool("serverTLSBootstrap"),
    enableDebuggingHandlers: k.bool("enableDebuggingHandlers"),
    enableSystemLogHandler: k.bool("enableSystemLogHandler"),
    enableSystemLogQuery: k.bool("enableSystemLogQuery"),
    authentication: k.struct({
      x509: k.struct({ clientCAFile: k.str("clientCAFile", { isPath: true }) }),
      webhook: k.struct({
        enabled: k.bool("authenticationTokenWebhook"),
        cacheTTL: k.duration("authenticationTokenWebhookCacheTTLMs"),
      }),
      anonymous: k.struct({ enabled: k.bool("anonymousAuth") }),
    }),
    authorization: k.struct({
      mode: k.oneOf("authorizationMode", AUTHORIZATION_MODES),
      webhook: k.struct({
        cacheAuthorizedTTL: k.duration("authorizationWebhookCacheAuthorizedTTLMs"),
        cacheUnauthorizedTTL: k.duration("authorizationWebhookCacheUnauthorizedTTLMs"),
      }),
    }),
  };
}
