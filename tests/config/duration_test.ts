import assert from "node:assert/strict";
import { DurationSyntaxError, formatDuration, parseDuration } from "../../src/config/mod.ts";

Deno.test("parseDuration accepts Go duration syntax", () => {
  const cases: Array<[string, number]> = [
    ["300ms", 300],
    ["20s", 20_000],
    ["1m30s", 90_000],
    ["1h", 3_600_000],
    ["1.5h", 5_400_000],
    ["2h45m", 9_900_000],
    ["1.1s", 1_100],
    [".5s", 500],
    ["5.s", 5_000],
    ["-1s", -1_000],
    ["+2m", 120_000],
    ["0", 0],
    ["-0", 0],
    ["0s", 0],
    ["1000ns", 0.001],
    ["1us", 0.001],
    ["1µs", 0.001],
    ["1μs", 0.001],
    ["1h1m1s1ms", 3_661_001],
  ];
  for (const [input, ms] of cases) assert.equal(parseDuration(input), ms, input);
});

Deno.test("parseDuration rejects what Go rejects, saying why", () => {
  const cases: Array<[string, RegExp]> = [
    ["", /invalid duration ""/],
    ["abc", /invalid duration "abc"/],
    ["1", /missing unit in duration "1"/],
    ["10", /missing unit/],
    ["1x", /unknown unit "x" in duration "1x"/],
    ["1d", /unknown unit "d"/],
    ["1 s", /unknown unit " s"/],
    [".s", /invalid duration/],
    ["1s2", /missing unit/],
    ["-", /invalid duration/],
    ["3000000h", /out of range/],
  ];
  for (const [input, message] of cases) {
    assert.throws(() => parseDuration(input), (e: unknown) => {
      assert.ok(e instanceof DurationSyntaxError, input);
      assert.match(e.message, message, input);
      return true;
    });
  }
});

Deno.test("formatDuration prints like Go's Duration.String", () => {
  const cases: Array<[number, string]> = [
    [0, "0s"],
    [60_000, "1m0s"],
    [20_000, "20s"],
    [120_000, "2m0s"],
    [90_500, "1m30.5s"],
    [3_600_000, "1h0m0s"],
    [5_400_000, "1h30m0s"],
    [300, "300ms"],
    [1.5, "1.5ms"],
    [0.001, "1µs"],
    [-1_000, "-1s"],
  ];
  for (const [ms, text] of cases) assert.equal(formatDuration(ms), text, String(ms));
});

Deno.test("formatDuration output parses back to the same value", () => {
  for (const ms of [1, 999, 1_000, 61_000, 3_599_999, 86_400_000]) {
    assert.equal(parseDuration(formatDuration(ms)), ms);
  }
});
