/**
 * The agent's static codecs are generated from proto/. These fail when a generated module drifts
 * from its proto, and check the codecs against protobufjs (the library proto-loader used): the
 * same messages must encode to bytes protobufjs reads back identically, and bytes protobufjs
 * writes must decode to what proto-loader gave the agent (defaults on, enums as names, longs as
 * numbers).
 */
import assert from "node:assert/strict";
import { Identity, Node } from "../../src/csi/_csi_codec.ts";
import { Registration } from "../../src/csi/_registration_codec.ts";
import { Buffer } from "node:buffer";
import protobuf from "protobufjs";
import * as codec from "../../src/cri/_codec.ts";
import { ProtoReader, ProtoWriter } from "../../src/cri/_wire.ts";
import { healthService } from "../../src/prober/_grpc.ts";
import { criServices } from "../../src/cri/_proto.ts";
import {
  codecDrift,
  expectedModules,
  generateCodecModules,
  GENERATED_CODECS,
  type GeneratedCodec,
  renderCodecModules,
} from "./proto_codec.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

for (const entry of GENERATED_CODECS) {
  Deno.test(`proto codec: the modules of ${entry.module} are what ${entry.proto} generates now`, async () => {
    assert.deepEqual(
      (await codecDrift(entry)).map((d) => `${d.path} is ${d.problem}`),
      [],
      "run deno run -A tests/support/proto_codec.ts",
    );
  });
}

Deno.test("proto codec: every generated module is under 400 lines, with the generated header", async () => {
  for (const entry of GENERATED_CODECS) {
    for (const path of (await expectedModules(entry)).keys()) {
      const text = await Deno.readTextFile(`${ROOT}${path}`);
      assert.ok(text.split("\n").length - 1 < 400, `${path} is 400 lines or more`);
      assert.match(text, new RegExp(`^// Generated from ${entry.proto} .*; do not edit\\.\n`));
    }
  }
});

const api = protobuf.parse(await Deno.readTextFile(`${ROOT}proto/runtime/v1/api.proto`), {
  keepCase: false,
}).root;
/** proto-loader's conversion options, which the agent's types were written against. */
const TO_OBJECT = { longs: Number, enums: String, defaults: true, bytes: Uint8Array } as const;

type Codec = {
  encode: (w: ProtoWriter, m: Record<string, unknown>) => void;
  decode: (r: ProtoReader, end: number) => Record<string, unknown>;
};

function ours(name: string): Codec {
  const c = codec as unknown as Record<string, Codec["encode"] & Codec["decode"]>;
  return { encode: c[`encode${name}`], decode: c[`decode${name}`] };
}

function encodeOurs(name: string, m: Record<string, unknown>): Uint8Array {
  const w = new ProtoWriter();
  ours(name).encode(w, m);
  return new Uint8Array(w.finish());
}

function decodeOurs(name: string, bytes: Uint8Array): Record<string, unknown> {
  const r = new ProtoReader(bytes);
  return ours(name).decode(r, bytes.length);
}

/** protobufjs's object for `bytes` as the agent's client gave it (proto-loader, then `plain`). */
function decodeRef(name: string, bytes: Uint8Array): unknown {
  const t = api.lookupType(`runtime.v1.${name}`);
  return dropNulls(t.toObject(t.decode(bytes), TO_OBJECT));
}

function dropNulls(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  // The agent's client turned protobufjs's Buffers into plain Uint8Arrays.
  if (v instanceof Uint8Array) return new Uint8Array(v);
  if (Array.isArray(v)) return v.map(dropNulls);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = dropNulls(x);
  return out;
}

function encodeRef(name: string, m: Record<string, unknown>): Uint8Array {
  const t = api.lookupType(`runtime.v1.${name}`);
  return t.encode(t.fromObject(m)).finish();
}

const SAMPLES: [string, Record<string, unknown>][] = [
  ["VersionResponse", {
    version: "0.1.0",
    runtimeName: "containerd",
    runtimeVersion: "v1.6.20",
    runtimeApiVersion: "v1",
  }],
  ["ListContainersResponse", {
    containers: [{
      id: "a".repeat(64),
      podSandboxId: "b".repeat(64),
      metadata: { name: "web", attempt: 3 },
      image: { image: "sha256:" + "c".repeat(64), annotations: {} },
      imageRef: "sha256:" + "d".repeat(64),
      state: "CONTAINER_EXITED",
      createdAt: 1_763_000_000_123_456_789,
      labels: { "io.kubernetes.pod.uid": "u-1", "io.kubernetes.container.name": "web" },
      annotations: { "io.kubernetes.container.hash": "1a2b", "ünïcödé": "välüe ✓" },
    }, { id: "e", state: "CONTAINER_RUNNING" }],
  }],
  ["ContainerStatusResponse", {
    status: {
      id: "x",
      state: "CONTAINER_EXITED",
      exitCode: -1,
      startedAt: 5,
      finishedAt: 2 ** 62,
      mounts: [{ containerPath: "/a", hostPath: "/b", propagation: "PROPAGATION_BIDIRECTIONAL" }],
      message: "é".repeat(100) + "x".repeat(70_000),
    },
    info: { k: "v" },
  }],
  ["CreateContainerRequest", {
    podSandboxId: "sb",
    config: {
      metadata: { name: "c", attempt: 0 },
      image: { image: "busybox" },
      command: ["sh", "-c"],
      envs: [{ key: "A", value: "" }],
      linux: {
        resources: { cpuShares: 2, memoryLimitInBytes: 2 ** 40, oomScoreAdj: -997 },
        securityContext: {
          runAsUser: { value: 0 },
          supplementalGroups: [1, 2, 3000000000],
          namespaceOptions: { network: "NODE", pid: "CONTAINER", ipc: "POD" },
          seccomp: { profileType: "Localhost", localhostRef: "/var/lib/kubelet/seccomp/a.json" },
        },
      },
    },
    sandboxConfig: {
      metadata: { name: "p", uid: "u", namespace: "ns", attempt: 1 },
      linux: { securityContext: { seccomp: { profileType: "RuntimeDefault" } } },
    },
  }],
  ["ExecSyncResponse", {
    stdout: new Uint8Array([0, 1, 255]),
    stderr: new Uint8Array(),
    exitCode: 2,
  }],
  ["PortForwardRequest", { podSandboxId: "sb", port: [80, 65535] }],
  ["StopContainerRequest", { containerId: "c", timeout: 30 }],
];

Deno.test("proto codec: decodes protobufjs's bytes as proto-loader did", () => {
  for (const [name, m] of SAMPLES) {
    const bytes = encodeRef(name, m);
    assert.deepEqual(decodeOurs(name, bytes), decodeRef(name, bytes), name);
  }
});

Deno.test("proto codec: encodes what protobufjs reads back the same", () => {
  for (const [name, m] of SAMPLES) {
    const bytes = encodeOurs(name, m);
    assert.deepEqual(decodeRef(name, bytes), decodeRef(name, encodeRef(name, m)), name);
    assert.deepEqual(decodeOurs(name, bytes), decodeRef(name, bytes), name);
  }
});

Deno.test("proto codec: unknown fields are skipped, unpacked repeated numbers read", () => {
  const bytes = new Uint8Array([
    ...encodeOurs("PortForwardRequest", { podSandboxId: "sb" }),
    // Field 99 in each wire type a newer runtime could send: varint, fixed64, bytes, fixed32.
    ...[0x98, 0x06, 0x05],
    ...[0x99, 0x06, 1, 2, 3, 4, 5, 6, 7, 8],
    ...[0x9a, 0x06, 2, 0x61, 0x62],
    ...[0x9d, 0x06, 1, 2, 3, 4],
    // port = 8080, not packed.
    ...[0x10, 0x90, 0x3f],
  ]);
  assert.deepEqual(decodeOurs("PortForwardRequest", bytes), { podSandboxId: "sb", port: [8080] });
});

Deno.test("proto codec: an unknown enum name is refused; an unknown number decodes as itself", () => {
  assert.throws(
    () => encodeOurs("ContainerStateValue", { state: "CONTAINER_PAUSED" }),
    /ContainerState: "CONTAINER_PAUSED" is not one of its values/,
  );
  assert.deepEqual(decodeOurs("ContainerStateValue", new Uint8Array([8, 9])), { state: 9 });
});

Deno.test("proto codec: a message cut short is an error, not a partial message", () => {
  const bytes = encodeOurs("VersionResponse", { version: "0.1.0", runtimeName: "containerd" });
  const decode = criServices().runtime.Version.responseDeserialize;
  assert.deepEqual(decode(Buffer.from(bytes)), {
    version: "0.1.0",
    runtimeName: "containerd",
    runtimeVersion: "",
    runtimeApiVersion: "",
  });
  assert.throws(() => decode(Buffer.from(bytes.subarray(0, bytes.length - 2))), /ends inside/);
});

Deno.test("proto codec: services carry every RPC of the protos with their paths", () => {
  const runtime = api.lookupService("runtime.v1.RuntimeService");
  const image = api.lookupService("runtime.v1.ImageService");
  const { runtime: rs, image: is } = criServices();
  assert.deepEqual(Object.keys(rs), runtime.methodsArray.map((m) => m.name));
  assert.deepEqual(Object.keys(is), image.methodsArray.map((m) => m.name));
  assert.equal(rs.ListContainers.path, "/runtime.v1.RuntimeService/ListContainers");
  assert.equal(rs.GetContainerEvents.responseStream, true);
  assert.equal(rs.ListContainers.responseStream, false);
  assert.equal(healthService().Check.path, "/grpc.health.v1.Health/Check");
  assert.equal(Node.NodePublishVolume.path, "/csi.v1.Node/NodePublishVolume");
  assert.equal(Identity.GetPluginInfo.path, "/csi.v1.Identity/GetPluginInfo");
  assert.equal(Registration.GetInfo.path, "/pluginregistration.Registration/GetInfo");
});

Deno.test("proto codec: the generator rewrites stale modules, removes extra ones, leaves fresh ones alone", async () => {
  const root = await Deno.makeTempDir({ prefix: "denolet-proto-codec-" });
  try {
    for (const e of GENERATED_CODECS) {
      await Deno.mkdir(`${root}/${e.proto.replace(/\/[^/]+$/, "")}`, { recursive: true });
      await Deno.writeTextFile(
        `${root}/${e.proto}`,
        `syntax = "proto3";\npackage t.v1;\nmessage M { string a_b = 1; repeated int64 c = 2; }\n`,
      );
    }
    const [split, single, ...rest] = GENERATED_CODECS;
    const dir = split.module.replace(/\.ts$/, "");
    await Deno.mkdir(`${root}/${dir}`, { recursive: true });
    await Deno.writeTextFile(`${root}/${split.module}`, "// old\n");
    await Deno.writeTextFile(`${root}/${dir}/container_9.ts`, "// a group that is gone\n");
    const changed = await generateCodecModules(`${root}/`);
    assert.deepEqual(changed, [
      split.module,
      `${dir}/other.ts`,
      `${dir}/container_9.ts`,
      single.module,
      // The other codecs, written anew (a split one as its barrel and its one module).
      ...rest.flatMap((e) =>
        e.split ? [e.module, `${e.module.replace(/\.ts$/, "")}/other.ts`] : [e.module]
      ),
    ]);
    await assert.rejects(Deno.stat(`${root}/${dir}/container_9.ts`), Deno.errors.NotFound);
    assert.match(
      await Deno.readTextFile(`${root}/${split.module}`),
      /export \* from "\.\/_codec\/other\.ts"/,
    );
    const text = await Deno.readTextFile(`${root}/${dir}/other.ts`);
    assert.match(text, /export function encodeM\(/);
    assert.match(text, /m\.aB = r\.string\(\)/);
    assert.deepEqual(await generateCodecModules(`${root}/`), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("proto codec: a split codec's messages go with the first RPC that reaches them", async () => {
  const entry: GeneratedCodec = {
    proto: "t.proto",
    module: "src/t/_codec.ts",
    wire: new URL("../../src/cri/_wire.ts", import.meta.url).href,
    split: [{ group: "first", rpcs: /\.A$/ }, { group: "second", rpcs: /./ }],
  };
  const modules = await renderCodecModules(
    entry,
    `syntax = "proto3"; package t;
    enum E { E0 = 0; E1 = 1; }
    message Shared { E e = 1; }
    message AReq { Shared s = 1; } message ARes {}
    message BReq { Shared s = 1; map<string, string> l = 2; } message BRes {}
    message Lone {}
    service S { rpc A(AReq) returns (ARes); rpc B(BReq) returns (BRes); }`,
  );
  const dir = "src/t/_codec";
  assert.deepEqual([...modules.keys()], [
    entry.module,
    ...["enums", "first", "second", "other", "s"].map((m) => `${dir}/${m}.ts`),
  ]);
  const first = modules.get(`${dir}/first.ts`)!;
  assert.match(first, /import \{ E_NAMES, E_VALUES \} from "\.\/enums\.ts";/);
  assert.match(first, /function encodeShared\(.*function encodeAReq\(.*function encodeARes\(/s);
  const second = modules.get(`${dir}/second.ts`)!;
  assert.match(second, /import \{ decodeShared, encodeShared \} from "\.\/first\.ts";/);
  assert.doesNotMatch(second, /enums\.ts|serializer/);
  assert.match(modules.get(`${dir}/other.ts`)!, /function encodeLone\(/);
  // The modules load (their cycles included) and work together.
  const root = await Deno.makeTempDir({ prefix: "denolet-proto-split-" });
  try {
    await Deno.mkdir(`${root}/${dir}`, { recursive: true });
    for (const [path, text] of modules) await Deno.writeTextFile(`${root}/${path}`, text);
    const t = await import(`file://${root}/${entry.module}`);
    const m = { s: { e: "E1" }, l: { k: "v" } };
    const bytes = t.S.B.requestSerialize(m);
    assert.deepEqual(t.S.B.requestDeserialize(bytes), m);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("proto codec: the generator refuses what the wire runtime cannot do", async () => {
  const entry = GENERATED_CODECS[0];
  await assert.rejects(
    renderCodecModules(entry, `syntax = "proto3"; package t; message M { double d = 1; }`),
    /field type double is not supported/,
  );
  await assert.rejects(
    renderCodecModules(
      entry,
      `syntax = "proto3"; package t; message M {} service S { rpc W(stream M) returns (M); }`,
    ),
    /client-streaming RPCs are not supported/,
  );
});
