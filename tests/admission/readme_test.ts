/** The README's list of refused Pod fields is the field table's, as generated. */
import assert from "node:assert/strict";
import { END, renderBlock, START } from "../support/refused_fields.ts";

Deno.test("README: the refused-fields list matches the field table (regenerate with --write)", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  assert.ok(a >= 0 && b > a, "README.md has the generated refused-fields block");
  // deno fmt wraps long items and spaces the block out: compare the words.
  const words = (text: string) => text.replace(/\s+/g, " ").trim();
  assert.equal(
    words(readme.slice(a, b + END.length)),
    words(renderBlock()),
    "run: deno run -A tests/support/refused_fields.ts --write",
  );
});
