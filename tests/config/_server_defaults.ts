/** The secure node API's fields of a default AgentConfig, for whole-config tests. */
const COMMON = {
  tlsCertFile: "",
  tlsPrivateKeyFile: "",
  certDir: "/var/lib/kubelet/pki",
  tlsMinVersion: "",
  tlsCipherSuites: [],
  serverTLSBootstrap: false,
  clientCAFile: "",
  authenticationTokenWebhookCacheTTLMs: 120_000,
  authorizationWebhookCacheAuthorizedTTLMs: 300_000,
  authorizationWebhookCacheUnauthorizedTTLMs: 30_000,
  enableDebuggingHandlers: true,
  enableSystemLogHandler: true,
  enableSystemLogQuery: false,
};

/** Without --config: upstream's legacy flag defaults (open). */
export const SERVER_FLAG_DEFAULTS = {
  ...COMMON,
  anonymousAuth: true,
  authenticationTokenWebhook: false,
  authorizationMode: "AlwaysAllow",
} as const;

/** With --config: the v1beta1 defaults (Webhook authentication and authorization). */
export const SERVER_FILE_DEFAULTS = {
  ...COMMON,
  anonymousAuth: false,
  authenticationTokenWebhook: true,
  authorizationMode: "Webhook",
} as const;
