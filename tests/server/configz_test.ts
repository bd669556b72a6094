import assert from "node:assert/strict";
import { defaultConfig } from "../../src/config/_defaults.ts";
import { configzView } from "../../src/server/_configz.ts";

Deno.test("/configz shows seccompDefault under its upstream name", () => {
  const config = defaultConfig({ withConfigFile: true });
  assert.equal(configzView(config).seccompDefault, false);
  assert.equal(configzView({ ...config, seccompDefault: true }).seccompDefault, true);
});
