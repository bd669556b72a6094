import assert from "node:assert/strict";
import {
  DEFAULT_EVICTION_HARD,
  formatQuantity,
  parseThresholdConfig,
  thresholdQuantity,
} from "../../src/eviction/mod.ts";
import { ConfigError } from "../../src/util/errors.ts";

Deno.test("the upstream hard defaults parse into four hard thresholds", () => {
  const ts = parseThresholdConfig({ hard: { ...DEFAULT_EVICTION_HARD } });
  assert.deepEqual(ts.map((t) => [t.signal, t.gracePeriodMs]), [
    ["imagefs.available", 0],
    ["memory.available", 0],
    ["nodefs.available", 0],
    ["nodefs.inodesFree", 0],
  ]);
  const mem = ts.find((t) => t.signal === "memory.available")!;
  assert.deepEqual(mem.value, { quantity: 100 * 2 ** 20, text: "100Mi" });
  const nodefs = ts.find((t) => t.signal === "nodefs.available")!;
  // float32 like upstream: 10% of 1000 GiB truncates the same way Go does.
  assert.equal(thresholdQuantity(nodefs.value, 1000), 100);
});

Deno.test("quantities keep their canonical spelling; percentages are fractions", () => {
  const ts = parseThresholdConfig({
    hard: { "memory.available": "1.5Gi", "pid.available": "5%", "imagefs.inodesFree": "1500M" },
  });
  const byName = Object.fromEntries(ts.map((t) => [t.signal, t.value]));
  assert.deepEqual(byName["memory.available"], { quantity: 1536 * 2 ** 20, text: "1536Mi" });
  assert.deepEqual(byName["imagefs.inodesFree"], { quantity: 1.5e9, text: "1500M" });
  assert.ok("percentage" in byName["pid.available"]);
  assert.equal(thresholdQuantity(byName["pid.available"], 4_194_304), 209_715);
});

Deno.test("0% and 100% switch a threshold off, as upstream", () => {
  const ts = parseThresholdConfig({
    hard: { "nodefs.available": "0%", "imagefs.available": "100%" },
  });
  assert.deepEqual(ts, []);
});

Deno.test("soft thresholds take their grace period; minimum reclaim attaches by signal", () => {
  const ts = parseThresholdConfig({
    hard: { "memory.available": "100Mi" },
    soft: { "memory.available": "300Mi" },
    softGracePeriod: { "memory.available": "1m30s" },
    minimumReclaim: { "memory.available": "50Mi" },
  });
  assert.equal(ts.length, 2);
  assert.equal(ts[0].gracePeriodMs, 0);
  assert.equal(ts[1].gracePeriodMs, 90_000);
  for (const t of ts) assert.deepEqual(t.minReclaim, { quantity: 50 * 2 ** 20, text: "50Mi" });
});

const bad: Array<[string, Parameters<typeof parseThresholdConfig>[0], RegExp]> = [
  [
    "unknown signal",
    { hard: { "memory.free": "1Gi" } },
    /unsupported eviction signal "memory\.free"/,
  ],
  [
    "upstream signal denolet lacks",
    { hard: { "allocatableMemory.available": "1Gi" } },
    /upstream signal denolet does not observe/,
  ],
  [
    "garbage quantity",
    { hard: { "memory.available": "lots" } },
    /memory\.available: "lots" is neither/,
  ],
  ["zero quantity", { hard: { "memory.available": "0" } }, /memory\.available: 0 must be positive/],
  ["negative quantity", { hard: { "memory.available": "-1Mi" } }, /must be positive/],
  ["percentage over 100", { hard: { "nodefs.available": "150%" } }, /must be <= 100%/],
  ["negative percentage", { hard: { "nodefs.available": "-5%" } }, /must be >= 0%/],
  ["not a percentage", { hard: { "nodefs.available": "ten%" } }, /is not a percentage/],
  ["soft without grace", { soft: { "memory.available": "1Gi" } }, /needs a grace period/],
  [
    "bad grace duration",
    { softGracePeriod: { "memory.available": "soon" } },
    /memory\.available: .*soon/,
  ],
  [
    "negative min reclaim",
    { minimumReclaim: { "memory.available": "-1Mi" } },
    /must not be negative/,
  ],
  [
    "zero percent min reclaim",
    { minimumReclaim: { "memory.available": "0%" } },
    /must be positive/,
  ],
];
for (const [name, input, message] of bad) {
  Deno.test(`threshold config rejects ${name}, naming the input and signal`, () => {
    assert.throws(
      () => parseThresholdConfig(input, { names: { hard: "--eviction-hard" } }),
      (e: unknown) => e instanceof ConfigError && message.test(e.message),
    );
  });
}

Deno.test("errors name the flag or field they came from", () => {
  assert.throws(
    () =>
      parseThresholdConfig({ hard: { "x": "1" } }, {
        names: { hard: "kubelet.yaml: evictionHard" },
      }),
    (e: unknown) => e instanceof ConfigError && e.field === "kubelet.yaml: evictionHard",
  );
});

Deno.test("formatQuantity prints Go's canonical forms", () => {
  assert.equal(formatQuantity(104857600, "BinarySI"), "100Mi");
  assert.equal(formatQuantity(90234880, "BinarySI"), "88120Ki");
  assert.equal(formatQuantity(123456789, "BinarySI"), "123456789");
  assert.equal(formatQuantity(1000, "BinarySI"), "1k");
  assert.equal(formatQuantity(0, "BinarySI"), "0");
  assert.equal(formatQuantity(5000, "DecimalSI"), "5k");
  assert.equal(formatQuantity(4194304, "DecimalSI"), "4194304");
});
