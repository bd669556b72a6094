import assert from "node:assert/strict";
import { containerCgroupPath } from "../../src/stats/mod.ts";

Deno.test("containerCgroupPath: cgroupfs directories, systemd's cri-containerd scopes under slices", () => {
  assert.equal(
    containerCgroupPath("/kubepods/burstable/podu1", "c1"),
    "kubepods/burstable/podu1/c1",
  );
  assert.equal(containerCgroupPath(undefined, "c1"), "k8s.io/c1");
  // containerd with SystemdCgroup = true: "<pod slice>:cri-containerd:<id>" becomes this scope.
  assert.equal(
    containerCgroupPath(
      "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podu1.slice",
      "c1",
    ),
    "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podu1.slice/cri-containerd-c1.scope",
  );
});
