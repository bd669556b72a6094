import assert from "node:assert/strict";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const FILE = "/etc/kubernetes/kubelet.yaml";

Deno.test("--pod-max-pids / podPidsLimit: default -1, from the file, the flag wins", async () => {
  assert.equal((await run([])).config.podPidsLimit, -1);
  const flagged = await run(["--pod-max-pids=4096"]);
  assert.equal(flagged.config.podPidsLimit, 4096);
  assert.deepEqual(flagged.warnings, [], "implemented, so no longer an ignored upstream flag");
  const files = { [FILE]: HEAD + "podPidsLimit: 100\n" };
  const fromFile = await run(["--config", FILE], files);
  assert.equal(fromFile.config.podPidsLimit, 100);
  assert.deepEqual(fromFile.warnings, []);
  assert.equal(
    (await run(["--config", FILE, "--pod-max-pids", "-1"], files)).config.podPidsLimit,
    -1,
  );
  // A pointer upstream: an explicit 0 is kept (no limit, as -1).
  const zero = await run(["--config", FILE], { [FILE]: HEAD + "podPidsLimit: 0\n" });
  assert.equal(zero.config.podPidsLimit, 0);
  await fails(["--pod-max-pids=many"], "--pod-max-pids", /expected an integer/);
  await fails(["--config", FILE], `${FILE}: podPidsLimit`, /expected an integer/, {
    [FILE]: HEAD + 'podPidsLimit: "100"\n',
  });
});
