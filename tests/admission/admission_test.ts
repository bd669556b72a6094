/** The admit handler: sysctls, supplementalGroupsPolicy, AppArmor and the field table's verdicts. */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  allowlistProblem,
  createPodAdmission,
  ephemeralContainerProblem,
  type PodAdmissionDeps,
  unsupportedMessage,
} from "../../src/admission/mod.ts";
import type { RuntimeCapabilities } from "../../src/kubelet/mod.ts";
import { normalizeSysctlName, podSysctls } from "../../src/runtime/mod.ts";

const CONTAINERD_16: RuntimeCapabilities = {
  handlers: new Map(),
  handlersReported: false,
  features: {
    supplementalGroupsPolicy: false,
    userNamespacesHostNetwork: false,
    mountOptions: false,
  },
  conditions: [],
};

function admission(over: Partial<PodAdmissionDeps> = {}) {
  return createPodAdmission({
    apiMode: true,
    runtime: () => CONTAINERD_16,
    allowedUnsafeSysctls: [],
    kernelRelease: "6.18.44-fc",
    appArmorEnabled: false,
    ...over,
  });
}

function pod(spec: Partial<V1Pod["spec"]> = {}, annotations?: Record<string, string>): V1Pod {
  return {
    metadata: { name: "p", namespace: "ns", uid: "u", annotations },
    spec: { containers: [{ name: "c", image: "busybox" }], ...spec },
  };
}

const sysctl = (name: string, extra: Partial<V1Pod["spec"]> = {}) =>
  pod({ securityContext: { sysctls: [{ name, value: "1" }] }, ...extra });

Deno.test("sysctls: the safe set passes, an unsafe one is SysctlForbidden as upstream words it", () => {
  const admit = admission();
  assert.deepEqual(admit(sysctl("net.ipv4.ip_local_port_range")), { admit: true });
  assert.deepEqual(admit(sysctl("kernel.shm_rmid_forced")), { admit: true });
  assert.deepEqual(admit(sysctl("kernel.msgmax")), {
    admit: false,
    reason: "SysctlForbidden",
    message: 'forbidden sysctl: "kernel.msgmax" not allowlisted',
  });
});

Deno.test("sysctls: a safe sysctl the kernel does not namespace yet is not safe", () => {
  const old = admission({ kernelRelease: "4.5.0-generic" });
  assert.equal(old(sysctl("net.ipv4.tcp_rmem")).admit, false);
  assert.equal(old(sysctl("net.ipv4.tcp_keepalive_time")).admit, true);
});

Deno.test("sysctls: allowedUnsafeSysctls by name and by prefix, refused in a host namespace", () => {
  const admit = admission({ allowedUnsafeSysctls: ["kernel.msg*", "net.core.somaxconn"] });
  assert.equal(admit(sysctl("kernel.msgmax")).admit, true);
  assert.equal(admit(sysctl("net.core.somaxconn")).admit, true);
  assert.equal(admit(sysctl("net.core.rmem_max")).admit, false);
  assert.deepEqual(admit(sysctl("kernel.msgmax", { hostIPC: true })), {
    admit: false,
    reason: "SysctlForbidden",
    message: 'forbidden sysctl: "kernel.msgmax" not allowed with host IPC enabled',
  });
  assert.match(
    admit(sysctl("net.core.somaxconn", { hostNetwork: true })).message!,
    /not allowed with host Net enabled/,
  );
  // The slash form names the same sysctl.
  assert.equal(admit(sysctl("net/core/somaxconn")).admit, true);
});

Deno.test("sysctls: allowlist patterns are checked as upstream's config validation does", () => {
  assert.equal(allowlistProblem(["kernel.msg*", "net.*", "fs.mqueue.msg_max"]), undefined);
  assert.match(allowlistProblem(["kernel.panic"])!, /not known to be namespaced/);
  assert.match(allowlistProblem(["Kernel.msg*"])!, /must have at most 253 characters/);
  assert.equal(
    normalizeSysctlName("net/ipv4/conf/eno2.100/rp_filter"),
    "net.ipv4.conf.eno2/100.rp_filter",
  );
});

Deno.test("defaultPodSysctls reach the sandbox only in namespaces the pod owns; its own win", () => {
  const defaults = { "net.ipv4.tcp_syncookies": "0", "kernel.msgmax": "1", "user.max_x": "9" };
  assert.deepEqual(podSysctls(pod(), defaults), {
    "net.ipv4.tcp_syncookies": "0",
    "kernel.msgmax": "1",
  });
  assert.deepEqual(podSysctls(pod({ hostNetwork: true, hostIPC: true }), defaults), {});
  const own = pod({ securityContext: { sysctls: [{ name: "kernel.msgmax", value: "7" }] } });
  assert.equal(podSysctls(own, defaults)["kernel.msgmax"], "7");
});

Deno.test("supplementalGroupsPolicy Strict is refused where the runtime cannot do it", () => {
  const strict = pod({ securityContext: { supplementalGroupsPolicy: "Strict" } });
  assert.deepEqual(admission()(strict), {
    admit: false,
    reason: "SupplementalGroupsPolicyNotSupported",
    message: "SupplementalGroupsPolicy=Strict is not supported in this node",
  });
  const able = admission({
    runtime: () => ({
      ...CONTAINERD_16,
      features: { ...CONTAINERD_16.features, supplementalGroupsPolicy: true },
    }),
  });
  assert.deepEqual(able(strict), { admit: true });
  assert.deepEqual(admission()(pod({ securityContext: { supplementalGroupsPolicy: "Merge" } })), {
    admit: true,
  });
});

Deno.test("AppArmor: a confined profile needs a host that enforces it; Unconfined does not", () => {
  const runtimeDefault = pod({ securityContext: { appArmorProfile: { type: "RuntimeDefault" } } });
  assert.deepEqual(admission()(runtimeDefault), {
    admit: false,
    reason: "AppArmor",
    message: "Cannot enforce AppArmor: AppArmor is not enabled on the host",
  });
  const annotated = pod({}, { "container.apparmor.security.beta.kubernetes.io/c": "localhost/x" });
  assert.equal(admission()(annotated).reason, "AppArmor");
  const unconfined = pod({
    containers: [{
      name: "c",
      image: "i",
      securityContext: { appArmorProfile: { type: "Unconfined" } },
    }],
  });
  assert.deepEqual(admission()(unconfined), { admit: true });
  assert.deepEqual(admission({ appArmorEnabled: true })(runtimeDefault), { admit: true });
});

Deno.test("field table: a static pod naming a RuntimeClass is refused, saying why", () => {
  const admit = admission({ apiMode: false });
  const v = admit(pod({ runtimeClassName: "kata" }));
  assert.equal(v.reason, "PodFeatureUnsupported");
  assert.match(v.message!, /spec\.runtimeClassName \(a RuntimeClass, which needs an API server/);
});

Deno.test("field table: a field this node does not know is refused once set, ignored when empty", () => {
  const p = pod() as V1Pod & { spec: Record<string, unknown> };
  p.spec.someFutureField = { enabled: true };
  assert.match(
    admission()(p).message!,
    /spec\.someFutureField \(a field this node does not know\)/,
  );
  p.spec.someFutureField = {};
  assert.deepEqual(admission()(p), { admit: true });
});

Deno.test("field table: refusals list the fields in order, five at most", () => {
  const many = Array.from({ length: 7 }, (_, i) => ({ field: `spec.f${i}`, what: `w${i}` }));
  assert.equal(
    unsupportedMessage(many),
    "Pod requires node features that are not available: spec.f0 (w0), spec.f1 (w1), " +
      "spec.f2 (w2), spec.f3 (w3), spec.f4 (w4), and 2 more",
  );
});

Deno.test("field table: an emptyDir's sizeLimit is honoured, in memory (tmpfs size) and on disk (eviction)", () => {
  const vol = (medium: string) =>
    pod({ volumes: [{ name: "v", emptyDir: { medium, sizeLimit: "64Mi" } }] });
  assert.deepEqual(admission()(vol("Memory")), { admit: true });
  assert.deepEqual(admission()(vol("")), { admit: true });
});

Deno.test("field table: ephemeral-storage limits are honoured (eviction)", () => {
  const storage = { "ephemeral-storage": "1Gi" };
  const containers = [{ name: "c", image: "busybox", resources: { limits: storage } }];
  assert.deepEqual(admission()(pod({ containers })), { admit: true });
});

Deno.test("field table: pod-level cpu and memory resources are honoured", () => {
  const whole = { cpu: "1", memory: "1Gi" };
  assert.deepEqual(admission()(pod({ resources: { requests: whole, limits: whole } })), {
    admit: true,
  });
  const claims = admission()(pod({ resources: { claims: [{ name: "gpu" }] } }));
  assert.match(claims.message!, /spec\.resources\.claims/);
});

Deno.test("field table: hugepages requests and limits are honoured, at container and pod level", () => {
  const huge = { "hugepages-2Mi": "4Mi", memory: "64Mi" };
  const containers = [{ name: "c", image: "busybox", resources: { requests: huge, limits: huge } }];
  assert.deepEqual(admission()(pod({ containers })), { admit: true });
  assert.deepEqual(admission()(pod({ resources: { limits: huge } })), { admit: true });
});

Deno.test("field table: a HugePages emptyDir is honoured", () => {
  for (const medium of ["HugePages", "HugePages-2Mi"]) {
    assert.deepEqual(
      admission()(pod({ volumes: [{ name: "h", emptyDir: { medium } }] })),
      { admit: true },
      medium,
    );
  }
});

Deno.test("field table: container restart policies and Restart rules pass; RestartAllContainers does not", () => {
  const rules = (action: string) =>
    pod({
      containers: [{
        name: "c",
        image: "i",
        restartPolicy: "Never",
        restartPolicyRules: [{ action, exitCodes: { operator: "In", values: [42] } }],
      }],
    });
  assert.deepEqual(admission()(rules("Restart")), { admit: true });
  assert.match(
    admission()(rules("RestartAllContainers")).message!,
    /spec\.containers\[0\]\.restartPolicyRules \(restarting every container/,
  );
});

Deno.test("ephemeral containers go through the same table when they are added", () => {
  const p = pod({
    ephemeralContainers: [
      { name: "ok", image: "busybox" },
      { name: "bad", image: "busybox", volumeDevices: [{ name: "v", devicePath: "/dev/x" }] },
    ],
  });
  const deps = { apiMode: true, runtime: () => CONTAINERD_16 };
  assert.equal(ephemeralContainerProblem(p, "ok", deps), undefined);
  assert.match(
    ephemeralContainerProblem(p, "bad", deps)!,
    /spec\.ephemeralContainers\[1\]\.volumeDevices \(raw block devices/,
  );
  assert.equal(ephemeralContainerProblem(p, "missing", deps), undefined);
});
