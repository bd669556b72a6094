/**
 * The agent carries its .proto files as generated modules (so a bundle needs no file beside it).
 * These fail when a module drifts from its proto, or when loading from the text differs in any
 * way from proto-loader reading the file.
 */
import assert from "node:assert/strict";
import * as protoLoader from "@grpc/proto-loader";
import { criServices, PROTO_LOADER_OPTIONS } from "../../src/cri/_proto.ts";
import { healthService } from "../../src/prober/_grpc.ts";
import {
  EMBEDDED_PROTOS,
  generateProtoModules,
  moduleText,
  protoText,
  renderProtoModule,
} from "./proto_text.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

for (const entry of EMBEDDED_PROTOS) {
  Deno.test(`proto text: ${entry.module} holds ${entry.proto} as it is now`, async () => {
    assert.equal(
      await moduleText(`${ROOT}${entry.module}`, entry),
      await protoText(entry),
      `${entry.module} is stale: run deno run -A tests/support/proto_text.ts`,
    );
  });
}

/** What a definition carries that a client or server uses, without its functions. */
function shape(svc: protoLoader.ServiceDefinition): unknown {
  return Object.entries(svc).map(([name, m]) => ({
    name,
    path: m.path,
    requestStream: m.requestStream,
    responseStream: m.responseStream,
    requestType: Buffer.from(m.requestType.fileDescriptorProtos[0]).toString("base64"),
    responseType: m.responseType.type,
  }));
}

Deno.test("proto text: the CRI services load exactly as loadSync of the file loads them", () => {
  const fromFile = protoLoader.loadSync(`${ROOT}proto/runtime/v1/api.proto`, PROTO_LOADER_OPTIONS);
  const fromText = criServices();
  const services: [string, protoLoader.ServiceDefinition][] = [
    ["RuntimeService", fromText.runtime],
    ["ImageService", fromText.image],
  ];
  for (const [name, svc] of services) {
    const want = fromFile[`runtime.v1.${name}`] as protoLoader.ServiceDefinition;
    assert.deepEqual(shape(svc), shape(want), name);
  }
  const list = fromText.runtime.ListContainers;
  const req = { filter: { state: { state: "CONTAINER_RUNNING" }, labelSelector: { a: "b" } } };
  const wantList = (fromFile["runtime.v1.RuntimeService"] as protoLoader.ServiceDefinition)
    .ListContainers;
  assert.deepEqual(list.requestSerialize(req), wantList.requestSerialize(req));
});

Deno.test("proto text: the gRPC health service loads as loadSync of the file loads it", () => {
  const fromFile = protoLoader.loadSync(`${ROOT}proto/grpc/health/v1/health.proto`, {
    keepCase: false,
    enums: String,
    defaults: true,
  });
  assert.deepEqual(
    shape(healthService()),
    shape(fromFile["grpc.health.v1.Health"] as protoLoader.ServiceDefinition),
  );
});

Deno.test("proto text: the generator rewrites a stale module and leaves a fresh one alone", async () => {
  const root = await Deno.makeTempDir({ prefix: "denolet-proto-text-" });
  try {
    for (const e of EMBEDDED_PROTOS) {
      await Deno.mkdir(`${root}/${e.proto.replace(/\/[^/]+$/, "")}`, { recursive: true });
      await Deno.mkdir(`${root}/${e.module.replace(/\/[^/]+$/, "")}`, { recursive: true });
      await Deno.writeTextFile(`${root}/${e.proto}`, `syntax = "proto3";\n// \`\${x}\` \\ \n`);
    }
    const [first] = EMBEDDED_PROTOS;
    await Deno.writeTextFile(`${root}/${first.module}`, renderProtoModule(first, "old"));
    const changed = await generateProtoModules(`${root}/`);
    assert.deepEqual(changed, EMBEDDED_PROTOS.map((e) => e.module));
    for (const e of EMBEDDED_PROTOS) {
      assert.equal(await moduleText(`${root}/${e.module}`, e), await protoText(e, `${root}/`));
    }
    assert.deepEqual(await generateProtoModules(`${root}/`), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
