import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { type DownwardContext, resourceFieldValue } from "../../src/runtime/_downward_api.ts";
import { ConfigError } from "../../src/util/errors.ts";

const GiB = 2 ** 30;
const ctx: DownwardContext & { field: string } = {
  nodeName: "n",
  field: "env[E]",
  nodeAllocatable: { cpuMilli: 4000, memoryBytes: 8 * GiB, ephemeralStorageBytes: 100 * GiB },
};

function value(c: V1Container, resource: string, divisor?: string, alloc = ctx) {
  const pod: V1Pod = { metadata: { name: "p" }, spec: { containers: [c] } };
  return resourceFieldValue(pod, c, { resource, divisor }, alloc);
}

Deno.test("resourceFieldRef reads ephemeral-storage like memory, unset limits from allocatable", () => {
  const c: V1Container = {
    name: "a",
    resources: {
      limits: { "ephemeral-storage": "1Gi" },
      requests: { "ephemeral-storage": "1.5Mi" },
    },
  };
  assert.equal(value(c, "limits.ephemeral-storage", "1Mi"), "1024");
  assert.equal(value(c, "requests.ephemeral-storage"), String(1.5 * 2 ** 20));
  assert.equal(value(c, "requests.ephemeral-storage", "1Mi"), "2", "rounded up");
  const bare: V1Container = { name: "b" };
  assert.equal(value(bare, "limits.ephemeral-storage", "1Gi"), "100");
  assert.equal(value(bare, "requests.ephemeral-storage"), "0");
  // Unknown allocatable storage leaves the limit at 0, as upstream when allocatable lacks it.
  const noStorage = { ...ctx, nodeAllocatable: { cpuMilli: 4000, memoryBytes: 8 * GiB } };
  assert.equal(value(bare, "limits.ephemeral-storage", undefined, noStorage), "0");
  // An absent request is the limit (API defaulting).
  const limitOnly: V1Container = {
    name: "l",
    resources: { limits: { "ephemeral-storage": "2Gi" } },
  };
  assert.equal(value(limitOnly, "requests.ephemeral-storage", "1Gi"), "2");
});

Deno.test("resourceFieldRef reads hugepages-<size> requests and limits, 0 when unset", () => {
  const c: V1Container = {
    name: "a",
    resources: { limits: { "hugepages-2Mi": "64Mi" }, requests: { "hugepages-2Mi": "64Mi" } },
  };
  assert.equal(value(c, "limits.hugepages-2Mi", "2Mi"), "32");
  assert.equal(value(c, "requests.hugepages-2Mi"), String(64 * 2 ** 20));
  assert.equal(value(c, "limits.hugepages-1Gi"), "0");
  assert.throws(() => value(c, "limits.nvidia.com/gpu"), ConfigError);
  assert.throws(() => value(c, "hugepages-2Mi"), ConfigError);
});

Deno.test("resourceFieldRef refuses a negative ephemeral-storage or hugepages quantity, as memory", () => {
  const negative = (name: string): V1Container => ({
    name: "n",
    resources: { limits: { [name]: "-1Gi" } },
  });
  for (const name of ["memory", "ephemeral-storage", "hugepages-2Mi"]) {
    for (const kind of ["limits", "requests"]) {
      assert.throws(
        () => value(negative(name), `${kind}.${name}`),
        (e) => e instanceof ConfigError && /must not be negative/.test(e.message),
        `${kind}.${name}`,
      );
    }
  }
});

Deno.test("resourceFieldRef reads a divisor of 0 (the API server's unset divisor) as 1", () => {
  // A Quantity is not a pointer in the Go type: an unset divisor is serialized as "0", and the
  // kubelet (ExtractContainerResourceValue) divides by 1 then.
  const c: V1Container = {
    name: "a",
    resources: { limits: { cpu: "1250m", memory: "64Mi" }, requests: { cpu: "250m" } },
  };
  assert.equal(value(c, "limits.cpu", "0"), "2", "1250m rounded up to whole cores");
  assert.equal(value(c, "requests.cpu", "0"), "1");
  assert.equal(value(c, "limits.memory", "0"), String(64 * 2 ** 20));
  assert.equal(value(c, "limits.memory", "0Mi"), String(64 * 2 ** 20));
  assert.throws(() => value(c, "limits.memory", "-1"), ConfigError);
});
