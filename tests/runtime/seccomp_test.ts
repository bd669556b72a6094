import assert from "node:assert/strict";
import type { V1Container, V1Pod, V1SeccompProfile } from "@kubernetes/client-node";
import {
  containerSeccomp,
  sandboxSeccomp,
  type SeccompOptions,
  seccompProfileRoot,
} from "../../src/runtime/_seccomp.ts";
import type { SecurityProfile } from "../../src/cri/types.ts";
import { ConfigError } from "../../src/util/errors.ts";

function podWith(podLevel?: V1SeccompProfile, containerLevel?: V1SeccompProfile) {
  const container: V1Container = {
    name: "app",
    securityContext: containerLevel ? { seccompProfile: containerLevel } : undefined,
  };
  const pod: V1Pod = {
    metadata: { name: "web", namespace: "prod", uid: "u-1" },
    spec: {
      containers: [container],
      securityContext: podLevel ? { seccompProfile: podLevel } : undefined,
    },
  };
  return { pod, container };
}

const RD: SecurityProfile = { profileType: "RuntimeDefault" };
const UNCONFINED: SecurityProfile = { profileType: "Unconfined" };
const runtimeDefault: V1SeccompProfile = { type: "RuntimeDefault" };
const unconfined: V1SeccompProfile = { type: "Unconfined" };
const local = (p: string): V1SeccompProfile => ({ type: "Localhost", localhostProfile: p });

Deno.test("containerSeccomp: container over pod over the node default", () => {
  const on: SeccompOptions = { seccompDefault: true };
  const rows: [
    string,
    V1SeccompProfile | undefined,
    V1SeccompProfile | undefined,
    SeccompOptions,
    SecurityProfile,
  ][] = [
    ["nothing set, default off", undefined, undefined, {}, UNCONFINED],
    ["nothing set, seccompDefault on", undefined, undefined, on, RD],
    ["pod RuntimeDefault", runtimeDefault, undefined, {}, RD],
    ["pod Unconfined beats seccompDefault", unconfined, undefined, on, UNCONFINED],
    ["container Unconfined over pod RuntimeDefault", runtimeDefault, unconfined, {}, UNCONFINED],
    ["container RuntimeDefault over pod Unconfined", unconfined, runtimeDefault, {}, RD],
    ["container Unconfined beats seccompDefault", undefined, unconfined, on, UNCONFINED],
    ["an unknown type is Unconfined, as upstream", { type: "Strict" }, undefined, on, UNCONFINED],
  ];
  for (const [what, podLevel, containerLevel, opts, want] of rows) {
    const { pod, container } = podWith(podLevel, containerLevel);
    assert.deepEqual(containerSeccomp(pod, container, opts), want, what);
  }
});

Deno.test("containerSeccomp: Localhost profiles resolve under <root-dir>/seccomp", () => {
  const { pod, container } = podWith(local("profiles/audit.json"));
  assert.deepEqual(containerSeccomp(pod, container), {
    profileType: "Localhost",
    localhostRef: "/var/lib/kubelet/seccomp/profiles/audit.json",
  });
  const root = seccompProfileRoot("/srv/kubelet/");
  assert.equal(root, "/srv/kubelet/seccomp");
  const own = podWith(runtimeDefault, local("./a//b.json"));
  assert.deepEqual(containerSeccomp(own.pod, own.container, { seccompProfileRoot: root }), {
    profileType: "Localhost",
    localhostRef: "/srv/kubelet/seccomp/a/b.json",
  });
});

Deno.test("containerSeccomp: Localhost without a profile name is a config error", () => {
  const { pod, container } = podWith(undefined, { type: "Localhost" });
  assert.throws(
    () => containerSeccomp(pod, container),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.field === "containers[app].securityContext.seccompProfile.localhostProfile",
  );
  const podLevel = podWith({ type: "Localhost", localhostProfile: "" });
  assert.throws(
    () => containerSeccomp(podLevel.pod, podLevel.container),
    /spec\.securityContext\.seccompProfile\.localhostProfile: must be set/,
  );
});

Deno.test("sandboxSeccomp is RuntimeDefault and a fresh object each time", () => {
  assert.deepEqual(sandboxSeccomp(), RD);
  assert.notEqual(sandboxSeccomp(), sandboxSeccomp());
});
