/**
 * Byte quantities for emptyDir sizeLimit. Kept local so volumes does not reach into runtime's
 * private files; bytes rounded up, which is all a tmpfs size needs.
 */
import { ConfigError } from "../util/errors.ts";

const QUANTITY =
  /^(\+?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;
const SCALE: Record<string, number> = {
  "": 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A non-negative quantity in whole bytes (rounded up); throws ConfigError naming `field`. */
export function quantityBytes(q: string | number, field: string): number {
  const m = QUANTITY.exec(String(q));
  if (!m) throw new ConfigError(field, `cannot parse quantity ${JSON.stringify(q)}`);
  const v = Number(m[1]) * (m[2] !== undefined ? 10 ** Number(m[2]) : SCALE[m[3] ?? ""]);
  if (!Number.isFinite(v)) {
    throw new ConfigError(field, `quantity ${JSON.stringify(q)} is out of range`);
  }
  return Math.ceil(v);
}
