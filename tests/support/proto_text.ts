/**
 * Generates the TypeScript modules that carry the `.proto` files as text, so the agent needs no
 * file beside its code (a `deno bundle` of main.ts runs anywhere). proto-loader parses the text at
 * run time exactly as it parsed the file before.
 *
 *   deno run -A tests/support/proto_text.ts     # after editing anything under proto/
 *
 * `tests/support/proto_text_test.ts` fails when a generated module no longer matches its proto.
 */

const ROOT = new URL("../../", import.meta.url).pathname;

export interface EmbeddedProto {
  /** The proto file, relative to the repository root. */
  proto: string;
  /** The generated module, relative to the repository root. */
  module: string;
  /** The exported constant holding the text. */
  name: string;
}

export const EMBEDDED_PROTOS: readonly EmbeddedProto[] = [
  { proto: "proto/runtime/v1/api.proto", module: "src/cri/_proto_text.ts", name: "API_PROTO" },
  {
    proto: "proto/grpc/health/v1/health.proto",
    module: "src/prober/_health_proto_text.ts",
    name: "HEALTH_PROTO",
  },
];

/** The module for `text`: a template literal, so a proto change shows as a line-by-line diff. */
export function renderProtoModule(entry: EmbeddedProto, text: string): string {
  const escaped = text.replaceAll("\\", "\\\\").replaceAll("`", "\\`").replaceAll("${", "\\${");
  return [
    `// Generated from ${entry.proto} by tests/support/proto_text.ts; do not edit.`,
    "// Regenerate after changing the proto: deno run -A tests/support/proto_text.ts",
    "",
    `/** The text of ${entry.proto}, parsed by proto-loader at run time. */`,
    `export const ${entry.name}: string = \`${escaped}\`;`,
    "",
  ].join("\n");
}

/** The module `entry` should hold, from the proto on disk now (before deno fmt). */
export async function expectedModule(entry: EmbeddedProto, root = ROOT): Promise<string> {
  return renderProtoModule(entry, await protoText(entry, root));
}

/** Writes every generated module under `root`; returns the ones that changed. */
export async function generateProtoModules(root = ROOT): Promise<string[]> {
  const changed: string[] = [];
  for (const entry of EMBEDDED_PROTOS) {
    const want = await expectedModule(entry, root);
    const path = `${root}${entry.module}`;
    const have = await Deno.readTextFile(path).catch((err) => {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err;
    });
    if (have !== undefined && await moduleText(path, entry) === await protoText(entry, root)) {
      continue;
    }
    await Deno.writeTextFile(path, want);
    changed.push(entry.module);
  }
  if (changed.length > 0) {
    // deno fmt may wrap the first line; the test compares the text, not the bytes.
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["fmt", ...changed.map((m) => `${root}${m}`)],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`deno fmt failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return changed;
}

/** The text the proto file holds now. */
export function protoText(entry: EmbeddedProto, root = ROOT): Promise<string> {
  return Deno.readTextFile(`${root}${entry.proto}`);
}

/** The text a generated module exports (imported fresh, so a rewrite is seen). */
export async function moduleText(path: string, entry: EmbeddedProto): Promise<string> {
  const mod = await import(`file://${path}?t=${crypto.randomUUID()}`);
  const text = mod[entry.name];
  if (typeof text !== "string") throw new Error(`${path} does not export ${entry.name}`);
  return text;
}

if (import.meta.main) {
  const changed = await generateProtoModules();
  console.log(changed.length ? `wrote ${changed.join(", ")}` : "proto modules are up to date");
}
