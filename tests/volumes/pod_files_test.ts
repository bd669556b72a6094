import assert from "node:assert/strict";
import { ConfigError } from "../../src/util/errors.ts";
import { createTerminationLogFile, podDir } from "../../src/volumes/_pod_files.ts";

Deno.test("podDir refuses a uid that is not one safe path component", () => {
  assert.equal(podDir("/var/lib/kubelet", "u-1"), "/var/lib/kubelet/pods/u-1");
  for (const uid of ["", ".", "..", "../../etc", "a/b", "a\0b"]) {
    assert.throws(
      () => podDir("/var/lib/kubelet", uid),
      (e: unknown) => e instanceof ConfigError && e.field === "metadata.uid",
      JSON.stringify(uid),
    );
  }
});

Deno.test("a termination-log file is never created outside the pod directory", async () => {
  const root = await Deno.makeTempDir({ prefix: "denolet-podfiles-" });
  try {
    const dir = `${root}/pods/u-1`;
    const ok = createTerminationLogFile(dir, "main");
    assert.ok(ok.startsWith(`${dir}/containers/main/`), ok);
    for (const name of ["../../escape", "..", ""]) {
      assert.throws(() => createTerminationLogFile(dir, name), ConfigError, JSON.stringify(name));
    }
    const entries = [];
    for await (const e of Deno.readDir(root)) entries.push(e.name);
    assert.deepEqual(entries, ["pods"], "nothing was created beside the pods directory");
    const pods = [];
    for await (const e of Deno.readDir(`${root}/pods`)) pods.push(e.name);
    assert.deepEqual(pods, ["u-1"], "nothing was created beside the pod's own directory");
    const inPod = [];
    for await (const e of Deno.readDir(dir)) inPod.push(e.name);
    assert.deepEqual(inPod, ["containers"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
