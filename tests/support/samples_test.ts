import assert from "node:assert/strict";
import { parse } from "yaml";
import { BUSYBOX_IMAGE } from "./images.ts";

const SAMPLES = new URL("./samples/", import.meta.url).pathname;

Deno.test("demo samples are Pods that only use the locally built image", async () => {
  const names: string[] = [];
  for await (const e of Deno.readDir(SAMPLES)) {
    if (!e.name.endsWith(".yaml")) continue;
    const pod = parse(await Deno.readTextFile(`${SAMPLES}${e.name}`));
    assert.equal(pod.apiVersion, "v1", e.name);
    assert.equal(pod.kind, "Pod", e.name);
    names.push(pod.metadata.name);
    const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
    for (const c of containers) assert.equal(c.image, BUSYBOX_IMAGE, `${e.name}: ${c.name}`);
  }
  assert.deepEqual(names.sort(), ["counter", "init-demo", "web"]);
});
