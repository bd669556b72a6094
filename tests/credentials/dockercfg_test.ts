import assert from "node:assert/strict";
import type { V1Secret } from "@kubernetes/client-node";
import {
  keyringFromSecrets,
  parseDockercfg,
  parseDockerConfigJson,
  PullSecretError,
} from "../../src/credentials/mod.ts";
import { decodeAuthField } from "../../src/credentials/_dockercfg.ts";

const b64 = (s: string) => btoa(s);

Deno.test("docker config: auth wins over username/password, padded or not", () => {
  const cfg = parseDockerConfigJson(JSON.stringify({
    auths: {
      "reg.example.com": { username: "x", password: "y", auth: b64("alice:s3cr:et") },
      "raw.example.com": { auth: b64("bob:pw").replace(/=+$/, "") },
      "plain.example.com": { username: "carol", password: "pw", email: "c@example.com" },
    },
  }));
  assert.deepEqual(cfg.get("reg.example.com"), {
    username: "alice",
    password: "s3cr:et",
    email: "",
  });
  assert.deepEqual(cfg.get("raw.example.com"), { username: "bob", password: "pw", email: "" });
  assert.deepEqual(cfg.get("plain.example.com"), {
    username: "carol",
    password: "pw",
    email: "c@example.com",
  });
});

Deno.test("docker config: field names match case-insensitively, null is empty (Go's encoding/json)", () => {
  const cfg = parseDockerConfigJson(
    '{"Auths":{"r.io":{"Username":"u","PASSWORD":"p","email":null}}}',
  );
  assert.deepEqual(cfg.get("r.io"), { username: "u", password: "p", email: "" });
  assert.equal(parseDockerConfigJson('{"auths":null}').size, 0);
  assert.deepEqual(parseDockercfg('{"r.io":{"auth":"' + b64("u:p") + '"}}').get("r.io"), {
    username: "u",
    password: "p",
    email: "",
  });
});

Deno.test("docker config: upstream's errors for auth fields and types", () => {
  assert.throws(
    () => decodeAuthField(b64("no-colon")),
    /^DockerConfigError: unable to parse auth field, must be formatted as base64\(username:password\)$/,
  );
  assert.throws(() => decodeAuthField("!!!!"), /illegal base64 data at input byte 0/);
  assert.throws(() => decodeAuthField("YW=Jj"), /illegal base64 data at input byte/);
  assert.throws(
    () => parseDockerConfigJson('{"auths":"x"}'),
    /json: cannot unmarshal string into Go struct field DockerConfigJSON.auths of type credentialprovider.DockerConfig/,
  );
  assert.throws(
    () => parseDockerConfigJson('{"auths":{"r":{"username":5}}}'),
    /json: cannot unmarshal number into Go struct field dockerConfigEntryWithAuth.username of type string/,
  );
});

function secret(name: string, type: string, key: string, doc: unknown): V1Secret {
  return {
    metadata: { name, namespace: "ns", uid: `uid-${name}` },
    type,
    data: { [key]: b64(typeof doc === "string" ? doc : JSON.stringify(doc)) },
  };
}

Deno.test("keyringFromSecrets: dockerconfigjson and dockercfg Secrets, others skipped", async () => {
  const json = secret("json", "kubernetes.io/dockerconfigjson", ".dockerconfigjson", {
    auths: { "reg.example.com": { auth: b64("a:1") } },
  });
  const legacy = secret("legacy", "kubernetes.io/dockercfg", ".dockercfg", {
    "reg.example.com": { username: "b", password: "2" },
  });
  const opaque = secret("opaque", "Opaque", ".dockerconfigjson", {
    auths: { "reg.example.com": { auth: b64("c:3") } },
  });
  const wrongKey = secret("wrong", "kubernetes.io/dockerconfigjson", ".dockercfg", {});
  const k = await keyringFromSecrets([json, opaque, legacy, wrongKey]);
  assert.ok(k);
  assert.deepEqual(
    k.lookup("reg.example.com/app").map((c) => [c.username, c.password, c.source?.secret]),
    [
      ["a", "1", { uid: "uid-json", namespace: "ns", name: "json" }],
      ["b", "2", { uid: "uid-legacy", namespace: "ns", name: "legacy" }],
    ],
  );
  assert.equal(await keyringFromSecrets([opaque]), undefined);
  const bad = secret("bad", "kubernetes.io/dockerconfigjson", ".dockerconfigjson", {
    auths: { "reg.example.com": { auth: b64("nocolon") } },
  });
  const err = await keyringFromSecrets([json, bad]).then(() => undefined, (e) => e);
  assert.ok(err instanceof PullSecretError);
  assert.equal(err.secret, "bad");
});
