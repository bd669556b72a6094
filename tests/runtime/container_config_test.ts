import assert from "node:assert/strict";
import type { V1Container, V1Pod, V1PodSpec } from "@kubernetes/client-node";
import {
  buildContainerConfig,
  type ContainerConfigOptions,
  containerSecurityContext,
  needsImageUser,
  RunAsNonRootError,
} from "../../src/runtime/_container_config.ts";
import { containerHash } from "../../src/runtime/_labels.ts";
import { ConfigError, isKind } from "../../src/util/errors.ts";
import type { MountedVolume } from "../../src/volumes/mod.ts";

function pod(container: V1Container, spec: Partial<V1PodSpec> = {}): V1Pod {
  return {
    metadata: { name: "web", namespace: "prod", uid: "u-1" },
    spec: { containers: [container], ...spec },
  };
}

const baseOpts: ContainerConfigOptions = {
  restartCount: 2,
  podIPs: ["10.0.0.5"],
  hostIP: "192.168.1.2",
  nodeName: "node-1",
  volumes: new Map(),
  podLogsDir: "/var/log/pods",
  memoryCapacityBytes: 8 * 2 ** 30,
};

Deno.test("buildContainerConfig fills metadata, image, env, command expansion, logPath and labels", async () => {
  const c: V1Container = {
    name: "app",
    image: "busybox:1.36",
    command: ["sh", "-c"],
    args: ["echo $(GREETING) $(POD_IP) $$(GREETING) $(UNSET)"],
    workingDir: "/work",
    env: [
      { name: "GREETING", value: "hi" },
      { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
    ],
    tty: true,
    stdin: true,
  };
  const cfg = await buildContainerConfig(pod(c), c, { ...baseOpts, imageRef: "sha256:abc" });
  assert.deepEqual(cfg.metadata, { name: "app", attempt: 2 });
  assert.deepEqual(cfg.image, { image: "sha256:abc" });
  assert.deepEqual(cfg.command, ["sh", "-c"]);
  assert.deepEqual(cfg.args, ["echo hi 10.0.0.5 $(GREETING) $(UNSET)"]);
  assert.equal(cfg.workingDir, "/work");
  assert.deepEqual(cfg.envs, [{ key: "GREETING", value: "hi" }, {
    key: "POD_IP",
    value: "10.0.0.5",
  }]);
  assert.equal(cfg.logPath, "app/2.log");
  assert.equal(cfg.tty, true);
  assert.equal(cfg.stdin, true);
  assert.equal(cfg.stdinOnce, false);
  assert.equal(cfg.labels?.["io.kubernetes.container.name"], "app");
  assert.equal(cfg.annotations?.["io.kubernetes.container.hash"], containerHash(c));
  assert.equal(cfg.annotations?.["io.kubernetes.container.restartCount"], "2");
  assert.deepEqual(cfg.linux?.resources, {
    cpuPeriod: 100000,
    cpuQuota: 0,
    cpuShares: 2,
    oomScoreAdj: 1000,
  });
  assert.deepEqual(cfg.mounts, []);
  assert.equal((await buildContainerConfig(pod(c), c, baseOpts)).image.image, "busybox:1.36");
});

Deno.test("security context merges pod and container fields", () => {
  const c: V1Container = {
    name: "app",
    securityContext: {
      runAsUser: 1001,
      privileged: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { add: ["NET_ADMIN"], drop: ["ALL"] },
    },
  };
  const p = pod(c, {
    hostNetwork: true,
    shareProcessNamespace: true,
    securityContext: { runAsUser: 1, runAsGroup: 2000, fsGroup: 3000, supplementalGroups: [4000] },
  });
  const sc = containerSecurityContext(p, c);
  assert.deepEqual(sc.capabilities, { addCapabilities: ["NET_ADMIN"], dropCapabilities: ["ALL"] });
  assert.deepEqual(sc.runAsUser, { value: 1001 });
  assert.deepEqual(sc.runAsGroup, { value: 2000 });
  assert.deepEqual(sc.supplementalGroups, [3000, 4000]);
  assert.deepEqual(sc.namespaceOptions, { network: "NODE", pid: "POD", ipc: "POD" });
  assert.equal(sc.privileged, true);
  assert.equal(sc.readonlyRootfs, true);
  assert.equal(sc.noNewPrivs, true);
  assert.ok(sc.maskedPaths?.includes("/proc/kcore"));
  assert.ok(sc.readonlyPaths?.includes("/proc/sys"));

  const plain = containerSecurityContext(pod({ name: "p" }), { name: "p" });
  assert.equal(plain.noNewPrivs, false);
  assert.equal(plain.privileged, false);
  assert.equal(plain.runAsUser, undefined);
  assert.equal(plain.capabilities, undefined);
  const unmasked = { name: "u", securityContext: { procMount: "Unmasked" } };
  assert.deepEqual(containerSecurityContext(pod(unmasked), unmasked).maskedPaths, []);
});

Deno.test("runAsNonRoot is enforced against runAsUser and the image's user, with upstream's messages", () => {
  const root = { name: "r", securityContext: { runAsNonRoot: true, runAsUser: 0 } };
  assert.throws(
    () => containerSecurityContext(pod(root), root),
    /^RunAsNonRootError: container's runAsUser breaks non-root policy \(pod: "web_prod\(u-1\)", container: r\)$/,
  );
  const podLevel = { name: "r" };
  assert.throws(
    () =>
      containerSecurityContext(
        pod(podLevel, { securityContext: { runAsNonRoot: true, runAsUser: 0 } }),
        podLevel,
      ),
    RunAsNonRootError,
  );
  const unknown = { name: "u", securityContext: { runAsNonRoot: true } };
  assert.doesNotThrow(() => containerSecurityContext(pod(unknown), unknown));
  assert.throws(
    () => containerSecurityContext(pod(unknown), unknown, { imageUser: { uid: 0 } }),
    (e) =>
      e instanceof RunAsNonRootError &&
      e.message === "container has runAsNonRoot and image will run as root " +
          '(pod: "web_prod(u-1)", container: u)',
  );
  assert.throws(
    () => containerSecurityContext(pod(unknown), unknown, { imageUser: { username: "nobody" } }),
    (e) =>
      e instanceof RunAsNonRootError &&
      e.message === "container has runAsNonRoot and image has non-numeric user (nobody), " +
          'cannot verify user is non-root (pod: "web_prod(u-1)", container: u)',
  );
  assert.doesNotThrow(() =>
    containerSecurityContext(pod(unknown), unknown, { imageUser: { uid: 65534 } })
  );
  // A runAsUser in the spec makes the image's user irrelevant.
  const named = { name: "n", securityContext: { runAsNonRoot: true, runAsUser: 1000 } };
  assert.doesNotThrow(() =>
    containerSecurityContext(pod(named), named, { imageUser: { username: "app" } })
  );
});

Deno.test("without a runAsUser in the spec the image's uid or name is sent (determineEffectiveSecurityContext)", () => {
  const c = { name: "a" };
  const grouped = pod(c, { securityContext: { runAsGroup: 3000 } });
  const byUid = containerSecurityContext(grouped, c, { imageUser: { uid: 1000 } });
  assert.deepEqual(byUid.runAsUser, { value: 1000 });
  assert.deepEqual(byUid.runAsGroup, { value: 3000 });
  assert.equal(byUid.runAsUsername, undefined);
  const rootImage = containerSecurityContext(pod(c), c, { imageUser: { uid: 0 } });
  assert.deepEqual(rootImage.runAsUser, { value: 0 });
  const byName = containerSecurityContext(grouped, c, { imageUser: { username: "app" } });
  assert.equal(byName.runAsUser, undefined);
  assert.equal(byName.runAsUsername, "app");
  const explicit = { name: "e", securityContext: { runAsUser: 7 } };
  const spec = containerSecurityContext(pod(explicit), explicit, { imageUser: { username: "x" } });
  assert.deepEqual(spec.runAsUser, { value: 7 });
  assert.equal(spec.runAsUsername, undefined);
});

Deno.test("needsImageUser: only runAsNonRoot or runAsGroup without an effective runAsUser", () => {
  const c = (securityContext?: V1Container["securityContext"]): V1Container => ({
    name: "a",
    securityContext,
  });
  assert.equal(needsImageUser(pod(c()), c()), false);
  assert.equal(needsImageUser(pod(c({ privileged: true })), c({ privileged: true })), false);
  assert.equal(needsImageUser(pod(c({ runAsNonRoot: true })), c({ runAsNonRoot: true })), true);
  assert.equal(needsImageUser(pod(c({ runAsNonRoot: false })), c({ runAsNonRoot: false })), false);
  assert.equal(needsImageUser(pod(c(), { securityContext: { runAsGroup: 5 } }), c()), true);
  // Container fields override the pod's, both ways.
  const own = c({ runAsUser: 1000 });
  assert.equal(
    needsImageUser(pod(own, { securityContext: { runAsNonRoot: true, runAsGroup: 5 } }), own),
    false,
  );
  assert.equal(
    needsImageUser(
      pod(c({ runAsNonRoot: true }), { securityContext: { runAsUser: 0 } }),
      c({
        runAsNonRoot: true,
      }),
    ),
    false,
  );
});

Deno.test("config errors surface as ConfigError for the CreateContainerConfigError path", async () => {
  const cases: V1Container[] = [
    { name: "a", env: [{ name: "S", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }] },
    { name: "b", resources: { limits: { memory: "12 GB" } } },
    { name: "c", volumeMounts: [{ name: "missing", mountPath: "/m" }] },
  ];
  for (const c of cases) {
    await assert.rejects(
      buildContainerConfig(pod(c), c, baseOpts),
      (e) => isKind(e, ConfigError),
      c.name,
    );
  }
});

Deno.test("the container's seccomp profile reaches its CRI config, privileged ones included", async () => {
  const c: V1Container = {
    name: "app",
    securityContext: { privileged: true, seccompProfile: { type: "RuntimeDefault" } },
  };
  const cfg = await buildContainerConfig(pod(c), c, baseOpts);
  assert.deepEqual(cfg.linux?.securityContext?.seccomp, { profileType: "RuntimeDefault" });
  assert.equal(cfg.linux?.securityContext?.privileged, true);

  const plain: V1Container = { name: "plain" };
  const off = await buildContainerConfig(pod(plain), plain, baseOpts);
  assert.deepEqual(off.linux?.securityContext?.seccomp, { profileType: "Unconfined" });
  const on = await buildContainerConfig(pod(plain), plain, { ...baseOpts, seccompDefault: true });
  assert.deepEqual(on.linux?.securityContext?.seccomp, { profileType: "RuntimeDefault" });

  const p = pod(plain, {
    securityContext: { seccompProfile: { type: "Localhost", localhostProfile: "p.json" } },
  });
  const local = await buildContainerConfig(p, plain, {
    ...baseOpts,
    seccompProfileRoot: "/srv/kubelet/seccomp",
  });
  assert.deepEqual(local.linux?.securityContext?.seccomp, {
    profileType: "Localhost",
    localhostRef: "/srv/kubelet/seccomp/p.json",
  });
  const bad: V1Container = {
    name: "bad",
    securityContext: { seccompProfile: { type: "Localhost" } },
  };
  await assert.rejects(
    buildContainerConfig(pod(bad), bad, baseOpts),
    (e) => isKind(e, ConfigError),
  );
});

async function withTmp(fn: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "denolet-cc-" }));
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("mounts: volumes with subPathExpr, managed /etc/hosts and termination log", () =>
  withTmp(async (dir) => {
    await Deno.mkdir(`${dir}/vol`);
    const volumes = new Map<string, MountedVolume>([["data", {
      hostPath: `${dir}/vol`,
      readOnly: false,
      kind: "emptyDir",
      bindSubPath: (subPath) => Promise.resolve(`${dir}/vol/${subPath}`),
    }]]);
    const c: V1Container = {
      name: "app",
      env: [{ name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
      volumeMounts: [{ name: "data", mountPath: "/data", subPathExpr: "logs/$(POD)" }],
      terminationMessagePath: "/msg",
    };
    const podDir = `${dir}/pods/u-1`;
    const p = pod(c, { hostname: "h", subdomain: "s" });
    const cfg = await buildContainerConfig(p, c, {
      ...baseOpts,
      volumes,
      podDir,
      clusterDomain: "cluster.local",
    });
    const mounts = cfg.mounts ?? [];
    assert.deepEqual(mounts[0], {
      containerPath: "/data",
      hostPath: `${dir}/vol/logs/web`,
      readonly: false,
      propagation: "PROPAGATION_PRIVATE",
    });
    assert.deepEqual(mounts[1], {
      containerPath: "/etc/hosts",
      hostPath: `${podDir}/etc-hosts`,
      readonly: false,
      selinuxRelabel: true,
    });
    assert.match(
      await Deno.readTextFile(`${podDir}/etc-hosts`),
      /10\.0\.0\.5\th\.s\.prod\.svc\.cluster\.local\th\n/,
    );
    assert.equal(mounts[2].containerPath, "/msg");
    assert.ok(mounts[2].hostPath.startsWith(`${podDir}/containers/app/`));
    assert.equal(mounts.length, 3);

    // No pod IP yet, or an own /etc/hosts mount: no managed hosts file.
    const own: V1Container = {
      name: "own",
      volumeMounts: [{ name: "data", mountPath: "/etc/hosts", subPath: "hosts" }],
      terminationMessagePath: "",
    };
    const ownCfg = await buildContainerConfig(pod(own), own, { ...baseOpts, volumes, podDir });
    assert.deepEqual(ownCfg.mounts?.map((m) => m.containerPath), ["/etc/hosts"]);
    const noIP = await buildContainerConfig(pod(own), { name: "x" }, {
      ...baseOpts,
      podIPs: [],
      volumes,
      podDir,
    });
    assert.deepEqual(noIP.mounts?.map((m) => m.containerPath), ["/dev/termination-log"]);
  }));

Deno.test("subPathExpr with a missing variable is a ConfigError", () =>
  withTmp(async (dir) => {
    const volumes = new Map<string, MountedVolume>([["data", {
      hostPath: dir,
      readOnly: false,
      kind: "emptyDir",
      bindSubPath: (subPath) => Promise.resolve(`${dir}/${subPath}`),
    }]]);
    const c: V1Container = {
      name: "app",
      volumeMounts: [{ name: "data", mountPath: "/d", subPathExpr: "$(NOPE)/x" }],
    };
    await assert.rejects(
      buildContainerConfig(pod(c), c, { ...baseOpts, volumes }),
      /missing value for NOPE/,
    );
    const escape: V1Container = {
      name: "app",
      env: [{ name: "UP", value: ".." }],
      volumeMounts: [{ name: "data", mountPath: "/d", subPathExpr: "$(UP)/x" }],
    };
    await assert.rejects(
      buildContainerConfig(pod(escape), escape, { ...baseOpts, volumes }),
      ConfigError,
    );
  }));
