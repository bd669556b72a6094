import assert from "node:assert/strict";
import { parseExposition, replaceAndExclude } from "./prometheus.ts";

Deno.test("replaceAndExclude keeps a go.mod's replace and exclude lines and blocks", () => {
  const goMod = [
    "module github.com/prometheus/prometheus",
    "go 1.25.0",
    "require (",
    "\tgithub.com/a/b v1.0.0",
    ")",
    "exclude github.com/linode/linodego v1.0.0",
    "exclude (",
    "\tgithub.com/x/y v0.1.0",
    ")",
    "replace cloud.google.com/go => cloud.google.com/go v0.123.0",
  ].join("\n");
  assert.deepEqual(replaceAndExclude(goMod), [
    "exclude github.com/linode/linodego v1.0.0",
    "exclude (\ngithub.com/x/y v0.1.0\n)",
    "replace cloud.google.com/go => cloud.google.com/go v0.123.0",
  ]);
});

Deno.test("parseExposition reads samples with labels and timestamps, histograms included", () => {
  const s = parseExposition([
    "# HELP a_total A.",
    "# TYPE a_total counter",
    'a_total{pod="x",id="/a\\"b"} 1.5e+06 1700000000000',
    "# TYPE h histogram",
    'h_bucket{le="1"} 2',
    "h_sum 3",
    "h_count 2",
  ].join("\n"));
  assert.deepEqual(s.get("a_total"), [{
    labels: { pod: "x", id: '/a\\"b' },
    value: 1.5e6,
    ts: 1700000000000,
  }]);
  assert.equal(s.get("h_count")?.[0].value, 2);
});

Deno.test("parseExposition refuses a repeated series and a sample without TYPE", () => {
  assert.throws(
    () => parseExposition('# TYPE a gauge\na{x="1"} 1\na{x="1"} 2\n'),
    /duplicate series/,
  );
  assert.throws(() => parseExposition("b 1\n"), /no TYPE/);
});
