import assert from "node:assert/strict";
import { loadConfig } from "../../../src/config/mod.ts";
import { denoletNodeConfig } from "./_node.ts";

Deno.test("conformance node: denolet's config file gives it a pod log directory of its own", async () => {
  // The shared /var/log/pods is swept by every other agent's log GC on this machine.
  const file = JSON.stringify(denoletNodeConfig("/tmp/denolet-conformance-node-x/pods"));
  const r = await loadConfig(["--config", "/etc/denolet/kubelet.yaml", "--read-only-port", "0"], {
    readFile: (p) =>
      p === "/etc/denolet/kubelet.yaml"
        ? Promise.resolve(file)
        : Promise.reject(new Deno.errors.NotFound(p)),
    hostname: () => "conformance-denolet",
    cwd: () => "/",
    cgroupV2: () => true,
  });
  assert.equal(r.kind, "run");
  if (r.kind !== "run") return;
  assert.equal(r.config.podLogsDir, "/tmp/denolet-conformance-node-x/pods");
  assert.deepEqual(r.warnings, []);
});
