/**
 * Which protobuf codec the CRI client should use (issue 14), measured in one run: each
 * candidate in a fresh `deno run` beside @grpc/grpc-js (which stays), with the agent's V8 flags.
 *
 * - `proto-loader`: what the agent did before, @grpc/proto-loader + protobufjs reflection over
 *   the embedded proto text, objects converted as proto-loader does (defaults, enum names, longs
 *   as numbers);
 * - `protobufjs-static`: `pbjs -t static-module` code on `protobufjs/minimal`, decoded with
 *   `decode` + `toObject` (the same conversion);
 * - `bufbuild`: `protoc-gen-es` v2 output on `@bufbuild/protobuf` (`fromBinary`; its own
 *   message objects, int64 as bigint, enums as numbers: no conversion, so a lower bound);
 * - `denolet`: the generated `src/cri/_codec.ts` on `src/cri/_wire.ts` (the plain shapes).
 *
 * For each: RSS and anonymous memory after loading grpc-js and the codec and decoding once,
 * then settling; the time of one decode of a ListContainersResponse of 220 containers (110 pods'
 * worth, with the agent's labels and annotations, as the PLEG relist reads every second) and
 * of one CreateContainerRequest encode, as CPU time over many iterations.
 *
 *   deno run -A tests/bench/codec_candidates.ts [--settle 10] [--rounds 2] [--iterations 300]
 *
 * The generators come from the npm registry (protobufjs-cli, @bufbuild/buf with
 * @bufbuild/protoc-gen-es) through npx, into a temporary directory; nothing is written to the
 * source tree. Prints a table and writes dist/codec_candidates.json.
 */
import { parseArgs } from "node:util";
import { AGENT_V8_FLAGS } from "../../src/build_info/mod.ts";
import { ProtoWriter } from "../../src/cri/_wire.ts";
import { encodeListContainersResponse } from "../../src/cri/_codec.ts";
import { realClock } from "../../src/util/clock.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    settle: { type: "string", default: "10" },
    rounds: { type: "string", default: "2" },
    iterations: { type: "string", default: "300" },
    out: { type: "string", default: "dist/codec_candidates.json" },
  },
});
const ROOT = new URL("../../", import.meta.url).pathname;
const API_PROTO = `${ROOT}proto/runtime/v1/api.proto`;
const settleMs = Number(values.settle) * 1000;
const rounds = Number(values.rounds);
const iterations = Number(values.iterations);

const dir = await Deno.makeTempDir({ prefix: "denolet-codecs-" });
const progress = (s: string) => console.error(`[codecs] ${s}`);

async function run(cmd: string, args: string[], cwd = dir): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** The ListContainersResponse the relist of 110 two-container pods reads. */
function fixture(): Uint8Array {
  const containers = [];
  for (let p = 0; p < 110; p++) {
    const uid = crypto.randomUUID();
    for (const name of ["web", "side"]) {
      containers.push({
        id: crypto.randomUUID().replaceAll("-", "") + crypto.randomUUID().replaceAll("-", ""),
        podSandboxId: crypto.randomUUID().replaceAll("-", "").repeat(2),
        metadata: { name, attempt: 0 },
        image: { image: "sha256:" + "ab".repeat(32) },
        imageRef: "sha256:" + "cd".repeat(32),
        state: "CONTAINER_RUNNING",
        createdAt: 1_763_000_000_000_000_000 + p,
        labels: {
          "io.kubernetes.pod.name": `bench-${p}-node`,
          "io.kubernetes.pod.namespace": "default",
          "io.kubernetes.pod.uid": uid,
          "io.kubernetes.container.name": name,
          "io.denolet.node-name": "node",
        },
        annotations: {
          "io.kubernetes.container.hash": "5e3c1f2a",
          "io.kubernetes.container.restartCount": "0",
          "io.kubernetes.container.terminationMessagePath": "/dev/termination-log",
          "io.kubernetes.container.terminationMessagePolicy": "File",
          "io.kubernetes.pod.terminationGracePeriod": "30",
        },
      });
    }
  }
  const w = new ProtoWriter();
  encodeListContainersResponse(w, { containers });
  return new Uint8Array(w.finish());
}

const CREATE_REQUEST = {
  podSandboxId: "f".repeat(64),
  config: {
    metadata: { name: "web", attempt: 0 },
    image: { image: "denolet.test/busybox:1.35" },
    command: ["httpd", "-f", "-p", "8080"],
    envs: [{ key: "KUBERNETES_SERVICE_HOST", value: "10.0.0.1" }],
    mounts: [{ containerPath: "/dev/termination-log", hostPath: "/var/lib/x/c/web/1" }],
    labels: { "io.kubernetes.pod.uid": "u", "io.kubernetes.container.name": "web" },
    annotations: { "io.kubernetes.container.hash": "1" },
    logPath: "web/0.log",
    linux: { resources: { cpuShares: 2, oomScoreAdj: 1000 } },
  },
  sandboxConfig: {
    metadata: { name: "p", uid: "u", namespace: "default", attempt: 0 },
    logDirectory: "/var/log/pods/default_p_u",
    labels: { "io.kubernetes.pod.uid": "u" },
  },
};

/** Each candidate: module imports and the decode/encode expressions over `bytes`/`req`. */
interface Candidate {
  setup: string;
  decode: string;
  encode: string;
}

const CANDIDATES: Record<string, Candidate> = {
  "grpc-js alone": { setup: "", decode: "0", encode: "0" },
  "proto-loader": {
    setup: `import * as protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";
const { root } = protobuf.parse(Deno.readTextFileSync(${
      JSON.stringify(API_PROTO)
    }), { keepCase: false });
const def = protoLoader.fromJSON(root.toJSON(), { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true });
const svc = def["runtime.v1.RuntimeService"];
const dec = svc.ListContainers.responseDeserialize, enc = svc.CreateContainer.requestSerialize;`,
    decode: "dec(Buffer.from(bytes))",
    encode: "enc(req)",
  },
  "protobufjs-static": {
    setup: `import { runtime } from "./pbjs/api.js";
const T = runtime.v1.ListContainersResponse, C = runtime.v1.CreateContainerRequest;
const opts = { longs: Number, enums: String, defaults: true };`,
    decode: "T.toObject(T.decode(bytes), opts)",
    encode: "C.encode(C.fromObject(req)).finish()",
  },
  bufbuild: {
    setup: `import { fromBinary, toBinary, create } from "@bufbuild/protobuf";
import { ListContainersResponseSchema as T, CreateContainerRequestSchema as C } from "./es/runtime/v1/api_pb.ts";
const esReq = create(C, { podSandboxId: req.podSandboxId, config: { metadata: { name: "web" }, image: { image: req.config.image.image }, command: req.config.command, envs: req.config.envs, mounts: req.config.mounts, labels: req.config.labels, annotations: req.config.annotations, logPath: req.config.logPath, linux: { resources: { cpuShares: 2n, oomScoreAdj: 1000n } } }, sandboxConfig: { metadata: req.sandboxConfig.metadata, logDirectory: req.sandboxConfig.logDirectory, labels: req.sandboxConfig.labels } });`,
    decode: "fromBinary(T, bytes)",
    encode: "toBinary(C, esReq)",
  },
  denolet: {
    setup: `import { RuntimeService } from ${JSON.stringify(`${ROOT}src/cri/_codec.ts`)};
const dec = RuntimeService.ListContainers.responseDeserialize, enc = RuntimeService.CreateContainer.requestSerialize;`,
    decode: "dec(bytes)",
    encode: "enc(req)",
  },
};

async function generate(): Promise<void> {
  await Deno.copyFile(API_PROTO, `${dir}/api.proto`);
  progress("pbjs -t static-module (protobufjs-cli)");
  await Deno.mkdir(`${dir}/pbjs`);
  await run("npx", [
    "-y",
    "-p",
    "protobufjs-cli@1",
    "-p",
    "protobufjs@7",
    "pbjs",
    "-t",
    "static-module",
    "-w",
    "es6",
    "--no-verify",
    "--no-delimited",
    "--no-typeurl",
    "--no-service",
    "-o",
    "pbjs/api.js",
    "api.proto",
  ]);
  // The es6 wrapper takes protobufjs/minimal's namespace; under Deno a CommonJS module's
  // exports are its default export.
  const pbjs = await Deno.readTextFile(`${dir}/pbjs/api.js`);
  await Deno.writeTextFile(
    `${dir}/pbjs/api.js`,
    pbjs.replace(/import \* as \$protobuf from/, "import $protobuf from"),
  );
  progress("buf generate with protoc-gen-es (@bufbuild/buf, @bufbuild/protoc-gen-es)");
  await Deno.mkdir(`${dir}/proto/runtime/v1`, { recursive: true });
  await Deno.copyFile(API_PROTO, `${dir}/proto/runtime/v1/api.proto`);
  await Deno.writeTextFile(`${dir}/proto/buf.yaml`, "version: v2\n");
  await Deno.writeTextFile(
    `${dir}/buf.gen.yaml`,
    "version: v2\ninputs:\n  - directory: proto\nplugins:\n  - local: protoc-gen-es\n" +
      "    out: es\n    opt: target=ts\n",
  );
  await run("npx", [
    "-y",
    "-p",
    "@bufbuild/buf@1",
    "-p",
    "@bufbuild/protoc-gen-es@2",
    "buf",
    "generate",
  ]);
  // Imports for the probes: the project's grpc-js and protobufjs, plus the two candidates'.
  const project = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    JSON.stringify({
      nodeModulesDir: "none",
      imports: {
        "@grpc/grpc-js": project.imports["@grpc/grpc-js"],
        "@grpc/proto-loader": "npm:@grpc/proto-loader@0.8",
        protobufjs: "npm:protobufjs@7",
        "protobufjs/minimal": "npm:protobufjs@7/minimal.js",
        "@bufbuild/protobuf": "npm:@bufbuild/protobuf@2",
        "@bufbuild/protobuf/codegenv2": "npm:@bufbuild/protobuf@2/codegenv2",
        "@bufbuild/protobuf/wkt": "npm:@bufbuild/protobuf@2/wkt",
      },
    }),
  );
}

interface Row {
  rssMB: number;
  anonMB: number;
  decodeUs: number;
  encodeUs: number;
}

async function probe(name: string, c: Candidate): Promise<Row> {
  const file = `${dir}/probe_${name.replaceAll(/[^a-z]/g, "_")}.ts`;
  await Deno.writeTextFile(
    file,
    `import "@grpc/grpc-js";
import { Buffer } from "node:buffer";
const bytes = Deno.readFileSync(${JSON.stringify(`${dir}/fixture.bin`)});
const req = ${JSON.stringify(CREATE_REQUEST)};
${c.setup}
globalThis.keep = [${c.decode}, ${c.encode}];
await new Promise((r) => setTimeout(r, ${settleMs}));
const st = Deno.readTextFileSync("/proc/self/status");
const kb = (k) => Number(new RegExp(k + ":\\\\s+(\\\\d+)").exec(st)?.[1]);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system); };
for (let i = 0; i < 20; i++) globalThis.keep = ${c.decode};
let t = cpu();
for (let i = 0; i < ${iterations}; i++) globalThis.keep = ${c.decode};
const decodeUs = (cpu() - t) / ${iterations};
t = cpu();
for (let i = 0; i < ${iterations * 20}; i++) globalThis.keep = ${c.encode};
const encodeUs = (cpu() - t) / ${iterations * 20};
console.log(JSON.stringify({ rssKB: kb("VmRSS"), anonKB: kb("RssAnon"), decodeUs, encodeUs }));
`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", "--config", `${dir}/deno.json`, file],
    env: { DENO_V8_FLAGS: AGENT_V8_FLAGS },
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`probe ${name} failed with code ${out.code}`);
  const j = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
  return {
    rssMB: j.rssKB / 1024,
    anonMB: j.anonKB / 1024,
    decodeUs: j.decodeUs,
    encodeUs: j.encodeUs,
  };
}

try {
  await generate();
  await Deno.writeFile(`${dir}/fixture.bin`, fixture());
  const rows: Record<string, Row[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, c] of Object.entries(CANDIDATES)) {
      const r = await probe(name, c);
      (rows[name] ??= []).push(r);
      progress(`round ${round + 1} ${name}: ${JSON.stringify(r)}`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  console.log(
    `codec candidates, ${rounds} rounds (lower median), V8 ${AGENT_V8_FLAGS}, load ${load}`,
  );
  console.log(
    "candidate".padEnd(20) +
      ["RSS MB", "anon MB", "decode 220 µs", "encode µs"].map((h) => h.padStart(15)).join(""),
  );
  const summary: Record<string, Row> = {};
  for (const [name, rs] of Object.entries(rows)) {
    const s = {
      rssMB: median(rs.map((r) => r.rssMB)),
      anonMB: median(rs.map((r) => r.anonMB)),
      decodeUs: median(rs.map((r) => r.decodeUs)),
      encodeUs: median(rs.map((r) => r.encodeUs)),
    };
    summary[name] = s;
    console.log(
      name.padEnd(20) +
        [s.rssMB.toFixed(1), s.anonMB.toFixed(1), s.decodeUs.toFixed(0), s.encodeUs.toFixed(1)]
          .map((x) => x.padStart(15)).join(""),
    );
  }
  await Deno.mkdir(`${ROOT}dist`, { recursive: true });
  await Deno.writeTextFile(
    values.out!,
    JSON.stringify({ when: new Date(realClock.now()).toISOString(), load, rows, summary }, null, 2),
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
