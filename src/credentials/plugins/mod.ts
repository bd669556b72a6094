/**
 * Credential provider plugins (--image-credential-provider-config and
 * --image-credential-provider-bin-dir; upstream pkg/credentialprovider/plugin). Loaded by the
 * agent only when those flags are set. Each pod gets a keyring of every provider, asked after
 * its pull secrets; a provider that fails is logged and contributes nothing, as upstream.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { Clock } from "../../util/clock.ts";
import { errorMessage, type Logger } from "../../util/log.ts";
import { BasicKeyring, type Keyring } from "../keyring.ts";
import { ProviderConfigError, readProviderConfig, validateProviders } from "./_config.ts";
import { execPlugin, type PluginRunner } from "./_exec.ts";
import { PluginProvider, type PodInfo, type ServiceAccountSource } from "./provider.ts";

export { ProviderConfigError } from "./_config.ts";
export type { PluginRequest, PluginResponse, PluginRunner } from "./_exec.ts";
export type { PodInfo, ServiceAccountSource } from "./provider.ts";

export interface CredentialProvidersOptions {
  configPath: string;
  binDir: string;
  clock: Clock;
  logger: Logger;
  /** KubeletServiceAccountTokenForCredentialProviders; default true (beta upstream). */
  serviceAccountTokens?: boolean;
  /** ServiceAccounts and tokens (API mode); standalone, providers with tokenAttributes get none. */
  serviceAccounts?: ServiceAccountSource;
  /** Runs a plugin; default the exec protocol. */
  run?: PluginRunner;
}

export interface CredentialProviders {
  readonly names: string[];
  /** The providers as one keyring for `pod` (its service account for the token mode). */
  keyring(pod: V1Pod): Keyring;
}

/**
 * Reads and checks the config and the plugins' executables. Throws ProviderConfigError with
 * upstream's message: the agent does not start then, as the kubelet exits.
 */
export async function loadCredentialProviders(
  opts: CredentialProvidersOptions,
): Promise<CredentialProviders> {
  try {
    await Deno.stat(opts.binDir);
  } catch (err) {
    throw new ProviderConfigError(
      err instanceof Deno.errors.NotFound
        ? `plugin binary directory ${opts.binDir} did not exist`
        : `error inspecting binary directory ${opts.binDir}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  const config = await readProviderConfig(opts.configPath);
  const problems = validateProviders(config, opts.serviceAccountTokens ?? true);
  if (problems.length > 0) {
    const text = problems.length === 1 ? problems[0] : `[${problems.join(", ")}]`;
    throw new ProviderConfigError(`failed to validate credential provider config: ${text}`);
  }
  const log = opts.logger.child({ component: "credential-providers" });
  const providers: PluginProvider[] = [];
  for (const p of config) {
    const bin = `${opts.binDir}/${p.name}`;
    const info = await Deno.stat(bin).catch(() => undefined);
    if (!info?.isFile || ((info.mode ?? 0) & 0o111) === 0) {
      throw new ProviderConfigError(`plugin binary executable ${bin} did not exist`);
    }
    providers.push(
      new PluginProvider(p, {
        binDir: opts.binDir,
        clock: opts.clock,
        logger: log,
        run: opts.run ?? execPlugin,
        serviceAccounts: opts.serviceAccountTokens === false ? undefined : opts.serviceAccounts,
      }),
    );
    log.info("Registered credential provider", { provider: p.name });
  }
  return {
    names: providers.map((p) => p.provider.name),
    keyring: (pod) => podKeyring(providers, podInfo(pod), log),
  };
}

function podInfo(pod: V1Pod): PodInfo {
  return {
    namespace: pod.metadata?.namespace ?? "",
    name: pod.metadata?.name ?? "",
    uid: pod.metadata?.uid ?? "",
    serviceAccountName: pod.spec?.serviceAccountName ?? "",
  };
}

/** upstream externalCredentialProviderKeyring: every provider's answer in one keyring. */
function podKeyring(providers: PluginProvider[], pod: PodInfo, log: Logger): Keyring {
  return {
    async lookup(image) {
      const keyring = new BasicKeyring();
      for (const p of providers) {
        try {
          const { config, serviceAccount } = await p.provide(image, pod);
          await keyring.add(serviceAccount ? { serviceAccount } : undefined, config);
        } catch (err) {
          log.error("Failed to provide credentials for image", {
            provider: p.provider.name,
            image,
            pod: `${pod.namespace}/${pod.name}`,
            err,
          });
        }
      }
      return keyring.lookup(image);
    },
  };
}
