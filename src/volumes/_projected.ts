/**
 * projected volumes (pkg/volume/projected): several sources in one directory, on a tmpfs as
 * upstream (a service-account token is a credential). Sources: `serviceAccountToken` (a
 * TokenRequest bound to the pod, refreshed at 80 % of its lifetime), `configMap`, `secret` and
 * `downwardAPI`. The API server injects one as `kube-api-access-*` into every pod that mounts
 * its service account's token.
 */
import type { V1Pod, V1VolumeProjection } from "@kubernetes/client-node";
import type { PodObjects } from "../objects/mod.ts";
import { DenoletError } from "../util/errors.ts";
import type { FileProjection } from "./_atomic_writer.ts";
import { configMapPayload } from "./_configmap.ts";
import { downwardAPIPayload } from "./_downward_api.ts";
import { podFsGroup, podFsUser } from "./_ownership.ts";
import { aggregateErrors, DEFAULT_FILE_MODE } from "./_payload.ts";
import { secretPayload } from "./_secret.ts";
import type { DownwardAPIValues, VolumePlugin } from "./_types.ts";

/** Upstream's default lifetime of a projected token (the API defaults it too). */
const DEFAULT_TOKEN_SECONDS = 3600;

export interface ProjectedPluginDeps {
  objects: PodObjects;
  downward: DownwardAPIValues;
}

async function sourcePayload(
  pod: V1Pod,
  source: V1VolumeProjection,
  ctx: ProjectedPluginDeps & { defaultMode: number; field: string; signal?: AbortSignal },
): Promise<Map<string, FileProjection>> {
  const { objects, defaultMode, signal } = ctx;
  if (source.secret) {
    return await secretPayload(pod, source.secret, { objects, defaultMode, signal });
  }
  if (source.configMap) {
    return await configMapPayload(pod, source.configMap, { objects, defaultMode, signal });
  }
  if (source.downwardAPI) {
    return downwardAPIPayload(pod, source.downwardAPI.items ?? [], {
      values: ctx.downward,
      defaultMode,
      field: ctx.field,
    });
  }
  if (source.serviceAccountToken) {
    const tp = source.serviceAccountToken;
    const token = await objects.serviceAccountToken(pod, {
      audience: tp.audience,
      expirationSeconds: tp.expirationSeconds ?? DEFAULT_TOKEN_SECONDS,
    }, { signal });
    // As upstream: a credential is the runAsUser's alone (0600), or its group's too when the
    // fsGroup adds group read (0640); defaultMode only when the pod names neither.
    const owner = podFsUser(pod);
    const mode = owner !== undefined || podFsGroup(pod) !== undefined ? 0o600 : defaultMode;
    return new Map([[tp.path, { data: new TextEncoder().encode(token), mode, owner }]]);
  }
  const kind = Object.keys(source).find((k) => (source as Record<string, unknown>)[k] != null);
  throw new DenoletError(`projected source ${kind ?? "(empty)"} is not supported`);
}

export function projectedPlugin(deps: ProjectedPluginDeps): VolumePlugin {
  return {
    kind: "projected",
    dirName: "kubernetes.io~projected",
    medium: "Memory",
    async payload(pod, volume, opts) {
      const src = volume.projected ?? {};
      const ctx = {
        ...deps,
        defaultMode: src.defaultMode ?? DEFAULT_FILE_MODE,
        field: `volume ${JSON.stringify(volume.name)}`,
        signal: opts?.signal,
      };
      const out = new Map<string, FileProjection>();
      const errors: unknown[] = [];
      // Every source is tried (upstream collects their errors); later ones win a path clash.
      for (const source of src.sources ?? []) {
        try {
          for (const [path, file] of await sourcePayload(pod, source, ctx)) out.set(path, file);
        } catch (err) {
          opts?.signal?.throwIfAborted();
          errors.push(err);
        }
      }
      if (errors.length) throw aggregateErrors(errors);
      return out;
    },
  };
}
