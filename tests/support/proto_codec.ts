/**
 * Generates the agent's static protobuf codecs from `proto/`: one encode and one decode function
 * per message, enum name tables, and the gRPC service definitions grpc-js takes, over the small
 * wire runtime in `src/cri/_wire.ts`. At run time nothing parses a `.proto` and no reflection
 * library is loaded (issue 14: proto-loader and protobufjs cost ~12 MB of idle memory).
 *
 *   deno run -A tests/support/proto_codec.ts     # after editing anything under proto/
 *
 * `tests/support/proto_codec_test.ts` fails when a generated module no longer matches its proto,
 * and checks the codecs byte for byte against protobufjs (used here, at build time only).
 *
 * Decoded messages have the shapes proto-loader gave with `defaults: true` (then stripped of
 * nulls): every scalar, repeated and map field present with its default, enums as value names,
 * int64 as numbers, bytes as Uint8Array, and unset sub-messages absent.
 *
 * A codec too long for one module (the CRI's) is a folder of modules named like the module, which
 * re-exports them (`_proto_codec_modules.ts`); the code of each declaration is
 * `_proto_codec_blocks.ts`.
 */
import { type Block, codecBlocks } from "./_proto_codec_blocks.ts";
import { barrelText, type GroupRule, moduleTexts, planModules } from "./_proto_codec_modules.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The project's limit for a source file, and the length the generator aims a module at. */
const MAX_MODULE_LINES = 400;
const MODULE_BUDGET = 350;

/** The CSI codec's modules: the Identity service, staging, publishing, the rest of Node. */
const CSI_GROUPS: readonly GroupRule[] = [
  { group: "plugin", rpcs: /^Identity\./ },
  { group: "stage", rpcs: /Stage/ },
  { group: "publish", rpcs: /Publish/ },
  { group: "volumes", rpcs: /./ },
];

export interface GeneratedCodec {
  /** The proto file, relative to the repository root. */
  proto: string;
  /** The generated module, relative to the repository root. */
  module: string;
  /** Where the codec's modules import the wire runtime from. */
  wire: string;
  /**
   * For a codec split into modules: the groups of RPCs whose messages share a module. The modules
   * go in a folder named like `module` without `.ts`, and `module` re-exports them.
   */
  split?: readonly GroupRule[];
}

/**
 * The CRI codec's modules: the first rule matching an RPC (`Service.Method`) names its group, and
 * each message goes with the first RPC in api.proto that reaches it.
 */
const CRI_GROUPS: readonly GroupRule[] = [
  { group: "image", rpcs: /^ImageService\./ },
  { group: "stats", rpcs: /Stats$/ },
  { group: "streaming", rpcs: /\.(ExecSync|Exec|Attach|PortForward)$/ },
  { group: "events", rpcs: /Events$/ },
  { group: "sandbox", rpcs: /PodSandbox/ },
  { group: "container", rpcs: /Container/ },
  { group: "runtime", rpcs: /./ },
];

export const GENERATED_CODECS: readonly GeneratedCodec[] = [
  {
    proto: "proto/runtime/v1/api.proto",
    module: "src/cri/_codec.ts",
    wire: "../_wire.ts",
    split: CRI_GROUPS,
  },
  {
    proto: "proto/grpc/health/v1/health.proto",
    module: "src/prober/_health_codec.ts",
    wire: "../cri/mod.ts",
  },
  {
    proto: "proto/csi/v1/csi.proto",
    module: "src/csi/_csi_codec.ts",
    wire: "../../cri/mod.ts",
    split: CSI_GROUPS,
  },
  {
    proto: "proto/pluginregistration/v1/api.proto",
    module: "src/csi/_registration_codec.ts",
    wire: "../cri/mod.ts",
  },
];

/** Each block's length once deno fmt has written it. */
async function formattedLines(blocks: Block[]): Promise<Map<Block, number>> {
  const text = await formatModule(blocks.map((b) => b.lines.join("\n")).join("\n"));
  // Each block starts with its doc comment, the only line of it at column 0 that opens one.
  const starts = text.split("\n").flatMap((line, i) => line.startsWith("/**") ? [i] : []);
  if (starts.length !== blocks.length) {
    throw new Error("cannot find each declaration in fmt's text");
  }
  starts.push(text.split("\n").length - 1);
  return new Map(blocks.map((b, i) => [b, starts[i + 1] - starts[i]]));
}

/** The folder of a split codec's modules: its module's path without `.ts`. */
function splitDir(entry: GeneratedCodec): string {
  return entry.module.replace(/\.ts$/, "");
}

/**
 * The modules (paths relative to the repository root, and formatted texts) that `entry`
 * generates from its proto's text. Throws if a module would reach the project's 400 lines.
 */
export async function renderCodecModules(
  entry: GeneratedCodec,
  protoText: string,
): Promise<Map<string, string>> {
  const opts = { proto: entry.proto, wire: entry.wire };
  const blocks = codecBlocks(entry.proto, protoText, {
    exportEnumNames: entry.split !== undefined,
  });
  const texts = new Map<string, string>();
  if (entry.split === undefined) {
    texts.set(entry.module, moduleTexts([{ name: entry.module, blocks }], opts)[0]);
  } else {
    const dir = splitDir(entry);
    const plans = planModules(blocks, entry.split, {
      lines: await formattedLines(blocks),
      budget: MODULE_BUDGET,
    });
    texts.set(
      entry.module,
      barrelText(plans, { proto: entry.proto, dir: dir.replace(/.*\//, "") }),
    );
    moduleTexts(plans, opts).forEach((text, i) => texts.set(`${dir}/${plans[i].name}.ts`, text));
  }
  const formatted = await Promise.all([...texts.values()].map(formatModule));
  const modules = new Map([...texts.keys()].map((path, i) => [path, formatted[i]]));
  for (const [path, text] of modules) {
    const lines = text.split("\n").length - 1;
    if (lines >= MAX_MODULE_LINES) {
      throw new Error(`${path} would be ${lines} lines, over the limit of ${MAX_MODULE_LINES}`);
    }
  }
  return modules;
}

/** Formats module text as deno fmt would write it (the committed files are formatted). */
export async function formatModule(text: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--config", `${ROOT}deno.json`, "--ext", "ts", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`deno fmt failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** The modules `entry` generates from the proto on disk now. */
export async function expectedModules(
  entry: GeneratedCodec,
  root = ROOT,
): Promise<Map<string, string>> {
  const proto = await Deno.readTextFile(`${root}${entry.proto}`);
  return await renderCodecModules(entry, proto);
}

/** A generated module that differs from what its proto generates now. */
export interface CodecDrift {
  /** Relative to the repository root. */
  path: string;
  problem: "stale" | "missing" | "extra";
  /** What the module should hold; none for a file the generator no longer writes. */
  want?: string;
}

/** What `p` resolves to, or undefined where it fails because a path does not exist. */
async function ifFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/** How the modules of `entry` under `root` differ from what its proto generates now. */
export async function codecDrift(entry: GeneratedCodec, root = ROOT): Promise<CodecDrift[]> {
  const want = await expectedModules(entry, root);
  const drift: CodecDrift[] = [];
  for (const [path, text] of want) {
    const have = await ifFound(Deno.readTextFile(`${root}${path}`));
    if (have === text) continue;
    drift.push({ path, problem: have === undefined ? "missing" : "stale", want: text });
  }
  if (entry.split === undefined) return drift;
  const dir = splitDir(entry);
  const files = await ifFound(Array.fromAsync(Deno.readDir(`${root}${dir}`))) ?? [];
  const extra = files.map((f) => `${dir}/${f.name}`).filter((path) => !want.has(path)).sort();
  return [...drift, ...extra.map((path) => ({ path, problem: "extra" as const }))];
}

/** Writes every generated module under `root` and removes stale ones; returns what changed. */
export async function generateCodecModules(root = ROOT): Promise<string[]> {
  const changed: string[] = [];
  for (const entry of GENERATED_CODECS) {
    for (const { path, want } of await codecDrift(entry, root)) {
      if (want === undefined) {
        await Deno.remove(`${root}${path}`, { recursive: true });
      } else {
        await Deno.mkdir(`${root}${path.replace(/\/[^/]+$/, "")}`, { recursive: true });
        await Deno.writeTextFile(`${root}${path}`, want);
      }
      changed.push(path);
    }
  }
  return changed;
}

if (import.meta.main) {
  const changed = await generateCodecModules();
  console.log(changed.length ? `updated ${changed.join(", ")}` : "codec modules are up to date");
}
