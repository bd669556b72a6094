import assert from "node:assert/strict";
import { ConfigError } from "../../src/util/errors.ts";
import {
  formatQuantity,
  parseQuantity,
  quantityMilliValue,
  quantityValue,
  tryIntegerQuantity,
  tryParseQuantity,
} from "../../src/util/quantity.ts";

Deno.test("parseQuantity reads every Kubernetes spelling", () => {
  const cases: [string | number, number][] = [
    ["100m", 0.1],
    ["0.5", 0.5],
    [".5", 0.5],
    ["1.", 1],
    ["1", 1],
    ["+2", 2],
    ["-1", -1],
    ["128Mi", 128 * 2 ** 20],
    ["1Ki", 1024],
    ["1Gi", 2 ** 30],
    ["1G", 1e9],
    ["1k", 1000],
    ["1e3", 1000],
    ["1E3", 1000],
    ["1e-3", 0.001],
    ["1E", 1e18],
    ["500n", 5e-7],
    ["2u", 2e-6],
    [3, 3],
    [0.25, 0.25],
  ];
  for (const [q, want] of cases) {
    const got = parseQuantity(q);
    assert.ok(Math.abs(got - want) <= Math.abs(want) * 1e-12, `${q}: ${got} != ${want}`);
  }
});

Deno.test("parseQuantity rejects malformed quantities with ConfigError", () => {
  for (
    const bad of [
      "",
      " ",
      "1 Gi",
      "abc",
      "1KB",
      "1mi",
      "Mi",
      ".",
      "1.2.3",
      "--1",
      "1e",
      "1e1.5",
      "0x10",
      "1ki",
      "1e99999",
    ]
  ) {
    assert.throws(() => parseQuantity(bad), ConfigError, JSON.stringify(bad));
  }
  assert.throws(() => parseQuantity(Number.NaN), ConfigError);
  assert.throws(
    () => parseQuantity("x", { field: "resources.limits.cpu" }),
    /resources\.limits\.cpu/,
  );
});

Deno.test("milli and whole values round up exactly like apimachinery", () => {
  assert.equal(quantityMilliValue("0.7"), 700);
  assert.equal(quantityMilliValue("100m"), 100);
  assert.equal(quantityMilliValue("0.0001"), 1);
  assert.equal(quantityMilliValue("2"), 2000);
  assert.equal(quantityMilliValue("1e-3"), 1);
  assert.equal(quantityValue("1.5"), 2);
  assert.equal(quantityValue("128Mi"), 134217728);
  assert.equal(quantityValue("0.5Ki"), 512);
  assert.equal(quantityValue("1500m"), 2);
});

Deno.test("tryParseQuantity gives the value or undefined, never throws", () => {
  assert.equal(tryParseQuantity("100m"), 0.1);
  assert.equal(tryParseQuantity("100m"), tryParseQuantity("0.1"));
  assert.equal(tryParseQuantity("64Mi"), tryParseQuantity("67108864"));
  assert.equal(tryParseQuantity(0.25), 0.25);
  assert.equal(tryParseQuantity("-1"), -1);
  for (const bad of ["lots", "", " 1", "1e99999", Number.NaN, Infinity, null, undefined, {}]) {
    assert.equal(tryParseQuantity(bad), undefined, String(bad));
  }
});

Deno.test("tryIntegerQuantity rounds up and keeps the suffix's format for printing", () => {
  assert.deepEqual(tryIntegerQuantity("100Mi"), { value: 104857600, format: "BinarySI" });
  assert.deepEqual(tryIntegerQuantity("1.5G"), { value: 1.5e9, format: "DecimalSI" });
  assert.deepEqual(tryIntegerQuantity("1e3"), { value: 1000, format: "DecimalSI" });
  assert.deepEqual(tryIntegerQuantity(7), { value: 7, format: "DecimalSI" });
  assert.equal(tryIntegerQuantity("1.1Gi")?.value, 1181116007);
  assert.equal(tryIntegerQuantity("garbage"), undefined);
  const q = tryIntegerQuantity("1536Mi")!;
  assert.equal(formatQuantity(q.value, q.format), "1536Mi");
});
