import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { CONFIG_SOURCE_ANNOTATION, isStaticPod } from "../../src/util/static_pod.ts";
import { CONFIG_SOURCE_ANNOTATION as FROM_SOURCES } from "../../src/sources/mod.ts";

Deno.test("isStaticPod: a config source other than api; none at all is not static", () => {
  const pod = (source?: string): V1Pod => ({
    metadata: {
      annotations: source === undefined ? {} : { [CONFIG_SOURCE_ANNOTATION]: source },
    },
  });
  assert.equal(isStaticPod(pod("file")), true);
  assert.equal(isStaticPod(pod("http")), true);
  assert.equal(isStaticPod(pod("api")), false);
  assert.equal(isStaticPod(pod()), false);
  assert.equal(isStaticPod({}), false);
  assert.equal(FROM_SOURCES, "kubernetes.io/config.source", "the sources' constant is this one");
});
