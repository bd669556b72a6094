import assert from "node:assert/strict";
import { formatPulls } from "./_pulls.ts";

Deno.test("pulls report shows both times and the serial / parallel ratio", () => {
  const lines = formatPulls({
    images: 6,
    payloadBytes: 6 * 1024 * 1024,
    serialMs: 3000,
    parallelMs: 1200,
    ratio: 2.5,
  });
  assert.match(lines[0], /6 pods at once, each its own image with a fresh 6\.0 MiB layer/);
  assert.match(lines[1], /serializeImagePulls true\):\s+3000 ms/);
  assert.match(lines[2], /serializeImagePulls false\): 1200 ms/);
  assert.equal(lines[3], "  ratio serial / parallel: 2.50");
});
