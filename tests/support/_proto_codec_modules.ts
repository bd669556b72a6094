/**
 * Where the proto codec generator (`proto_codec.ts`) puts each declaration, and what each module
 * then imports. A small proto's codec is one module. A large one's (the CRI's) is a folder: the
 * enums' tables, one module per group of RPCs holding the messages those RPCs reach first (a group
 * still too long cut into parts), and the service definitions. Each module imports from its
 * siblings exactly the functions and tables it uses. Siblings import each other in cycles; that is
 * safe because every cross-module use is of a function declaration (ready before any module runs)
 * or of an enum table read only inside a function.
 */
import protobuf from "protobufjs";
import type { Block } from "./_proto_codec_blocks.ts";

/** The RPCs (`Service.Method`) that `rpcs` matches put the messages they reach first in `group`. */
export interface GroupRule {
  group: string;
  rpcs: RegExp;
}

/** A module's name (its file is `<name>.ts`) and its declarations, in proto order. */
export interface ModulePlan {
  name: string;
  blocks: Block[];
}

/** The module of the enums' tables, and that of the messages no RPC reaches. */
const ENUMS = "enums";
const OTHER = "other";

/** What the wire runtime exports for the codecs, in the order the modules import it. */
const WIRE_NAMES = [
  "deserializer",
  "enumName",
  "enumValue",
  "ProtoReader",
  "ProtoWriter",
  "readStringMapEntry",
  "serializer",
  "writeStringMap",
];
const WIRE_TYPES = new Set(["ProtoReader", "ProtoWriter"]);

/** The lines every generated module starts with. */
export function generatedHeader(proto: string): string[] {
  return [
    `// Generated from ${proto} by tests/support/proto_codec.ts; do not edit.`,
    "// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts",
  ];
}

/** The identifiers a block's code names, leaving out its comments and string literals. */
function namesUsed(block: Block): Set<string> {
  const code = block.lines.join("\n").replace(/\/\*.*?\*\//g, "").replace(/"(?:[^"\\]|\\.)*"/g, "");
  return new Set(code.match(/[A-Za-z_$][\w$]*/g));
}

/** A service's module: its name in snake_case (`RuntimeService` is `runtime_service`). */
function serviceModule(s: protobuf.Service): string {
  return s.name.replace(/(?<=[a-z0-9])(?=[A-Z])/g, "_").toLowerCase();
}

/**
 * The groups of a split codec, in module order: the enums, each message in the group of the first
 * RPC in the proto that reaches it (through its request's or response's fields), each service.
 */
function groupBlocks(blocks: Block[], rules: readonly GroupRule[]): Map<string, Block[]> {
  const services = blocks.flatMap((b) => b.source instanceof protobuf.Service ? [b.source] : []);
  const reserved = new Set([ENUMS, OTHER, ...services.map(serviceModule)]);
  for (const r of rules) {
    if (reserved.has(r.group)) throw new Error(`the module name "${r.group}" is taken`);
  }
  const groupOf = new Map<protobuf.Type, string>();
  const reach = (t: protobuf.Type, group: string) => {
    if (groupOf.has(t)) return;
    groupOf.set(t, group);
    for (const f of t.fieldsArray) {
      if (f.resolvedType instanceof protobuf.Type) reach(f.resolvedType, group);
    }
  };
  for (const s of services) {
    for (const m of s.methodsArray) {
      const rpc = `${s.name}.${m.name}`;
      const rule = rules.find((r) => r.rpcs.test(rpc));
      if (!rule) throw new Error(`${rpc}: no group of the codec's modules takes it`);
      reach(m.resolvedRequestType!, rule.group);
      reach(m.resolvedResponseType!, rule.group);
    }
  }
  // The groups of messages in the order of their first RPCs.
  const order = [ENUMS, ...new Set(groupOf.values()), OTHER, ...services.map(serviceModule)];
  const groups = new Map<string, Block[]>(order.map((g) => [g, []]));
  for (const b of blocks) {
    const s = b.source;
    const group = s instanceof protobuf.Enum
      ? ENUMS
      : s instanceof protobuf.Service
      ? serviceModule(s)
      : groupOf.get(s) ?? OTHER;
    groups.get(group)!.push(b);
  }
  for (const [g, list] of groups) if (list.length === 0) groups.delete(g);
  return groups;
}

/**
 * The modules of a split codec: its groups, each cut into parts (`<group>_1`, `<group>_2`, ...)
 * while it would pass `budget` lines. `lines` is each block's length as deno fmt writes it.
 */
export function planModules(
  blocks: Block[],
  rules: readonly GroupRule[],
  opts: { lines: Map<Block, number>; budget: number },
): ModulePlan[] {
  const groups = groupBlocks(blocks, rules);
  const groupOfName = new Map<string, string>();
  for (const [g, list] of groups) {
    for (const b of list) for (const n of b.declares) groupOfName.set(n, g);
  }
  for (const n of WIRE_NAMES) groupOfName.set(n, "wire");
  // A module's length: its blocks, its fixed lines, and its imports if each wraps one name a line.
  const estimate = (part: Block[]) => {
    const declared = new Set(part.flatMap((b) => b.declares));
    const imported = new Set(part.flatMap((b) => [...namesUsed(b)]));
    const from = new Set<string>();
    let lines = 12;
    for (const n of imported) {
      const g = groupOfName.get(n);
      if (g === undefined || declared.has(n)) continue;
      lines++;
      from.add(g);
    }
    return lines + 2 * from.size + part.reduce((sum, b) => sum + opts.lines.get(b)!, 0);
  };
  const cut = (list: Block[], limit: number) => {
    const parts: Block[][] = [[]];
    for (const b of list) {
      const part = parts[parts.length - 1];
      if (part.length > 0 && estimate([...part, b]) > limit) parts.push([b]);
      else part.push(b);
    }
    return parts;
  };
  const plans: ModulePlan[] = [];
  for (const [group, list] of groups) {
    let parts = cut(list, opts.budget);
    // As few parts as the budget allows, of even lengths.
    for (let limit = Math.ceil(estimate(list) / parts.length); limit < opts.budget; limit += 10) {
      const even = cut(list, limit);
      if (even.length === parts.length) {
        parts = even;
        break;
      }
    }
    parts.forEach((blocks, i) => {
      plans.push({ name: parts.length === 1 ? group : `${group}_${i + 1}`, blocks });
    });
  }
  return plans;
}

/**
 * Each module's text (before deno fmt): `wire` is where the modules import the wire runtime from;
 * a sibling's declarations are imported from `./<name>.ts`.
 */
export function moduleTexts(
  plans: readonly ModulePlan[],
  opts: { proto: string; wire: string },
): string[] {
  const owner = new Map<string, ModulePlan>();
  for (const p of plans) for (const b of p.blocks) for (const n of b.declares) owner.set(n, p);
  return plans.map((plan) => {
    const used = new Set(plan.blocks.flatMap((b) => [...namesUsed(b)]));
    const imports: string[] = [];
    if (plan.blocks.some((b) => b.source instanceof protobuf.Service)) {
      imports.push(`import type { ServiceDefinition } from "@grpc/grpc-js";`);
    }
    const wire = WIRE_NAMES.filter((n) => used.has(n));
    if (wire.every((n) => WIRE_TYPES.has(n))) {
      if (wire.length > 0) imports.push(`import type { ${wire.join(", ")} } from "${opts.wire}";`);
    } else {
      const names = wire.map((n) => WIRE_TYPES.has(n) ? `type ${n}` : n);
      imports.push(`import { ${names.join(", ")} } from "${opts.wire}";`);
    }
    for (const from of plans) {
      if (from === plan) continue;
      const names = [...used].filter((n) => owner.get(n) === from).sort();
      if (names.length > 0) {
        imports.push(`import { ${names.join(", ")} } from "./${from.name}.ts";`);
      }
    }
    const messages = plan.blocks.some((b) => b.source instanceof protobuf.Type);
    const sections = [
      [
        ...generatedHeader(opts.proto),
        ...(messages ? ["// deno-lint-ignore-file no-explicit-any"] : []),
      ],
      imports,
      messages
        ? [
          "/** A message as the agent passes it: plain fields in lowerCamelCase. */",
          "type Msg = Record<string, any>;",
        ]
        : [],
      plan.blocks.flatMap((b) => b.lines),
    ];
    return sections.filter((s) => s.length > 0).map((s) => s.join("\n")).join("\n\n");
  });
}

/** The module that re-exports a split codec's modules, in `dir` (relative to the barrel). */
export function barrelText(plans: readonly ModulePlan[], opts: { proto: string; dir: string }) {
  return [
    ...generatedHeader(opts.proto),
    "// The codec's modules: enums, messages by the RPCs that use them, services (see proto_codec.ts).",
    "",
    ...plans.map((p) => `export * from "./${opts.dir}/${p.name}.ts";`),
    "",
  ].join("\n");
}
