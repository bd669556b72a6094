/**
 * Honour or refuse, static pods on the real containerd: an unsafe sysctl is refused
 * (SysctlForbidden) unless --allowed-unsafe-sysctls names it, and then it is set in the pod; a
 * safe one is set; a RuntimeClass, an AppArmor profile on a host without AppArmor and an nfs
 * volume are refused with upstream's reasons and a message naming the field; nothing of a
 * refused pod reaches the runtime, and the other pods run.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { E2E_TEST, POD_UID_LABEL, setupE2E, shellPod } from "./_helpers.ts";

const failed = (p: V1Pod) => p.status?.phase === "Failed";

Deno.test({
  name:
    "pod fields: sysctls, RuntimeClass, AppArmor and unsupported volumes are honoured or refused",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E({ extraArgs: ["--allowed-unsafe-sysctls=kernel.shm*"] });
    try {
      const sysctls = (name: string, list: Array<{ name: string; value: string }>) =>
        shellPod(
          name,
          "echo msgmax=$(cat /proc/sys/kernel/msgmax) shmmni=$(cat /proc/sys/kernel/shmmni) " +
            "ports=$(cat /proc/sys/net/ipv4/ip_local_port_range | tr '\\t' -); sleep 3600",
          { securityContext: { sysctls: list } },
        );
      await e2e.writePod(
        "unsafe.yaml",
        sysctls("unsafe", [{ name: "kernel.msgmax", value: "9999" }]),
      );
      await e2e.writePod(
        "allowed.yaml",
        sysctls("allowed", [
          { name: "kernel.shmmni", value: "1234" },
          { name: "net.ipv4.ip_local_port_range", value: "20000 30000" },
        ]),
      );
      await e2e.writePod("rc.yaml", shellPod("rc", "sleep 3600", { runtimeClassName: "kata" }));
      await e2e.writePod(
        "apparmor.yaml",
        shellPod("apparmor", "sleep 3600", {
          securityContext: { appArmorProfile: { type: "RuntimeDefault" } },
        }),
      );
      await e2e.writePod(
        "nfs.yaml",
        shellPod("nfs", "sleep 3600", {
          volumes: [{ name: "share", nfs: { server: "127.0.0.1", path: "/export" } }],
        }),
      );

      const unsafe = await e2e.waitPod("unsafe", failed, { what: "unsafe to be refused" });
      assert.equal(unsafe.status?.reason, "SysctlForbidden");
      assert.equal(
        unsafe.status?.message,
        'Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted',
      );

      const rc = await e2e.waitPod("rc", failed, { what: "rc to be refused" });
      assert.equal(rc.status?.reason, "PodFeatureUnsupported");
      assert.match(
        rc.status?.message ?? "",
        /spec\.runtimeClassName \(a RuntimeClass, which needs an API server/,
      );

      const apparmor = await e2e.waitPod("apparmor", failed, { what: "apparmor to be refused" });
      assert.equal(apparmor.status?.reason, "AppArmor");
      assert.equal(
        apparmor.status?.message,
        "Pod was rejected: Cannot enforce AppArmor: AppArmor is not enabled on the host",
      );

      const nfs = await e2e.waitPod("nfs", failed, { what: "nfs to be refused" });
      assert.equal(nfs.status?.reason, "PodFeatureUnsupported");
      assert.equal(
        nfs.status?.message,
        "Pod was rejected: Pod requires node features that are not available: " +
          "spec.volumes[0].nfs (nfs volumes)",
      );

      // The allowed pod runs with both sysctls applied in its own namespaces.
      const allowed = await e2e.waitPod(
        "allowed",
        (p) => p.status?.phase === "Running",
        { what: "allowed to run", timeoutMs: 60_000 },
      );
      const log = await e2e.waitLog(allowed, "main", ["msgmax="]);
      assert.match(log, /shmmni=1234 /);
      assert.match(log, /ports=20000-30000/);

      for (const p of [unsafe, rc, apparmor, nfs]) {
        const uid = p.metadata!.uid!;
        assert.deepEqual(await e2e.sandboxes(uid), [], `${p.metadata?.name}: no sandbox`);
        const containers = await e2e.cri.runtime.listContainers({
          labelSelector: { [POD_UID_LABEL]: uid },
        });
        assert.deepEqual(containers, [], `${p.metadata?.name}: no container`);
      }
    } finally {
      await e2e.close();
    }
  },
});
