/**
 * The code of each declaration the proto codec generator writes (`proto_codec.ts`): an enum's
 * name tables, a message's encode and decode functions, a service definition for grpc-js. Where
 * the declarations go, and what each module imports, is `_proto_codec_modules.ts`.
 */
import protobuf from "protobufjs";

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

function enumCode(e: protobuf.Enum, pkg: string, exportNames: boolean): string[] {
  const id = ident(e, pkg);
  const names: string[] = [];
  for (const [name, n] of Object.entries(e.values)) names[n] = name;
  return [
    `/** ${e.fullName.slice(1)} */`,
    `export const ${id}_VALUES: Record<string, number> = ${JSON.stringify(e.values)};`,
    `${exportNames ? "export " : ""}const ${id}_NAMES: readonly string[] = ${
      JSON.stringify(names)
    };`,
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

/** One declaration of a generated codec: an enum's tables, a message's functions or a service. */
export interface Block {
  source: protobuf.Enum | protobuf.Type | protobuf.Service;
  /** The identifiers it declares. */
  declares: string[];
  /** Its code before deno fmt; the first line, a doc comment, is the only one at column 0. */
  lines: string[];
}

/**
 * The declarations `protoText` (the text of the file `proto`) generates: its enums, then its
 * messages, then its services, each in declaration order. `exportEnumNames` exports the tables
 * decoders read enum names from, for a codec whose messages are in other modules.
 */
export function codecBlocks(
  proto: string,
  protoText: string,
  opts: { exportEnumNames: boolean },
): Block[] {
  const { root, package: pkg } = protobuf.parse(protoText, { keepCase: false });
  if (!pkg) throw new Error(`${proto} has no package`);
  root.resolveAll();
  const pkgNs = root.lookup(pkg);
  if (!(pkgNs instanceof protobuf.Namespace)) throw new Error(`${proto}: no ${pkg}`);
  const p = `.${pkg}`;
  const objs = walk(pkgNs);
  const blocks: Block[] = [];
  for (const o of objs) {
    if (!(o instanceof protobuf.Enum)) continue;
    const id = ident(o, p);
    const lines = enumCode(o, p, opts.exportEnumNames);
    blocks.push({ source: o, declares: [`${id}_VALUES`, `${id}_NAMES`], lines });
  }
  for (const o of objs) {
    if (!(o instanceof protobuf.Type)) continue;
    const id = ident(o, p);
    blocks.push({ source: o, declares: [`encode${id}`, `decode${id}`], lines: messageCode(o, p) });
  }
  for (const o of objs) {
    if (o instanceof protobuf.Service) {
      blocks.push({ source: o, declares: [o.name], lines: serviceCode(o, p) });
    }
  }
  return blocks;
}
