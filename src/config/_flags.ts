/**
 * The command-line parser, with pflag's syntax
 * (`--flag=value`, `--flag value`, `-v=2`, `-v 2`, `-v2`, bare `--bool`, `--` ends the flags).
 * Values are type-checked while parsing, as pflag does, so a bad value fails before --help.
 */
import { ConfigError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { type FlagDef, FLAGS } from "./_flag_table.ts";
import { UPSTREAM_FLAGS } from "./_upstream_flags.ts";
import type { Given } from "./_upstream_given.ts";
import { closest } from "./_values.ts";
import type { AgentConfig } from "./types.ts";

export interface ParsedFlag {
  def: FlagDef;
  /** The flag as the user wrote it (`-v` or `--v`), for error messages. */
  spelled: string;
  value: unknown;
}

export interface ParsedArgs {
  /** Flags that set configuration, in command-line order. */
  flags: ParsedFlag[];
  configPath?: string;
  /** --config-dir: the drop-in directory. */
  configDir?: string;
  help: boolean;
  version: boolean;
  /** Values of the upstream flags denolet does not implement, for the table's decision. */
  upstream: Given[];
}

const BY_NAME = new Map(FLAGS.map((f) => [f.name, f]));
const BY_SHORT = new Map(FLAGS.filter((f) => f.short).map((f) => [f.short!, f]));

/** Splits argv into typed flag values. Throws ConfigError naming the flag as written. */
export function parseArgv(argv: readonly string[]): ParsedArgs {
  const out: ParsedArgs = { flags: [], help: false, version: false, upstream: [] };
  const take = (def: FlagDef, spelled: string, raw: string) => {
    let value: unknown;
    try {
      value = def.parse(raw);
    } catch (e) {
      throw new ConfigError(
        spelled,
        `invalid argument ${JSON.stringify(raw)}: ${errorMessage(e)}`,
        { cause: e },
      );
    }
    if (UPSTREAM_FLAGS.get(def.name) === def) {
      out.upstream.push({ flag: def.name, where: spelled, value, fromFile: false });
    } else if (def.name === "config") out.configPath = value as string;
    else if (def.name === "config-dir") out.configDir = value as string;
    else if (def.name === "help") out.help = value as boolean;
    else if (def.name === "version") out.version = value as boolean;
    else out.flags.push({ def, spelled, value });
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      if (i + 1 < argv.length) throw positional(argv[i + 1]);
      break;
    }
    if (!arg.startsWith("-") || arg === "-") throw positional(arg);

    if (arg.startsWith("--")) {
      const body = arg.slice(2);
      if (body.startsWith("-") || body.startsWith("=")) {
        throw new ConfigError(arg, "bad flag syntax");
      }
      const eq = body.indexOf("=");
      const name = eq < 0 ? body : body.slice(0, eq);
      const spelled = `--${name}`;
      const def = BY_NAME.get(name) ?? UPSTREAM_FLAGS.get(name);
      if (!def) throw unknownFlag(spelled, name);
      if (eq >= 0) take(def, spelled, body.slice(eq + 1));
      else if (def.type === undefined) take(def, spelled, "true");
      else if (i + 1 < argv.length) take(def, spelled, argv[++i]);
      else throw new ConfigError(spelled, "flag needs an argument");
      continue;
    }

    // Shorthand cluster, e.g. -h, -v=2, -v2, -v 2.
    const body = arg.slice(1);
    for (let j = 0; j < body.length;) {
      const c = body[j];
      const def = BY_SHORT.get(c);
      const spelled = `-${c}`;
      if (!def) throw new ConfigError(spelled, `unknown shorthand flag '${c}' in ${arg}`);
      const rest = body.slice(j + 1);
      if (rest.startsWith("=")) {
        take(def, spelled, rest.slice(1));
        j = body.length;
      } else if (def.type === undefined) {
        take(def, spelled, "true");
        j++;
      } else if (rest !== "") {
        take(def, spelled, rest);
        j = body.length;
      } else if (i + 1 < argv.length) {
        take(def, spelled, argv[++i]);
        j = body.length;
      } else {
        throw new ConfigError(spelled, "flag needs an argument");
      }
    }
  }
  return out;
}

/**
 * Applies parsed flags on top of `cfg` in command-line order (the last occurrence of a scalar flag
 * wins). Records in `origin` which flag set each field, for validation messages.
 */
export function applyFlags(
  cfg: AgentConfig,
  flags: readonly ParsedFlag[],
  origin: Map<keyof AgentConfig, string>,
): void {
  const seen = new Set<string>();
  for (const f of flags) {
    f.def.apply(cfg, f.value, !seen.has(f.def.name));
    seen.add(f.def.name);
    if (f.def.field) origin.set(f.def.field, f.spelled);
  }
}

function positional(arg: string): ConfigError {
  return new ConfigError(
    JSON.stringify(arg),
    "unexpected argument: denolet takes only flags (see --help)",
  );
}

function unknownFlag(spelled: string, name: string): ConfigError {
  const near = closest(name, [...BY_NAME.keys(), ...UPSTREAM_FLAGS.keys()]);
  const hint = near ? ` (did you mean --${near}?)` : "";
  return new ConfigError(spelled, `unknown flag${hint}`);
}
