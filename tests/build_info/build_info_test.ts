import assert from "node:assert/strict";
import {
  BUILD_INFO,
  executablePath,
  ExecutablePathError,
  PACKED_EXECUTABLE_ENV,
} from "../../src/build_info/mod.ts";

function withEnv(value: string | undefined, fn: () => void): void {
  const before = Deno.env.get(PACKED_EXECUTABLE_ENV);
  try {
    if (value === undefined) Deno.env.delete(PACKED_EXECUTABLE_ENV);
    else Deno.env.set(PACKED_EXECUTABLE_ENV, value);
    fn();
  } finally {
    if (before === undefined) Deno.env.delete(PACKED_EXECUTABLE_ENV);
    else Deno.env.set(PACKED_EXECUTABLE_ENV, before);
  }
}

Deno.test("build info: from source it is dev, not compiled, not packed", () => {
  assert.equal(BUILD_INFO.commit, "dev");
  assert.equal(BUILD_INFO.compiled, false);
  assert.ok(!BUILD_INFO.packed);
});

Deno.test("executablePath: a compiled binary installs itself, whatever the environment says", () => {
  withEnv("/elsewhere/denolet", () => {
    assert.equal(executablePath({ packed: false }), Deno.execPath());
  });
});

Deno.test("executablePath: a packed file installs the file its header names, not the runtime", () => {
  withEnv("/home/pi/denolet-linux-arm64", () => {
    assert.equal(executablePath({ packed: true }), "/home/pi/denolet-linux-arm64");
  });
  withEnv(undefined, () => {
    assert.throws(() => executablePath({ packed: true }), ExecutablePathError);
  });
  withEnv("denolet-linux-arm64", () => {
    assert.throws(
      () => executablePath({ packed: true }),
      /DENOLET_EXECUTABLE is not an absolute path.*--binary/,
    );
  });
});
