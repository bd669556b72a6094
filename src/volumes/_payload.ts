/**
 * Payloads of key/value volumes (configmap.MakePayload, secret.MakePayload): every key as a file
 * named after it, or only the listed `items` at their paths, with `defaultMode` unless an item
 * sets its own `mode`.
 */
import { isKind, NotFoundError } from "../util/errors.ts";
import type { V1KeyToPath } from "@kubernetes/client-node";
import { DenoletError } from "../util/errors.ts";
import type { FileProjection } from "./_atomic_writer.ts";

/** Upstream's default for configMap, secret, downwardAPI and projected volumes. */
export const DEFAULT_FILE_MODE = 0o644;

/** A base64 value of a Secret's `data` or a ConfigMap's `binaryData`, as bytes. */
export function decodeBase64(value: string): Uint8Array {
  const bin = atob(value);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export interface KeyPayloadOptions {
  items?: V1KeyToPath[];
  defaultMode: number;
  /** A listed key that is missing is skipped instead of failing. */
  optional: boolean;
  /** The error message for a listed key that is missing. */
  missingKey: (key: string) => string;
}

/** The files for `data` (key to content). Throws DenoletError for a missing listed key. */
export function keyPayload(
  data: Map<string, Uint8Array>,
  opts: KeyPayloadOptions,
): Map<string, FileProjection> {
  const out = new Map<string, FileProjection>();
  if (!opts.items?.length) {
    for (const [key, bytes] of data) out.set(key, { data: bytes, mode: opts.defaultMode });
    return out;
  }
  for (const item of opts.items) {
    const bytes = data.get(item.key);
    if (bytes === undefined) {
      if (opts.optional) continue;
      throw new DenoletError(opts.missingKey(item.key));
    }
    out.set(item.path, { data: bytes, mode: item.mode ?? opts.defaultMode });
  }
  return out;
}

/**
 * Upstream's aggregate of several errors: one error stays itself (its kind intact), more become
 * one error listing their messages in brackets.
 */
export function aggregateErrors(errors: unknown[]): unknown {
  if (errors.length === 1) return errors[0];
  const msg = errors.map((e) => (e instanceof Error ? e.message : String(e))).join(", ");
  return new DenoletError(`[${msg}]`, { cause: errors[0] });
}

/**
 * The keys of an object a volume source names, read by `read`; no keys when the object is
 * missing and the source is optional (upstream: the volume is then empty).
 */
export async function objectKeys(
  optional: boolean,
  read: () => Promise<Map<string, Uint8Array>>,
): Promise<Map<string, Uint8Array>> {
  try {
    return await read();
  } catch (err) {
    if (optional && isKind(err, NotFoundError)) return new Map();
    throw err;
  }
}
