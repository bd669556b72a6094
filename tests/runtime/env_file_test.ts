/** Env values from files in a volume (fileKeyRef), with upstream's grammar and messages. */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { buildEnv } from "../../src/runtime/_env.ts";
import { EnvFileSyntaxError, envFileValue } from "../../src/runtime/_env_file.ts";

Deno.test("env file grammar: quoted values, multi-line, comments, bash's empty value", () => {
  const text = [
    "# a comment",
    "",
    "A='one'",
    "  B='two' # trailing comment",
    "MULTI='line1",
    "line2'",
    "EMPTY= 'x'",
  ].join("\n");
  assert.equal(envFileValue(text, "A"), "one");
  assert.equal(envFileValue(text, "B"), "two");
  assert.equal(envFileValue(text, "MULTI"), "line1\nline2");
  assert.equal(envFileValue(text, "EMPTY"), "");
  assert.equal(envFileValue(text, "NONE"), undefined);
  for (const bad of ["A=one", "A ='x'", "=''", "A='x' y", "A='open"]) {
    assert.throws(() => envFileValue(bad, "A"), EnvFileSyntaxError, bad);
  }
});

Deno.test("fileKeyRef: read from the volume, optional keys skipped, escapes refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-envfile-" });
  try {
    await Deno.mkdir(`${dir}/vol`);
    await Deno.writeTextFile(`${dir}/vol/config.env`, "DB_HOST='db.local'\n");
    await Deno.writeTextFile(`${dir}/secret`, "X='host file'\n");
    await Deno.symlink(`${dir}/secret`, `${dir}/vol/escape.env`);
    const pod: V1Pod = {
      metadata: { name: "p", namespace: "ns", uid: "u" },
      spec: { containers: [] },
    };
    const ref = (path: string, key: string, optional?: boolean) => ({
      name: "V",
      valueFrom: { fileKeyRef: { volumeName: "data", path, key, optional } },
    });
    const env = (c: Partial<V1Container>) =>
      buildEnv(pod, { name: "c", ...c } as V1Container, {
        nodeName: "n",
        volumes: new Map([["data", { hostPath: `${dir}/vol` }]]),
      });
    assert.deepEqual(await env({ env: [ref("config.env", "DB_HOST")] }), [{
      key: "V",
      value: "db.local",
    }]);
    assert.deepEqual(await env({ env: [ref("config.env", "NOPE", true)] }), []);
    await assert.rejects(
      env({ env: [ref("config.env", "NOPE")] }),
      new RegExp(`environment variable key "NOPE" not found in file "${dir}/vol/config.env"`),
    );
    await assert.rejects(env({ env: [ref("escape.env", "X")] }), /couldn't parse env file/);
    await assert.rejects(
      env({
        env: [{
          name: "V",
          valueFrom: { fileKeyRef: { volumeName: "gone", path: "a", key: "k" } },
        }],
      }),
      /cannot find the volume "gone" referenced by FileKeyRef/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
