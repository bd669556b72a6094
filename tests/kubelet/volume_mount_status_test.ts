/**
 * status.containerStatuses[].volumeMounts as upstream reports them (RecursiveReadOnlyMounts is
 * GA): every mount as asked, a read-only one with recursiveReadOnly Enabled or Disabled after
 * what the pod's runtime handler supports; kept from the previous status once reported.
 */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import type { V1Pod, V1VolumeMount } from "@kubernetes/client-node";
import { computePodStatus } from "../../src/kubelet/_pod_status.ts";
import type { RuntimePodStatus } from "../../src/runtime/types.ts";

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);

// Upstream's e2e_node "Mount recursive read-only" pod, its "test" container.
const MOUNTS: V1VolumeMount[] = [
  {
    name: "mnt",
    mountPath: "/mnt-rro",
    readOnly: true,
    mountPropagation: "None",
    recursiveReadOnly: "Enabled",
  },
  {
    name: "mnt",
    mountPath: "/mnt-rro-if-possible",
    readOnly: true,
    recursiveReadOnly: "IfPossible",
  },
  { name: "mnt", mountPath: "/mnt-rro-disabled", readOnly: true, recursiveReadOnly: "Disabled" },
  { name: "mnt", mountPath: "/mnt-ro", readOnly: true },
  { name: "mnt", mountPath: "/mnt-rw" },
];

const pod: V1Pod = {
  metadata: { name: "web", namespace: "default", uid: "u1" },
  spec: {
    containers: [
      { name: "test", image: "busybox", volumeMounts: MOUNTS },
      { name: "plain", image: "busybox" },
    ],
    volumes: [{ name: "mnt", emptyDir: {} }],
  },
};

function rs(running: boolean): RuntimePodStatus {
  return {
    uid: "u1",
    name: "web",
    namespace: "default",
    sandboxes: [],
    containers: running
      ? [{
        id: "test-0",
        name: "test",
        sandboxId: "sb1",
        state: "running",
        createdAt: T0 + 1000,
        startedAt: T0 + 2000,
        image: "busybox",
        imageRef: "sha256:beef",
        restartCount: 0,
        hash: "h",
      }]
      : [],
    ips: [],
    timestamp: T0 + 3000,
  };
}

const statusOf = (supported: boolean | undefined, running = false, previous = pod.status) =>
  computePodStatus(pod, rs(running), {
    reasons: new Map(),
    now: T0 + 5000,
    previous,
    recursiveReadOnlyMounts: supported === undefined ? undefined : () => supported,
  });

const byPath = (s: ReturnType<typeof statusOf>) =>
  Object.fromEntries(
    (s.containerStatuses?.find((c) => c.name === "test")?.volumeMounts ?? []).map((
      m,
    ) => [m.mountPath, [m.readOnly ?? false, m.recursiveReadOnly]]),
  );

Deno.test("status volumeMounts: recursiveReadOnly Enabled where the runtime handler supports it", () => {
  const s = statusOf(true);
  assertEquals(byPath(s), {
    "/mnt-rro": [true, "Enabled"],
    "/mnt-rro-if-possible": [true, "Enabled"],
    "/mnt-rro-disabled": [true, "Disabled"],
    "/mnt-ro": [true, "Disabled"],
    "/mnt-rw": [false, undefined],
  });
  assertEquals(s.containerStatuses?.find((c) => c.name === "test")?.volumeMounts?.[0], {
    name: "mnt",
    mountPath: "/mnt-rro",
    readOnly: true,
    recursiveReadOnly: "Enabled",
  });
  assertEquals(s.containerStatuses?.find((c) => c.name === "plain")?.volumeMounts, undefined);
});

Deno.test("status volumeMounts: Disabled where it does not (Enabled's refusal is the container's)", () => {
  for (const supported of [false, undefined]) {
    assertEquals(byPath(statusOf(supported)), {
      "/mnt-rro": [true, "Disabled"],
      "/mnt-rro-if-possible": [true, "Disabled"],
      "/mnt-rro-disabled": [true, "Disabled"],
      "/mnt-ro": [true, "Disabled"],
      "/mnt-rw": [false, undefined],
    });
  }
});

Deno.test("status volumeMounts: a running container keeps the ones reported before it ran", () => {
  const before = statusOf(true);
  // The handler's answer changing later does not rewrite what the container runs with.
  const after = statusOf(false, true, before);
  assertEquals(byPath(after)["/mnt-rro-if-possible"], [true, "Enabled"]);
  assertEquals(
    after.containerStatuses?.find((c) => c.name === "test")?.state?.running !== undefined,
    true,
  );
});
