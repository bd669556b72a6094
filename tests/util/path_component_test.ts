import assert from "node:assert/strict";
import { podLogDirectory } from "../../src/runtime/mod.ts";
import { ConfigError } from "../../src/util/errors.ts";
import { pathComponent, pathComponentProblem } from "../../src/util/path_component.ts";

Deno.test("pathComponentProblem refuses what would not stay one directory level", () => {
  for (const bad of ["", ".", "..", "a/b", "/abs", "../up", "nul\0byte"]) {
    assert.ok(pathComponentProblem(bad), `${JSON.stringify(bad)} is refused`);
  }
  for (const ok of ["uid-1", "6a0c3e48-5c1b-4d8e-9f0a-1b2c3d4e5f60", "...", "a..b", ".hidden"]) {
    assert.equal(pathComponentProblem(ok), undefined, `${JSON.stringify(ok)} is a component`);
  }
});

Deno.test("pathComponent returns a safe value and throws ConfigError naming the field", () => {
  assert.equal(pathComponent("uid-1", "metadata.uid"), "uid-1");
  assert.throws(() => pathComponent("../x", "metadata.uid"), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.equal(e.field, "metadata.uid");
    assert.match(
      e.message,
      /"\.\.\/x" cannot name a directory: a path component must not contain '\/'/,
    );
    return true;
  });
});

Deno.test("the pod log directory is built only from safe components", () => {
  const pod = (namespace: string, name: string, uid: string) => ({
    metadata: { namespace, name, uid },
  });
  assert.equal(
    podLogDirectory("/var/log/pods/", pod("prod", "web", "u-1")),
    "/var/log/pods/prod_web_u-1",
  );
  const refused: Array<[ReturnType<typeof pod>, string]> = [
    [pod("prod", "web", "../../../etc"), "metadata.uid"],
    [pod("prod", "web", ""), "metadata.uid"],
    [pod("prod", "web", ".."), "metadata.uid"],
    [pod("prod", "a/b", "u-1"), "metadata.name"],
    [pod("", "web", "u-1"), "metadata.namespace"],
    [pod("ns\0", "web", "u-1"), "metadata.namespace"],
  ];
  for (const [p, field] of refused) {
    assert.throws(
      () => podLogDirectory("/var/log/pods", p),
      (e: unknown) => e instanceof ConfigError && e.field === field,
      JSON.stringify(p),
    );
  }
});
