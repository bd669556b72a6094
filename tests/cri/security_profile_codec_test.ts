/**
 * Seccomp profiles on the wire. The expected bytes are written out by hand from the field numbers
 * of kubernetes/cri-api's api.proto (SecurityProfile: profile_type 1, localhost_ref 2;
 * LinuxSandboxSecurityContext.seccomp 9; LinuxContainerSecurityContext.seccomp 15), so a wrong
 * number in proto/ fails here even though the generated codec agrees with itself.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  decodeCreateContainerRequest,
  decodeLinuxContainerSecurityContext,
  decodeLinuxSandboxSecurityContext,
  decodeRunPodSandboxRequest,
  encodeCreateContainerRequest,
  encodeLinuxContainerSecurityContext,
  encodeLinuxSandboxSecurityContext,
  encodeRunPodSandboxRequest,
} from "../../src/cri/_codec.ts";
import { ProtoReader, ProtoWriter } from "../../src/cri/_wire.ts";
import { buildSandboxConfig, parseResolvConf } from "../../src/runtime/_sandbox_config.ts";
import { buildContainerConfig } from "../../src/runtime/_container_config.ts";

type Msg = Record<string, unknown>;

function encode(fn: (w: ProtoWriter, m: Msg) => void, m: Msg): number[] {
  const w = new ProtoWriter();
  fn(w, m);
  return [...w.finish()];
}

function decode(fn: (r: ProtoReader, end: number) => Msg, bytes: number[]): Msg {
  return fn(new ProtoReader(new Uint8Array(bytes)), bytes.length);
}

Deno.test("a container's Localhost seccomp profile is field 15 holding type 2 and the path", () => {
  const bytes = encode(encodeLinuxContainerSecurityContext, {
    seccomp: { profileType: "Localhost", localhostRef: "/p" },
  });
  // 0x7a = field 15, length-delimited; inside, 0x08 = field 1 varint, 0x12 = field 2 bytes.
  assert.deepEqual(bytes, [0x7a, 6, 0x08, 2, 0x12, 2, 0x2f, 0x70]);
  const back = decode(decodeLinuxContainerSecurityContext, bytes);
  assert.deepEqual(back.seccomp, { profileType: "Localhost", localhostRef: "/p" });
});

Deno.test("Unconfined is type 1; RuntimeDefault (0) still sends the sandbox's field 9", () => {
  const unconfined = encode(encodeLinuxContainerSecurityContext, {
    seccomp: { profileType: "Unconfined" },
  });
  assert.deepEqual(unconfined, [0x7a, 2, 0x08, 1]);
  // The sub-message must be present even with every member at its default: a runtime reads an
  // absent profile as "none", not as RuntimeDefault.
  const sandbox = encode(encodeLinuxSandboxSecurityContext, {
    seccomp: { profileType: "RuntimeDefault" },
  });
  assert.equal(sandbox[0], 0x4a, "field 9, length-delimited");
  assert.deepEqual(decode(decodeLinuxSandboxSecurityContext, sandbox).seccomp, {
    profileType: "RuntimeDefault",
    localhostRef: "",
  });
  assert.throws(
    () => encode(encodeLinuxContainerSecurityContext, { seccomp: { profileType: "Strict" } }),
    /ProfileType: "Strict" is not one of its values/,
  );
});

Deno.test("the configs built for a pod carry their profiles through a CRI round trip", async () => {
  const pod: V1Pod = {
    metadata: { name: "web", namespace: "prod", uid: "u-1" },
    spec: {
      securityContext: { seccompProfile: { type: "Localhost", localhostProfile: "app.json" } },
      containers: [{ name: "app", image: "busybox" }],
    },
  };
  const sandboxConfig = buildSandboxConfig(pod, 0, {
    podLogsDir: "/var/log/pods",
    clusterDNS: [],
    clusterDomain: "",
    hostDNS: parseResolvConf(""),
  });
  const container = pod.spec!.containers[0];
  const config = await buildContainerConfig(pod, container, {
    restartCount: 0,
    podIPs: [],
    nodeName: "n",
    volumes: new Map(),
    podLogsDir: "/var/log/pods",
    memoryCapacityBytes: 2 ** 30,
    seccompProfileRoot: "/var/lib/kubelet/seccomp",
  });

  const run = decode(
    decodeRunPodSandboxRequest,
    encode(encodeRunPodSandboxRequest, { config: sandboxConfig }),
  ) as { config: { linux: { securityContext: { seccomp: unknown } } } };
  assert.deepEqual(run.config.linux.securityContext.seccomp, {
    profileType: "RuntimeDefault",
    localhostRef: "",
  });

  const create = decode(
    decodeCreateContainerRequest,
    encode(encodeCreateContainerRequest, { podSandboxId: "sb", config, sandboxConfig }),
  ) as { config: { linux: { securityContext: { seccomp: unknown } } } };
  assert.deepEqual(create.config.linux.securityContext.seccomp, {
    profileType: "Localhost",
    localhostRef: "/var/lib/kubelet/seccomp/app.json",
  });
});
