/**
 * Service-account tokens for pods (pkg/kubelet/token/token_manager.go): a TokenRequest
 * (`POST /api/v1/namespaces/<ns>/serviceaccounts/<sa>/token`) bound to the pod, cached by
 * service account, audience, lifetime and pod, and requested again once 80 % of its lifetime
 * (or 24 h) has passed, with a jitter of up to 10 s so pods do not refresh in lockstep. When a
 * refresh fails the cached token is used while it is still valid.
 *
 * With a checkpoint (edge autonomy), the cache is saved and loaded at start, so pods that start
 * while the API server cannot be reached get their tokens. A token that expired meanwhile is
 * still handed out while the API server is unreachable (it grants nothing, but lets the pod's
 * volume be set up); a refresh that failed is asked for again every 10 s (`dueForRefresh`), so
 * expired and due tokens are replaced soon after the API server is back.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { type ApiClient, ApiUnavailableError } from "../apiclient/mod.ts";
import type { CheckpointSlot, TokensCheckpoint } from "../checkpoint/types.ts";
import type { Clock } from "../util/clock.ts";
import { DenoletError, isKind } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import type { TokenRequestSpec } from "./types.ts";

const MAX_TTL_MS = 24 * 3600_000;
const MAX_JITTER_MS = 10_000;
/** After a failed refresh, the pod is reported due again this much later. */
export const TOKEN_RETRY_MS = 10_000;

interface TokenRequestAnswer {
  spec?: { expirationSeconds?: number };
  status?: { token?: string; expirationTimestamp?: string | Date };
}

interface Entry {
  podUid: string;
  token: string;
  /** When the token expires (ms since the epoch). */
  expiresAt: number;
  /** When it must be replaced: 80 % of its lifetime or 24 h, minus the jitter. */
  refreshAt: number;
  /** The refresh was reported by `dueForRefresh` already. */
  reported: boolean;
  /** A failed refresh: not reported due again before this time. */
  retryAt: number;
  /** Kept past its expiry while the API server cannot be reached (see the module comment). */
  keepExpired: boolean;
}

export interface TokenManagerDeps {
  client: ApiClient;
  clock: Clock;
  logger: Logger;
  /** Jitter source in [0, 1); default Math.random. */
  random?: () => number;
  /** The cache as last saved: loaded at start, saved after every change. */
  checkpoint?: CheckpointSlot<TokensCheckpoint>;
}

export class TokenManager {
  readonly #deps: TokenManagerDeps;
  readonly #cache = new Map<string, Entry>();

  constructor(deps: TokenManagerDeps) {
    this.#deps = deps;
    for (const t of deps.checkpoint?.take()?.tokens ?? []) {
      this.#cache.set(t.key, {
        podUid: t.podUid,
        token: t.token,
        expiresAt: t.expiresAt,
        refreshAt: t.refreshAt,
        reported: false,
        retryAt: 0,
        keepExpired: true,
      });
    }
  }

  /**
   * A token of the pod's service account for `spec`, bound to the pod: the cached one while it
   * needs no refresh, else a new one from the API server (the cached one if that fails and it
   * has not expired). Throws `failed to fetch token: ...` otherwise.
   */
  async get(
    pod: V1Pod,
    spec: TokenRequestSpec,
    opts: { signal?: AbortSignal } = {},
  ): Promise<string> {
    const m = pod.metadata ?? {};
    const namespace = m.namespace ?? "default";
    const account = pod.spec?.serviceAccountName || "default";
    const podUid = m.uid ?? "";
    const k = JSON.stringify([
      namespace,
      account,
      spec.audience ?? "",
      spec.expirationSeconds,
      podUid,
    ]);
    const now = this.#deps.clock.now();
    const cached = this.#cache.get(k);
    if (cached && now < cached.refreshAt) return cached.token;
    try {
      const answer = await this.#deps.client.request<TokenRequestAnswer>({
        method: "POST",
        path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${
          encodeURIComponent(account)
        }/token`,
        body: {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenRequest",
          spec: {
            // No audience: the API server's own, as upstream leaves the list empty.
            audiences: spec.audience ? [spec.audience] : undefined,
            expirationSeconds: spec.expirationSeconds,
            boundObjectRef: { apiVersion: "v1", kind: "Pod", name: m.name, uid: podUid },
          },
        },
      }, { signal: opts.signal });
      const entry = this.#entry(answer, { podUid, spec, now });
      this.#cache.set(k, entry);
      // The API server answers: expired tokens are no longer kept for an outage (the pods still
      // here get new ones at their next sync; those of pods gone are dropped).
      for (const e of this.#cache.values()) e.keepExpired = false;
      this.#save();
      return entry.token;
    } catch (err) {
      opts.signal?.throwIfAborted();
      const fields = { pod: `${namespace}/${m.name}`, serviceAccount: account, err };
      const unreachable = isKind(err, ApiUnavailableError);
      if (cached && (now < cached.expiresAt || unreachable)) {
        this.#deps.logger.warn(
          now < cached.expiresAt
            ? "Cannot refresh service account token; using the cached one"
            : "The API server cannot be reached; using the expired service account token",
          fields,
        );
        cached.keepExpired = unreachable;
        cached.retryAt = this.#deps.clock.monotonic() + TOKEN_RETRY_MS;
        cached.reported = false;
        return cached.token;
      }
      if (cached) cached.keepExpired = false;
      throw new DenoletError(`failed to fetch token: ${errorMessage(err)}`, { cause: err });
    }
  }

  /**
   * Pods with a cached token now due for a refresh, each reported once per token (the pod's
   * next volume set-up requests a new one). Cheap; meant for a periodic tick.
   */
  dueForRefresh(): string[] {
    const now = this.#deps.clock.now();
    const mono = this.#deps.clock.monotonic();
    const uids = new Set<string>();
    for (const e of this.#cache.values()) {
      // refreshAt is the API server's wall time; retryAt a monotonic back-off.
      if (e.reported || now < e.refreshAt || mono < e.retryAt) continue;
      e.reported = true;
      uids.add(e.podUid);
    }
    return [...uids];
  }

  /**
   * Drops expired tokens (upstream cleans up every minute), except those kept while the API
   * server cannot be reached.
   */
  cleanup(): void {
    const now = this.#deps.clock.now();
    this.#dropWhere((e) => now >= e.expiresAt && !e.keepExpired);
  }

  /** Drops the tokens bound to pod `uid`. */
  forgetPod(uid: string): void {
    this.#dropWhere((e) => e.podUid === uid);
  }

  #dropWhere(pred: (e: Entry) => boolean): void {
    let dropped = false;
    for (const [k, e] of this.#cache) {
      if (!pred(e)) continue;
      this.#cache.delete(k);
      dropped = true;
    }
    if (dropped) this.#save();
  }

  #save(): void {
    this.#deps.checkpoint?.schedule(() => ({
      tokens: [...this.#cache].map(([key, e]) => ({
        key,
        podUid: e.podUid,
        token: e.token,
        expiresAt: e.expiresAt,
        refreshAt: e.refreshAt,
      })),
    }));
  }

  /** Pod UIDs holding cached tokens. */
  pods(): string[] {
    return [...new Set([...this.#cache.values()].map((e) => e.podUid))];
  }

  #entry(
    answer: TokenRequestAnswer,
    ctx: { podUid: string; spec: TokenRequestSpec; now: number },
  ): Entry {
    const token = answer?.status?.token;
    const exp = answer?.status?.expirationTimestamp;
    const expiresAt = exp === undefined ? NaN : new Date(exp).getTime();
    if (!token || !Number.isFinite(expiresAt)) {
      throw new DenoletError("the TokenRequest answer has no token or expirationTimestamp");
    }
    // The lifetime the server granted (it may shorten the one asked for).
    const lifetimeMs = (answer.spec?.expirationSeconds ?? ctx.spec.expirationSeconds) * 1000;
    const issuedAt = expiresAt - lifetimeMs;
    const jitter = (this.#deps.random ?? Math.random)() * MAX_JITTER_MS;
    const refreshAt = Math.min(issuedAt + MAX_TTL_MS, expiresAt - lifetimeMs * 0.2) - jitter;
    return {
      podUid: ctx.podUid,
      token,
      expiresAt,
      refreshAt,
      reported: false,
      retryAt: 0,
      keepExpired: false,
    };
  }
}
