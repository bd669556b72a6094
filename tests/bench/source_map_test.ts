import assert from "node:assert/strict";
import type { CpuProfile } from "./_cdp.ts";
import { decodeMappings, remapProfile, sourceLine } from "./_source_map.ts";

// Line 0: one segment at column 0 from source line 0. Line 1: column 0 from source line 2 and
// column 4 from source line 1 (a negative delta). Line 2: a segment without a source.
const MAPPINGS = "AAAA;AAEA,IADA;C";

Deno.test("decodeMappings keeps each segment's column and absolute source line", () => {
  assert.deepEqual(decodeMappings(MAPPINGS), [[[0, 0]], [[0, 2], [4, 1]], []]);
});

Deno.test("sourceLine takes the last segment at or before the column", () => {
  const map = decodeMappings(MAPPINGS);
  assert.equal(sourceLine(map, 1, 0), 2);
  assert.equal(sourceLine(map, 1, 3), 2);
  assert.equal(sourceLine(map, 1, 9), 1);
  assert.equal(sourceLine(map, 2, 0), undefined);
  assert.equal(sourceLine(map, 7, 0), undefined);
});

Deno.test("remapProfile moves mapped frames to source lines and leaves the rest", () => {
  const frame = (url: string, lineNumber: number) => ({
    functionName: "f",
    url,
    lineNumber,
    columnNumber: 2,
  });
  const profile: CpuProfile = {
    nodes: [{ id: 1, callFrame: frame("file:///a.ts", 1) }, {
      id: 2,
      callFrame: frame("file:///b.js", 1),
    }],
    startTime: 0,
    endTime: 1,
  };
  const out = remapProfile(profile, new Map([["file:///a.ts", decodeMappings(MAPPINGS)]]));
  assert.deepEqual(out.nodes.map((n) => n.callFrame.lineNumber), [2, 1]);
  assert.equal(profile.nodes[0].callFrame.lineNumber, 1, "the profile itself is not changed");
});
