/**
 * secret volumes (pkg/volume/secret): the Secret's keys as files on a tmpfs, so secret bytes
 * never reach the node's disk. A missing Secret fails the set-up unless the volume is optional.
 */
import type { V1Pod, V1SecretProjection } from "@kubernetes/client-node";
import type { PodObjects } from "../objects/mod.ts";
import type { FileProjection } from "./_atomic_writer.ts";
import { decodeBase64, DEFAULT_FILE_MODE, keyPayload, objectKeys } from "./_payload.ts";
import type { VolumePlugin } from "./_types.ts";

/** The files of one Secret source (a volume's, as its `secretName`, or a projected one's). */
export async function secretPayload(
  pod: V1Pod,
  source: V1SecretProjection,
  opts: { objects: Pick<PodObjects, "secret">; defaultMode: number; signal?: AbortSignal },
): Promise<Map<string, FileProjection>> {
  const optional = source.optional === true;
  const data = await objectKeys(optional, async () => {
    const secret = await opts.objects.secret(pod, source.name ?? "", { signal: opts.signal });
    return new Map(Object.entries(secret.data ?? {}).map(([k, v]) => [k, decodeBase64(v)]));
  });
  return keyPayload(data, {
    items: source.items,
    defaultMode: opts.defaultMode,
    optional,
    missingKey: (key) => `references non-existent secret key: ${key}`,
  });
}

export function secretPlugin(objects: Pick<PodObjects, "secret">): VolumePlugin {
  return {
    kind: "secret",
    dirName: "kubernetes.io~secret",
    medium: "Memory",
    payload: (pod, volume, opts) => {
      const src = volume.secret ?? {};
      return secretPayload(pod, {
        name: src.secretName,
        items: src.items,
        optional: src.optional,
      }, {
        objects,
        defaultMode: src.defaultMode ?? DEFAULT_FILE_MODE,
        signal: opts?.signal,
      });
    },
  };
}
