/**
 * A manifest's error reason is logged, kept and served on /sources, so it stays short however
 * many mistakes a small manifest holds.
 */
import assert from "node:assert/strict";
import { staticPodFromManifest } from "../../src/sources/mod.ts";
import { FieldErrors, MAX_FIELD_ERRORS } from "../../src/sources/_fields.ts";
import { validatePod } from "../../src/sources/_validate.ts";
import { InvalidManifestError } from "../../src/util/errors.ts";
import { podYaml } from "./_support.ts";

const origin = {
  path: "/etc/kubernetes/manifests/web.yaml",
  source: "file",
  nodeName: "node1",
} as const;

function reasonOf(raw: string): string {
  try {
    staticPodFromManifest(raw, origin);
  } catch (e) {
    assert.ok(e instanceof InvalidManifestError, String(e));
    return e.message;
  }
  throw new Error("the manifest was accepted");
}

Deno.test("thousands of wrong-typed list items give one short type error", () => {
  const args = `[${Array(50_000).fill("1").join(",")}]`;
  const reason = reasonOf(podYaml("web", "busybox:1.36", `    args: ${args}\n`));
  assert.ok(reason.length < 2048, `reason is ${reason.length} characters`);
  assert.ok(
    reason.endsWith("spec.containers[0].args[0]: must be a string, got integer"),
    reason,
  );
});

Deno.test("type checking stops at the first wrong type", () => {
  const errors = validatePod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", labels: { a: 1 } },
    spec: { containers: [{ name: 1, image: 2 }], restartPolicy: 3 },
  });
  assert.deepEqual(errors, ["metadata.labels[a]: must be a string, got integer"]);
});

Deno.test("validation keeps the first errors and counts the rest", () => {
  const containers = Array.from({ length: 50 }, (_, i) => ({ name: `Bad_${i}`, image: "x" }));
  const errors = validatePod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: { containers },
  });
  assert.equal(errors.length, MAX_FIELD_ERRORS + 1);
  assert.match(errors[0], /^spec\.containers\[0\]\.name: Invalid value: "Bad_0"/);
  assert.equal(errors.at(-1), `... and ${50 - MAX_FIELD_ERRORS} more errors`);
});

Deno.test("FieldErrors counts every error but lists at most the limit", () => {
  const errs = new FieldErrors();
  for (let i = 0; i < MAX_FIELD_ERRORS; i++) errs.required(`f${i}`);
  assert.equal(errs.list.length, MAX_FIELD_ERRORS, "exactly the limit has no summary");
  errs.required("one.more");
  assert.equal(errs.count, MAX_FIELD_ERRORS + 1);
  assert.deepEqual(errs.list.slice(-2), [
    `f${MAX_FIELD_ERRORS - 1}: Required value`,
    "... and 1 more error",
  ]);
});
