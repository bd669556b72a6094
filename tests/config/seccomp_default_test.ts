import assert from "node:assert/strict";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const FILE = "/etc/kubernetes/kubelet.yaml";

Deno.test("--seccomp-default is off by default and takes pflag's boolean forms", async () => {
  assert.equal((await run([])).config.seccompDefault, false);
  assert.equal((await run(["--seccomp-default"])).config.seccompDefault, true);
  assert.equal((await run(["--seccomp-default=true"])).config.seccompDefault, true);
  assert.equal(
    (await run(["--seccomp-default", "--seccomp-default=false"])).config.seccompDefault,
    false,
  );
  const { warnings } = await run(["--seccomp-default"]);
  assert.deepEqual(warnings, [], "implemented, so no longer an ignored upstream flag");
  await fails(["--seccomp-default=maybe"], "--seccomp-default", /expected a boolean/);
});

Deno.test("seccompDefault is read from the config file, and the flag wins over it", async () => {
  const files = { [FILE]: HEAD + "seccompDefault: true\n" };
  const fromFile = await run(["--config", FILE], files);
  assert.equal(fromFile.config.seccompDefault, true);
  assert.deepEqual(fromFile.warnings, []);
  const flagged = await run(["--config", FILE, "--seccomp-default=false"], files);
  assert.equal(flagged.config.seccompDefault, false);
  await fails(
    ["--config", FILE],
    `${FILE}: seccompDefault`,
    /expected true or false, got string "on"/,
    { [FILE]: HEAD + 'seccompDefault: "on"\n' },
  );
});
