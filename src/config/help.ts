import { BUILD_INFO } from "../build_info/mod.ts";
import { defaultConfig } from "./_defaults.ts";
import { type FlagDef, FLAGS } from "./_flag_table.ts";
import { formatDuration } from "./duration.ts";

/**
 * `denolet v0.1.0 (commit 1a2b3c4, kubelet-compatible)`: what --version prints. The commit is
 * baked in by `deno task compile`; from source it is "dev".
 */
export function versionText(): string {
  return `denolet v${BUILD_INFO.version} (commit ${BUILD_INFO.commit}, kubelet-compatible)`;
}

/** Usage text in pflag's layout, with the flag defaults (those that apply without --config). */
export function helpText(): string {
  // pflag lists flags by name; the table is kept in groups, so sort here.
  const sorted = FLAGS.toSorted((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rows = sorted.map((f) => [flagColumn(f), describe(f)] as const);
  const width = Math.max(...rows.map(([left]) => left.length)) + 3;
  const lines = rows.flatMap(([left, right]) =>
    wrap(right, LINE_WIDTH - width).map((part, i) => (i === 0 ? left : "").padEnd(width) + part)
  );
  return [
    `${versionText()}: runs pods from static manifests, or from an API server with ` +
    "--kubeconfig, through a CRI runtime (containerd).",
    "",
    "Usage:",
    "  denolet [flags]",
    "",
    "Flags:",
    ...lines,
    "",
  ].join("\n");
}

const LINE_WIDTH = 100;

/** pflag-style value names; the header map gets a readable name instead of its Go type. */
const TYPE_LABELS: Record<string, string> = { colonSeparatedMultimapStringString: "key:value" };

function flagColumn(f: FlagDef): string {
  const short = f.short ? `-${f.short}, ` : "    ";
  const label = f.name === "v" ? "Level" : f.type && (TYPE_LABELS[f.type] ?? f.type);
  return `  ${short}--${f.name}${label ? ` ${label}` : ""}`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  // "(default 1m0s)" stays on one line however wide the flag column grows.
  for (const word of text.split(/(?<!\(default) /)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines;
}

function describe(f: FlagDef): string {
  const def = defaultText(f);
  return def === undefined ? f.help : `${f.help} (default ${def})`;
}

function defaultText(f: FlagDef): string | undefined {
  if (f.field === undefined) return undefined;
  const value = defaultConfig({ withConfigFile: false })[f.field];
  if (f.type === "duration") return formatDuration(value as number);
  if (typeof value === "string") return value === "" ? undefined : JSON.stringify(value);
  if (typeof value === "number") return value === 0 ? undefined : String(value);
  return undefined;
}
