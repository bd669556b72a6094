/**
 * A value given for an upstream setting denolet does not implement, as the parsers record it.
 * The decisions themselves (`_upstream_check.ts` and its tables) are loaded only when such a
 * setting is given: most nodes give none, and the tables would otherwise stay in memory for the
 * agent's whole life. Hence this module holds no values, and `loadUpstreamTable` loads them.
 */

/** A value given by the file (decoded as Go would, so the table was loaded) or a flag. */
export type Given =
  | {
    /** The upstream field's JSON name. */
    field: string;
    /** `file: field`. */
    where: string;
    value: unknown;
    fromFile: true;
  }
  | {
    /** The upstream flag's name, without `--`. */
    flag: string;
    /** The flag as written. */
    where: string;
    /** As parsed, before the setting's `flagValue`. */
    value: unknown;
    fromFile: false;
  };

/** The upstream-settings table and what applies it. */
export type UpstreamTable = typeof import("./_upstream_check.ts");

/** Loads the upstream-settings table (a dynamic import: see the module comment). */
export function loadUpstreamTable(): Promise<UpstreamTable> {
  return import("./_upstream_check.ts");
}
