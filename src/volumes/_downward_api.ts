/**
 * downwardAPI volumes (pkg/volume/downwardapi): pod fields and container resources as files,
 * on node disk. Needs no API server, so static pods have it too; the values come from the same
 * code as container env. The pod's labels and annotations can change while it runs: each sync
 * rewrites the files that changed.
 */
import type { V1DownwardAPIVolumeFile, V1Pod } from "@kubernetes/client-node";
import type { FileProjection } from "./_atomic_writer.ts";
import { aggregateErrors, DEFAULT_FILE_MODE } from "./_payload.ts";
import type { DownwardAPIValues, VolumePlugin } from "./_types.ts";

function containerNamed(pod: V1Pod, name: string | undefined) {
  if (!name) return undefined;
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]
    .find((c) => c.name === name);
}

/**
 * The files of downward API `items`. Every item is tried; failures are thrown together (one
 * error as itself) after the others were resolved, as upstream collects them.
 */
export function downwardAPIPayload(
  pod: V1Pod,
  items: V1DownwardAPIVolumeFile[],
  opts: { values: DownwardAPIValues; defaultMode: number; field: string },
): Map<string, FileProjection> {
  const out = new Map<string, FileProjection>();
  const errors: unknown[] = [];
  const enc = new TextEncoder();
  for (const item of items) {
    const field = `${opts.field}.items[${item.path}]`;
    const mode = item.mode ?? opts.defaultMode;
    try {
      let value = "";
      if (item.fieldRef) {
        value = opts.values.fieldValue(pod, { fieldPath: item.fieldRef.fieldPath, field });
      } else if (item.resourceFieldRef) {
        const selector = item.resourceFieldRef;
        value = opts.values.resourceValue(pod, {
          selector,
          container: containerNamed(pod, selector.containerName),
          field,
        });
      }
      out.set(item.path, { data: enc.encode(value), mode });
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length) throw aggregateErrors(errors);
  return out;
}

export function downwardAPIPlugin(values: DownwardAPIValues): VolumePlugin {
  return {
    kind: "downwardAPI",
    dirName: "kubernetes.io~downward-api",
    medium: "",
    payload: (pod, volume) => {
      const src = volume.downwardAPI ?? {};
      return Promise.resolve().then(() =>
        downwardAPIPayload(pod, src.items ?? [], {
          values,
          defaultMode: src.defaultMode ?? DEFAULT_FILE_MODE,
          field: `volume ${JSON.stringify(volume.name)}`,
        })
      );
    },
  };
}
