/**
 * The HTTPS node API on a free loopback port that authenticates by client certificate only
 * (no anonymous), for the X.509 v1 tests: its port, the CA of its serving certificate, what it
 * logged, and a stop.
 */
import { alwaysAllow, createAuthenticator, x509Authenticator } from "../../src/server/auth/mod.ts";
import { createSecureNodeApiHandler } from "../../src/server/secure_handler.ts";
import { serveSecureNodeApi } from "../../src/server/secure_serve.ts";
import { generateSelfSignedPair } from "../../src/server/tls/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";
import { fakeDeps, staticPod } from "./_fakes.ts";

export async function startCertOnlyNodeApi(clientCA: string) {
  const handler = createSecureNodeApiHandler({
    ...fakeDeps({ pods: () => [staticPod()] }),
    authenticate: createAuthenticator({ methods: [x509Authenticator()], anonymous: false }),
    authorizer: alwaysAllow,
  });
  const pair = await generateSelfSignedPair("node-a", { ips: ["127.0.0.1"], nowMs: Date.now() });
  const lines: string[] = [];
  const ac = new AbortController();
  const server = await serveSecureNodeApi(handler, {
    address: "127.0.0.1",
    port: 0,
    certificate: { cert: pair.certPem, key: pair.keyPem },
    clientCA,
    logger: createLogger({ verbosity: 0, write: (l) => lines.push(l) }),
    clock: realClock,
    signal: ac.signal,
  });
  return {
    port: server.port,
    // The CA is the second certificate of the file, as upstream writes it.
    servingCA: pair.certPem.slice(pair.certPem.indexOf("-----END CERTIFICATE-----") + 26),
    lines,
    async stop() {
      ac.abort();
      await server.finished;
    },
  };
}
