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
 */
import protobuf from "protobufjs";

const ROOT = new URL("../../", import.meta.url).pathname;

export interface GeneratedCodec {
  /** The proto file, relative to the repository root. */
  proto: string;
  /** The generated module, relative to the repository root. */
  module: string;
  /** Where the module imports the wire runtime from. */
  wire: string;
}

export const GENERATED_CODECS: readonly GeneratedCodec[] = [
  { proto: "proto/runtime/v1/api.proto", module: "src/cri/_codec.ts", wire: "./_wire.ts" },
  {
    proto: "proto/grpc/health/v1/health.proto",
    module: "src/prober/_health_codec.ts",
    wire: "../cri/mod.ts",
  },
];

/** Wire type and reader/writer method of each scalar the protos use. */
const SCALARS: Record<string, { wt: number; read: string; write: string; dflt: string }> = {
  string: { wt: 2, read: "r.string()", write: "string", dflt: '""' },
  bytes: { wt: 2, read: "r.bytes()", write: "bytes", dflt: "new Uint8Array(0)" },
  bool: { wt: 0, read: "r.bool()", write: "bool", dflt: "false" },
  int32: { wt: 0, read: "r.int32()", write: "int32", dflt: "0" },
  uint32: { wt: 0, read: "r.uint32()", write: "uint32", dflt: "0" },
  int64: { wt: 0, read: "r.int64()", write: "int64", dflt: "0" },
  uint64: { wt: 0, read: "r.int64(false)", write: "int64", dflt: "0" },
};

/** The TypeScript identifier of a type: its name within the package, dots removed. */
function ident(t: protobuf.ReflectionObject, pkg: string): string {
  return t.fullName.slice(pkg.length + 1).replaceAll(".", "_");
}

function isDefaultCheck(f: protobuf.Field): string {
  if (f.resolvedType instanceof protobuf.Enum) return "";
  switch (f.type) {
    case "string":
      return ' && v !== ""';
    case "bool":
      return " && v !== false";
    case "bytes":
      return " && v.length > 0";
    default:
      return " && v !== 0";
  }
}

function scalarOf(f: protobuf.Field, where: string): (typeof SCALARS)[string] {
  const s = SCALARS[f.type];
  if (!s) throw new Error(`${where}: field type ${f.type} is not supported by the generator`);
  return s;
}

function encodeField(f: protobuf.Field, pkg: string, where: string): string[] {
  const get = `(v = m.${f.name}) != null`;
  if (f.map) {
    const mf = f as unknown as protobuf.MapField;
    if (mf.keyType !== "string" || f.type !== "string") {
      throw new Error(`${where}: only map<string, string> is supported`);
    }
    return [`if (${get}) writeStringMap(w, ${f.id}, v);`];
  }
  const t = f.resolvedType;
  if (t instanceof protobuf.Type) {
    const enc = `encode${ident(t, pkg)}`;
    if (f.repeated) {
      return [
        `if (${get}) for (const x of v) { w.tag(${f.id}, 2); const at = w.open(); ${enc}(w, x); w.close(at); }`,
      ];
    }
    return [`if (${get}) { w.tag(${f.id}, 2); const at = w.open(); ${enc}(w, v); w.close(at); }`];
  }
  const value = (x: string) =>
    t instanceof protobuf.Enum
      ? `w.int32(enumValue(${ident(t, pkg)}_VALUES, ${x}, "${t.name}"))`
      : `w.${scalarOf(f, where).write}(${x})`;
  const wt = t instanceof protobuf.Enum ? 0 : scalarOf(f, where).wt;
  if (f.repeated) {
    if (wt === 0) {
      return [
        `if (${get} && v.length > 0) { w.tag(${f.id}, 2); const at = w.open(); for (const x of v) ${
          value("x")
        }; w.close(at); }`,
      ];
    }
    return [`if (${get}) for (const x of v) { w.tag(${f.id}, ${wt}); ${value("x")}; }`];
  }
  return [`if (${get}${isDefaultCheck(f)}) { w.tag(${f.id}, ${wt}); ${value("v")}; }`];
}

function decodeCases(f: protobuf.Field, pkg: string, where: string): string[] {
  const tag = (wt: number) => f.id * 8 + wt;
  if (f.map) return [`case ${tag(2)}: readStringMapEntry(r, m.${f.name}); break;`];
  const t = f.resolvedType;
  if (t instanceof protobuf.Type) {
    const dec = `decode${ident(t, pkg)}(r, r.end())`;
    return [
      f.repeated
        ? `case ${tag(2)}: m.${f.name}.push(${dec}); break;`
        : `case ${tag(2)}: m.${f.name} = ${dec}; break;`,
    ];
  }
  const read = t instanceof protobuf.Enum
    ? `enumName(${ident(t, pkg)}_NAMES, r.int32())`
    : scalarOf(f, where).read;
  const wt = t instanceof protobuf.Enum ? 0 : scalarOf(f, where).wt;
  if (!f.repeated) return [`case ${tag(wt)}: m.${f.name} = ${read}; break;`];
  if (wt !== 0) return [`case ${tag(wt)}: m.${f.name}.push(${read}); break;`];
  // Packed (proto3's default) and unpacked encodings are both valid on the wire.
  return [
    `case ${tag(0)}: m.${f.name}.push(${read}); break;`,
    `case ${tag(2)}: { const e = r.end(); while (r.pos < e) m.${f.name}.push(${read}); break; }`,
  ];
}

function defaultOf(f: protobuf.Field): string | undefined {
  if (f.map) return "{}";
  if (f.repeated) return "[]";
  const t = f.resolvedType;
  if (t instanceof protobuf.Type) return undefined;
  if (t instanceof protobuf.Enum) return JSON.stringify(Object.keys(t.values)[0]);
  return SCALARS[f.type]?.dflt;
}

function messageCode(t: protobuf.Type, pkg: string): string[] {
  const id = ident(t, pkg);
  const where = t.fullName;
  if (t.oneofsArray.length > 0) throw new Error(`${where}: oneofs are not supported`);
  const defaults = t.fieldsArray.flatMap((f) => {
    const d = defaultOf(f);
    return d === undefined ? [] : [`${f.name}: ${d}`];
  });
  const empty = t.fieldsArray.length === 0;
  const lines = [
    `/** ${t.fullName.slice(1)} */`,
    empty
      ? `export function encode${id}(_w: ProtoWriter, _m: Msg): void {`
      : `export function encode${id}(w: ProtoWriter, m: Msg): void {`,
  ];
  if (t.fieldsArray.length > 0) lines.push("  let v: any;");
  for (const f of t.fieldsArray) {
    lines.push(...encodeField(f, pkg, `${where}.${f.name}`).map((l) => `  ${l}`));
  }
  lines.push("}", "");
  lines.push(`export function decode${id}(r: ProtoReader, end: number): Msg {`);
  lines.push(`  const m: Msg = { ${defaults.join(", ")} };`);
  lines.push("  while (r.pos < end) {", "    const t = r.uint32();", "    switch (t) {");
  for (const f of t.fieldsArray) {
    lines.push(...decodeCases(f, pkg, `${where}.${f.name}`).map((l) => `      ${l}`));
  }
  lines.push("      default: r.skip(t & 7);", "    }", "  }", "  return m;", "}", "");
  return lines;
}

function enumCode(e: protobuf.Enum, pkg: string): string[] {
  const id = ident(e, pkg);
  const names: string[] = [];
  for (const [name, n] of Object.entries(e.values)) names[n] = name;
  return [
    `/** ${e.fullName.slice(1)} */`,
    `export const ${id}_VALUES: Record<string, number> = ${JSON.stringify(e.values)};`,
    `const ${id}_NAMES: readonly string[] = ${JSON.stringify(names)};`,
    "",
  ];
}

function serviceCode(s: protobuf.Service, pkg: string): string[] {
  const lines = [
    `/** ${s.fullName.slice(1)}, as grpc-js clients and servers take it. */`,
    `export const ${s.name}: ServiceDefinition = {`,
  ];
  for (const m of s.methodsArray) {
    if (m.requestStream) {
      throw new Error(`${s.fullName}.${m.name}: client-streaming RPCs are not supported`);
    }
    const req = ident(m.resolvedRequestType!, pkg);
    const res = ident(m.resolvedResponseType!, pkg);
    lines.push(
      `  ${m.name}: {`,
      `    path: "/${s.fullName.slice(1)}/${m.name}",`,
      "    requestStream: false,",
      `    responseStream: ${m.responseStream === true},`,
      `    requestSerialize: serializer(encode${req}),`,
      `    requestDeserialize: deserializer(decode${req}),`,
      `    responseSerialize: serializer(encode${res}),`,
      `    responseDeserialize: deserializer(decode${res}),`,
      `    originalName: "${m.name[0].toLowerCase()}${m.name.slice(1)}",`,
      "  },",
    );
  }
  lines.push("};", "");
  return lines;
}

/** All types, enums and services under `ns`, depth first in declaration order. */
function walk(ns: protobuf.NamespaceBase, out: protobuf.ReflectionObject[] = []) {
  for (const o of ns.nestedArray) {
    out.push(o);
    if (o instanceof protobuf.Namespace || o instanceof protobuf.Type) walk(o, out);
  }
  return out;
}

/** The module text for `entry` from the proto's text (before deno fmt). */
export function renderCodecModule(entry: GeneratedCodec, protoText: string): string {
  const { root, package: pkg } = protobuf.parse(protoText, { keepCase: false });
  if (!pkg) throw new Error(`${entry.proto} has no package`);
  root.resolveAll();
  const pkgNs = root.lookup(pkg);
  if (!(pkgNs instanceof protobuf.Namespace)) throw new Error(`${entry.proto}: no ${pkg}`);
  const body: string[] = [];
  const objs = walk(pkgNs);
  for (const o of objs) if (o instanceof protobuf.Enum) body.push(...enumCode(o, `.${pkg}`));
  for (const o of objs) if (o instanceof protobuf.Type) body.push(...messageCode(o, `.${pkg}`));
  for (const o of objs) if (o instanceof protobuf.Service) body.push(...serviceCode(o, `.${pkg}`));
  const wireNames = [
    "deserializer",
    "enumName",
    "enumValue",
    "type ProtoReader",
    "type ProtoWriter",
    "readStringMapEntry",
    "serializer",
    "writeStringMap",
  ];
  const usesMaps = objs.some((o) => o instanceof protobuf.Type && o.fieldsArray.some((f) => f.map));
  const imported = wireNames.filter((n) => usesMaps || !n.includes("StringMap"));
  return [
    `// Generated from ${entry.proto} by tests/support/proto_codec.ts; do not edit.`,
    "// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts",
    "// deno-lint-ignore-file no-explicit-any",
    "",
    `import type { ServiceDefinition } from "@grpc/grpc-js";`,
    `import { ${imported.join(", ")} } from "${entry.wire}";`,
    "",
    "/** A message as the agent passes it: plain fields in lowerCamelCase. */",
    "type Msg = Record<string, any>;",
    "",
    ...body,
  ].join("\n");
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

/** The module `entry` should hold, from the proto on disk now. */
export async function expectedModule(entry: GeneratedCodec, root = ROOT): Promise<string> {
  const proto = await Deno.readTextFile(`${root}${entry.proto}`);
  return await formatModule(renderCodecModule(entry, proto));
}

/** Writes every generated module under `root`; returns the ones that changed. */
export async function generateCodecModules(root = ROOT): Promise<string[]> {
  const changed: string[] = [];
  for (const entry of GENERATED_CODECS) {
    const want = await expectedModule(entry, root);
    const path = `${root}${entry.module}`;
    const have = await Deno.readTextFile(path).catch((err) => {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err;
    });
    if (have === want) continue;
    await Deno.writeTextFile(path, want);
    changed.push(entry.module);
  }
  return changed;
}

if (import.meta.main) {
  const changed = await generateCodecModules();
  console.log(changed.length ? `wrote ${changed.join(", ")}` : "codec modules are up to date");
}
