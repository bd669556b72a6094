/**
 * configMap volumes (pkg/volume/configmap): the ConfigMap's `data` and `binaryData` keys as
 * files, on node disk. A missing ConfigMap fails the set-up unless the volume is optional
 * (then the volume is empty); the watch-based cache keeps the files in step with the object.
 */
import type { V1ConfigMapProjection, V1Pod } from "@kubernetes/client-node";
import type { PodObjects } from "../objects/mod.ts";
import type { FileProjection } from "./_atomic_writer.ts";
import { decodeBase64, DEFAULT_FILE_MODE, keyPayload, objectKeys } from "./_payload.ts";
import type { VolumePlugin } from "./_types.ts";

/**
 * The files of one ConfigMap source (a volume's or a projected volume's). `source.name`
 * absent names the empty ConfigMap "", which never exists.
 */
export async function configMapPayload(
  pod: V1Pod,
  source: V1ConfigMapProjection,
  opts: { objects: Pick<PodObjects, "configMap">; defaultMode: number; signal?: AbortSignal },
): Promise<Map<string, FileProjection>> {
  const optional = source.optional === true;
  const data = await objectKeys(optional, async () => {
    const cm = await opts.objects.configMap(pod, source.name ?? "", { signal: opts.signal });
    const enc = new TextEncoder();
    const keys = new Map<string, Uint8Array>();
    for (const [k, v] of Object.entries(cm.data ?? {})) keys.set(k, enc.encode(v));
    for (const [k, v] of Object.entries(cm.binaryData ?? {})) keys.set(k, decodeBase64(v));
    return keys;
  });
  return keyPayload(data, {
    items: source.items,
    defaultMode: opts.defaultMode,
    optional,
    missingKey: (key) => `configmap references non-existent config key: ${key}`,
  });
}

export function configMapPlugin(objects: Pick<PodObjects, "configMap">): VolumePlugin {
  return {
    kind: "configMap",
    dirName: "kubernetes.io~configmap",
    medium: "",
    payload: (pod, volume, opts) => {
      const src = volume.configMap ?? {};
      return configMapPayload(pod, src, {
        objects,
        defaultMode: src.defaultMode ?? DEFAULT_FILE_MODE,
        signal: opts?.signal,
      });
    },
  };
}
