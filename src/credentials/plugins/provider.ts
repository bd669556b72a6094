/**
 * One credential provider plugin (upstream pluginProvider): asked only for images its
 * matchImages cover; its answers cached by the key type it names (the image, its registry, or
 * everything) for the duration it names (else the provider's default; 0: not cached); one run
 * at a time per image. In service-account-token mode the plugin gets a token of the pod's
 * service account (audience from the config) and the annotations it asks for, credentials are
 * attributed to that service account, and the cache is kept per service account (or per token).
 */
import type { Clock } from "../../util/clock.ts";
import { DenoletError } from "../../util/errors.ts";
import type { Logger } from "../../util/log.ts";
import { sha256Hex } from "../../util/digest.ts";
import { type Coordinates, type DockerConfig, urlsMatch } from "../keyring.ts";
import type { CredentialProvider } from "./_config.ts";
import type { PluginRunner } from "./_exec.ts";

const GLOBAL_CACHE_KEY = "<global>";

/** The pod a lookup is for (service-account-token mode). */
export interface PodInfo {
  namespace: string;
  name: string;
  uid: string;
  serviceAccountName: string;
}

/** The API objects the service-account-token mode reads. */
export interface ServiceAccountSource {
  /** The ServiceAccount's uid and annotations. */
  get(
    namespace: string,
    name: string,
  ): Promise<{ uid: string; annotations: Record<string, string> }>;
  /** A token of the pod's service account for `audience`, bound to the pod. */
  token(pod: PodInfo, audience: string): Promise<string>;
}

/** A provider could not answer; logged by the keyring, the lookup goes on without it. */
export class ProvideError extends DenoletError {}

interface CacheEntry {
  config: DockerConfig;
  expiresAt: number;
}

export interface PluginProviderDeps {
  binDir: string;
  clock: Clock;
  logger: Logger;
  run: PluginRunner;
  /** The API objects of the service-account-token mode; without, the mode is off. */
  serviceAccounts?: ServiceAccountSource;
}

/** Upstream cachePurgeInterval: expired entries are dropped this often. */
const CACHE_PURGE_INTERVAL_MS = 15 * 60_000;

export class PluginProvider {
  readonly provider: CredentialProvider;
  readonly #deps: PluginProviderDeps;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #inFlight = new Map<string, Promise<CacheEntry>>();
  #lastPurge: number;

  constructor(provider: CredentialProvider, deps: PluginProviderDeps) {
    this.provider = provider;
    this.#deps = deps;
    this.#lastPurge = deps.clock.now();
  }

  /** Whether the provider's matchImages cover `image` (a repository). */
  matches(image: string): boolean {
    return this.provider.matchImages.some((m) => urlsMatch(m, image));
  }

  /**
   * The plugin's credentials for `image` and, in service-account-token mode, the service
   * account they belong to. Empty when the provider does not serve the image or the pod;
   * throws ProvideError when the plugin or the API objects fail.
   */
  async provide(
    image: string,
    pod: PodInfo,
  ): Promise<{ config: DockerConfig; serviceAccount?: Coordinates }> {
    if (!this.matches(image)) return { config: new Map() };
    const ta = this.provider.tokenAttributes;
    let token: string | undefined;
    let annotations: Record<string, string> | undefined;
    let account: Coordinates | undefined;
    let accountKey = "";
    if (ta && this.#deps.serviceAccounts) {
      if (pod.serviceAccountName === "" && ta.requireServiceAccount) return { config: new Map() };
      if (pod.serviceAccountName !== "") {
        const sa = await this.#deps.serviceAccounts.get(pod.namespace, pod.serviceAccountName)
          .catch((err) => {
            throw new ProvideError(`failed to get service account: ${errorText(err)}`, {
              cause: err,
            });
          });
        annotations = {};
        for (const k of ta.requiredServiceAccountAnnotationKeys) {
          if (!(k in sa.annotations)) {
            this.#deps.logger.debug(5, "Service account lacks a required annotation", {
              provider: this.provider.name,
              annotation: k,
            });
            return { config: new Map() };
          }
          annotations[k] = sa.annotations[k];
        }
        for (const k of ta.optionalServiceAccountAnnotationKeys) {
          if (k in sa.annotations) annotations[k] = sa.annotations[k];
        }
        token = await this.#deps.serviceAccounts.token(pod, ta.serviceAccountTokenAudience)
          .catch((err) => {
            throw new ProvideError(`failed to get service account token: ${errorText(err)}`, {
              cause: err,
            });
          });
        account = { uid: sa.uid, namespace: pod.namespace, name: pod.serviceAccountName };
        const sorted = Object.keys(annotations).sort().map((k) => [k, annotations![k]]);
        const parts: unknown[] = [pod.namespace, pod.serviceAccountName, sa.uid, sorted];
        if (ta.cacheType === "Token") parts.push("token", await sha256Hex(token));
        accountKey = JSON.stringify(parts);
      }
    }

    const now = this.#deps.clock.now();
    if (now - this.#lastPurge > CACHE_PURGE_INTERVAL_MS) {
      for (const [k, e] of this.#cache) if (now > e.expiresAt) this.#cache.delete(k);
      this.#lastPurge = now;
    }
    for (const base of [image, registryOf(image), GLOBAL_CACHE_KEY]) {
      const hit = this.#cache.get(cacheKey(base, accountKey));
      if (hit && now <= hit.expiresAt) return { config: hit.config, serviceAccount: account };
      if (hit) this.#cache.delete(cacheKey(base, accountKey));
    }
    const flightKey = JSON.stringify([
      image,
      token ? await sha256Hex(token) : "",
      annotations ?? {},
    ]);
    let flight = this.#inFlight.get(flightKey);
    if (!flight) {
      flight = this.#run(image, { token, annotations, accountKey }).finally(() =>
        this.#inFlight.delete(flightKey)
      );
      this.#inFlight.set(flightKey, flight);
    }
    return { config: (await flight).config, serviceAccount: account };
  }

  async #run(
    image: string,
    req: { token?: string; annotations?: Record<string, string>; accountKey: string },
  ): Promise<CacheEntry> {
    const response = await this.#deps.run(this.provider, {
      image,
      serviceAccountToken: req.token,
      serviceAccountAnnotations: req.annotations,
    }, { binDir: this.#deps.binDir }).catch((err) => {
      throw new ProvideError(
        `failed to get credential from external registry credential provider: ${errorText(err)}`,
        { cause: err },
      );
    });
    const cacheType = this.provider.tokenAttributes?.cacheType;
    if (req.token && cacheType !== "Token") {
      if (Object.values(response.auth).some((a) => a.password === req.token)) {
        throw new ProvideError(
          "credential provider plugin returned the service account token as the password which " +
            "is not allowed when service account cache type is not set to 'Token'",
        );
      }
    }
    let base: string;
    if (response.cacheKeyType === "Image") base = image;
    else if (response.cacheKeyType === "Registry") base = registryOf(image);
    else if (response.cacheKeyType === "Global") base = GLOBAL_CACHE_KEY;
    else {
      throw new ProvideError(
        `credential provider plugin did not return a valid cacheKeyType: ${response.cacheKeyType}`,
      );
    }
    const config: DockerConfig = new Map(
      Object.entries(response.auth).map(([k, a]) => [k, { ...a, email: "" }]),
    );
    const duration = response.cacheDurationMs ?? this.provider.defaultCacheDurationMs ?? 0;
    const entry = { config, expiresAt: this.#deps.clock.now() + duration };
    if (duration > 0) this.#cache.set(cacheKey(base, req.accountKey), entry);
    return entry;
  }
}

function cacheKey(base: string, accountKey: string): string {
  return JSON.stringify([base, accountKey]);
}

/** The registry part of an image: what comes before the first `/` (upstream parseRegistry). */
function registryOf(image: string): string {
  return image.split("/")[0];
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
