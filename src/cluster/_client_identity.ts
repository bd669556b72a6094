/**
 * Who the agent is towards the API server, as upstream's buildKubeletClientConfig decides it:
 * - rotateCertificates: a certificate manager holds the client certificate (the stored one, the
 *   kubeconfig's, or none yet) and every API client presents its current pair. Without a valid
 *   kubeconfig the bootstrap kubeconfig's credentials ask for the first certificate in the
 *   background, and the kubeconfig is written to point at `<certDir>/kubelet-client-current.pem`.
 *   A new certificate closes every connection so that each one moves to it; with none valid for
 *   five minutes while the API server answers, the agent fails (a supervisor restarts it with
 *   whatever credentials were laid down meanwhile), as upstream's exits.
 * - --bootstrap-kubeconfig alone: the certificate is asked for before anything starts, and the
 *   kubeconfig written then is used as it is.
 * - neither: the kubeconfig as it is.
 */
import {
  type ApiClient,
  type ApiClientOptions,
  type Connection,
  createApiClient,
  loadKubeconfig,
} from "../apiclient/mod.ts";
import {
  CertificateFileStore,
  CertificateManager,
  CLIENT_PREFIX,
  isClientConfigStillValid,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  kubeletClientUsages,
  loadClientCert,
  nodeClientTemplate,
  writeKubeconfigFromBootstrap,
} from "../certificate/mod.ts";
import type { AgentConfig } from "../config/types.ts";
import type { Clock } from "../util/clock.ts";
import { DenoletError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";

/** Upstream's exitAfter: no valid client certificate for this long ends the agent. */
const NO_CERTIFICATE_EXIT_MS = 5 * 60_000;
/** How often the certificate's presence is checked (upstream's transport check period). */
const CHECK_MS = 10_000;

/** No client certificate could be had; the agent stops so that its supervisor starts it again. */
export class ClientCertificateError extends DenoletError {}

export interface ClientIdentity {
  /** What every API client of the agent connects with. */
  connection: Connection;
  /**
   * With rotateCertificates: keeps the certificate, moves `clients` to each new one, and calls
   * `fail` when there has been none for five minutes. Resolves when the signal aborts.
   */
  run?(
    clients: ApiClient[],
    opts: { signal: AbortSignal; fail: (e: Error) => void },
  ): Promise<void>;
  close(): void;
}

export interface ClientIdentityDeps {
  config: AgentConfig;
  clock: Clock;
  logger: Logger;
  /** Options for the API clients made here (the CSR clients). */
  clientOptions: ApiClientOptions;
  signal: AbortSignal;
}

/** Throws KubeconfigError or BootstrapError naming the file at fault. */
export async function clientIdentity(deps: ClientIdentityDeps): Promise<ClientIdentity> {
  const { config, logger } = deps;
  const connect = (c: Connection) => createApiClient(c, deps.clientOptions);
  if (!config.rotateCertificates) {
    if (config.bootstrapKubeconfig) {
      await loadClientCert({
        kubeconfig: config.kubeconfig,
        bootstrapKubeconfig: config.bootstrapKubeconfig,
        certDir: config.certDir,
        nodeName: config.nodeName,
        clock: deps.clock,
        logger,
        connect,
        load: (p) => loadKubeconfig(p),
        hint: csrHint,
        signal: deps.signal,
      });
    }
    return { connection: await loadKubeconfig(config.kubeconfig), close() {} };
  }
  return await rotatingIdentity(deps, connect);
}

async function rotatingIdentity(
  deps: ClientIdentityDeps,
  connect: (c: Connection) => ApiClient,
): Promise<ClientIdentity> {
  const { config, clock, logger } = deps;
  logger.info("Client rotation is on, will bootstrap in background");
  const currentPath = new CertificateFileStore({
    prefix: CLIENT_PREFIX,
    dir: config.certDir,
    now: () => clock.now(),
  }).currentPath;
  // Upstream LoadClientConfig: the kubeconfig while it is valid (it also asks for the next
  // certificate); otherwise one written to use the store's current pair, whose first
  // certificate the bootstrap credentials ask for.
  let userConfig: Connection;
  let certConfig: Connection;
  let bootstrap: Connection | undefined;
  const valid = await isClientConfigStillValid(config.kubeconfig, { now: clock.now(), logger });
  if (config.bootstrapKubeconfig === "" || valid) {
    certConfig = userConfig = await loadKubeconfig(config.kubeconfig);
    // Kept for when the certificate expires while the agent runs: upstream would then ask with
    // the expired one, which the API server refuses.
    if (config.bootstrapKubeconfig !== "") {
      bootstrap = await loadKubeconfig(config.bootstrapKubeconfig).catch((err) => {
        logger.warn(
          "Cannot load the bootstrap kubeconfig; an expired certificate cannot be renewed",
          {
            err: errorMessage(err),
          },
        );
        return undefined;
      });
    }
  } else {
    certConfig = bootstrap = await loadKubeconfig(config.bootstrapKubeconfig);
    await writeKubeconfigFromBootstrap(config.bootstrapKubeconfig, {
      kubeconfig: config.kubeconfig,
      pemPath: currentPath,
    });
    logger.info("Wrote a kubeconfig that uses the client certificate to come", {
      kubeconfig: config.kubeconfig,
      certificate: currentPath,
    });
    userConfig = await loadKubeconfig(config.kubeconfig, { anonymous: true });
  }
  const store = new CertificateFileStore({
    prefix: CLIENT_PREFIX,
    dir: config.certDir,
    certFile: userConfig.clientCertFile,
    keyFile: userConfig.clientKeyFile,
    now: () => clock.now(),
  });
  const manager = await CertificateManager.open({
    name: CLIENT_PREFIX,
    store,
    signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
    template: () => nodeClientTemplate(config.nodeName),
    usages: kubeletClientUsages,
    // kubeadm's control-plane kubeconfig carries its pair inline: it is stored and rotated out.
    bootstrap: userConfig.clientCert && userConfig.clientKey && !userConfig.clientCertFile
      ? { certPem: userConfig.clientCert, keyPem: userConfig.clientKey }
      : undefined,
    client: (current) => current ? nodeClient() : bootstrapClient(),
    clock,
    logger,
    hint: csrHint,
  }).catch((err) => {
    throw new ClientCertificateError(`Cannot read the client certificate: ${errorMessage(err)}`, {
      cause: err,
    });
  });
  // The manager's pair replaces whatever the kubeconfig names (upstream AnonymousClientConfig).
  const certificate = () => {
    const pair = manager.current();
    return pair && { cert: pair.certPem, key: pair.keyPem };
  };
  const { server, namespace, caCert } = userConfig;
  const connection: Connection = { server, namespace, caCert, certificate };
  let ownClients: { node?: ApiClient; bootstrap?: ApiClient } = {};
  const nodeClient = () => (ownClients.node ??= connect(connection));
  // Without a valid certificate: the bootstrap credentials when given, else the kubeconfig's own.
  const bootstrapClient = () => (ownClients.bootstrap ??= connect(bootstrap ?? certConfig));
  return {
    connection,
    async run(clients, { signal, fail }) {
      manager.onRotate(() => {
        logger.info(
          "Certificate rotation detected, shutting down client connections to start using new credentials",
        );
        for (const c of [...clients, nodeClient()]) {
          c.closeConnections?.("the client certificate was rotated");
        }
      });
      let lastAvailable = clock.now();
      clock.every(CHECK_MS, () => {
        if (manager.current()) {
          lastAvailable = clock.now();
          return;
        }
        if (clock.now() - lastAvailable <= NO_CERTIFICATE_EXIT_MS) return;
        if (manager.serverHealthy) {
          fail(
            new ClientCertificateError(
              "No valid client certificate is found and the server is responsive, exiting: " +
                "give a --bootstrap-kubeconfig whose token the API server accepts, or a " +
                "--kubeconfig with a valid certificate",
            ),
          );
        } else {
          logger.error(
            "No valid client certificate is found but the server is not responsive. A restart " +
              "may be necessary to retrieve new initial credentials.",
            { since: new Date(lastAvailable).toISOString() },
          );
        }
      }, { signal });
      await manager.run({ signal });
    },
    close() {
      ownClients.node?.close();
      ownClients.bootstrap?.close();
      ownClients = {};
    },
  };
}

/** What to do about a CSR that is stuck, for the log line that says so. */
export function csrHint(csr: string, what: "denied" | "not approved" | "not issued"): string {
  switch (what) {
    case "denied":
      return `A new request follows; approve it with 'kubectl certificate approve <name>' once ` +
        `it is there, or find out why ${csr} was denied (kubectl describe csr ${csr}).`;
    case "not approved":
      return `Approve it with 'kubectl certificate approve ${csr}', or let kube-controller-` +
        "manager's csrapproving controller do so: it approves node client certificates when the " +
        "requester may create certificatesigningrequests/nodeclient (bind the bootstrap token's " +
        "group to ClusterRole system:certificates.k8s.io:certificatesigningrequests:nodeclient) " +
        "or, for renewals, /selfnodeclient (system:nodes to ...:selfnodeclient), as kubeadm does.";
    case "not issued":
      return `${csr} is approved but no certificate came: is a signer running (kube-controller-` +
        "manager with --cluster-signing-cert-file and --cluster-signing-key-file)?";
  }
}
