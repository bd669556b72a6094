import assert from "node:assert/strict";
import type { V1VolumeMount } from "@kubernetes/client-node";
import {
  containerMounts,
  createTerminationLogFile,
  managedHostsContent,
  type MountedVolume,
  podDir,
  validateSubPath,
  writeEtcHosts,
} from "../../src/volumes/mod.ts";
import { ConfigError, isKind } from "../../src/util/errors.ts";
import { errorMessage } from "../../src/util/log.ts";

async function withTmp(fn: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "denolet-mnt-" }));
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("validateSubPath rejects absolute paths and backsteps", () => {
  assert.deepEqual(validateSubPath("a/./b//c", "f"), ["a", "b", "c"]);
  assert.deepEqual(validateSubPath("..a/b..", "f"), ["..a", "b.."]);
  for (const bad of ["/etc", "..", "../x", "a/../../b", "a/.."]) {
    assert.throws(() => validateSubPath(bad, "f"), ConfigError, bad);
  }
});

/** A volume whose bindSubPath records its calls and answers with a fake bind target. */
function volume(
  hostPath: string,
  calls: string[],
  extra: Partial<MountedVolume> = {},
): MountedVolume {
  return {
    hostPath,
    readOnly: false,
    kind: "emptyDir",
    bindSubPath: (subPath, o) => {
      calls.push(`${subPath} ${o.containerName} ${o.mountIndex} ${o.field}`);
      return Promise.resolve(`/bound/${o.containerName}/${o.mountIndex}`);
    },
    ...extra,
  };
}

Deno.test("containerMounts maps readOnly, propagation, and hands subPaths to bind mounts", async () => {
  const calls: string[] = [];
  const volumes = new Map<string, MountedVolume>([
    ["data", volume("/v/data", calls)],
    ["ro", volume("/v/ro", calls, { readOnly: true, kind: "hostPath" })],
  ]);
  const mounts = await containerMounts(
    [
      { name: "data", mountPath: "/data" },
      {
        name: "data",
        mountPath: "/sub",
        subPath: "x/y",
        readOnly: true,
        mountPropagation: "HostToContainer",
      },
      { name: "ro", mountPath: "rel", mountPropagation: "Bidirectional" },
    ],
    volumes,
    { containerName: "c" },
  );
  assert.deepEqual(mounts, [
    {
      containerPath: "/data",
      hostPath: "/v/data",
      readonly: false,
      propagation: "PROPAGATION_PRIVATE",
    },
    {
      containerPath: "/sub",
      hostPath: "/bound/c/1",
      readonly: true,
      propagation: "PROPAGATION_HOST_TO_CONTAINER",
    },
    {
      containerPath: "/rel",
      hostPath: "/v/ro",
      readonly: true,
      propagation: "PROPAGATION_BIDIRECTIONAL",
    },
  ]);
  assert.deepEqual(calls, ["x/y c 1 containers[c].volumeMounts[data]"]);
});

Deno.test("containerMounts refuses bad mounts before binding any subPath", async () => {
  const calls: string[] = [];
  const volumes = new Map<string, MountedVolume>([["data", volume("/v/data", calls)]]);
  const ok = { name: "data", mountPath: "/ok", subPath: "fine" };
  const bad: [V1VolumeMount, RegExp][] = [
    [{ name: "nope", mountPath: "/x" }, /cannot find volume "nope"/],
    [{ name: "data", mountPath: "/x", subPath: "../../etc" }, /must not contain '\.\.'/],
    [{ name: "data", mountPath: "/x", subPath: "/etc" }, /absolute/],
    [{ name: "data", mountPath: "/x", mountPropagation: "Sideways" }, /mountPropagation/],
  ];
  for (const [m, re] of bad) {
    await assert.rejects(
      containerMounts([ok, m], volumes, { containerName: "c" }),
      (e) => isKind(e, ConfigError) && re.test(String(e)),
      m.mountPath,
    );
  }
  assert.deepEqual(calls, []);
});

Deno.test("containerMounts: recursiveReadOnly where the runtime can, refused as upstream where not", async () => {
  const volumes = new Map<string, MountedVolume>([["mnt", volume("/v/mnt", [])]]);
  const m = (mountPath: string, extra: Partial<V1VolumeMount>): V1VolumeMount => ({
    name: "mnt",
    mountPath,
    readOnly: true,
    ...extra,
  });
  const asked = [
    m("/rro", { recursiveReadOnly: "Enabled", mountPropagation: "None" }),
    m("/if-possible", { recursiveReadOnly: "IfPossible" }),
    m("/disabled", { recursiveReadOnly: "Disabled" }),
    m("/ro", {}),
    m("/rw", { readOnly: false }),
  ];
  const rro = (mounts: { containerPath: string; recursiveReadOnly?: boolean }[]) =>
    mounts.filter((x) => x.recursiveReadOnly).map((x) => x.containerPath);
  let questions = 0;
  const supported = () => (questions++, true);
  const got = await containerMounts(asked, volumes, {
    containerName: "c",
    recursiveReadOnlySupported: supported,
  });
  assert.deepEqual(rro(got), ["/rro", "/if-possible"]);
  assert.ok(got.every((x) => x.readonly === (x.containerPath !== "/rw")));
  assert.equal(questions, 2, "asked only for the mounts that request it");

  // Unsupported (containerd 1.6 lists no handlers): IfPossible is plain read-only...
  const plain = await containerMounts(asked.slice(1), volumes, { containerName: "c" });
  assert.deepEqual(rro(plain), []);
  assert.equal(plain[0].readonly, true);
  // ...and Enabled fails the container with upstream's message.
  const refusals: [V1VolumeMount, string][] = [
    [
      asked[0],
      'volume "mnt" requested recursive read-only mode, but it is not supported by the runtime',
    ],
    [
      m("/x", { recursiveReadOnly: "Enabled", readOnly: false }),
      'volume "mnt" requested recursive read-only mode, but it is not read-only',
    ],
    [
      m("/x", { recursiveReadOnly: "IfPossible", mountPropagation: "HostToContainer" }),
      'volume "mnt" requested recursive read-only mode, but it is not compatible with propagation "HostToContainer"',
    ],
    [m("/x", { recursiveReadOnly: "Sometimes" }), 'unknown recursive read-only mode "Sometimes"'],
  ];
  for (const [mount, why] of refusals) {
    await assert.rejects(
      containerMounts([mount], volumes, { containerName: "c" }),
      (e) => errorMessage(e) === `failed to resolve recursive read-only mode: ${why}`,
      why,
    );
  }
});

Deno.test("managed /etc/hosts lists the pod IPs with FQDN and host aliases", () => {
  assert.equal(
    managedHostsContent({
      podIPs: ["10.0.0.5", "fd00::5"],
      hostname: "web",
      domain: "sub.ns.svc.cluster.local",
      hostNetwork: false,
      hostAliases: [{ ip: "1.2.3.4", hostnames: ["foo", "bar"] }],
    }),
    "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
      "fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n" +
      "10.0.0.5\tweb.sub.ns.svc.cluster.local\tweb\nfd00::5\tweb.sub.ns.svc.cluster.local\tweb\n" +
      "\n# Entries added by HostAliases.\n1.2.3.4\tfoo\tbar\n",
  );
  assert.match(
    managedHostsContent({ podIPs: ["10.0.0.5"], hostname: "web", domain: "", hostNetwork: false }),
    /\n10\.0\.0\.5\tweb\n$/,
  );
});

Deno.test("writeEtcHosts copies the node file for host-network pods", () =>
  withTmp(async (dir) => {
    await Deno.writeTextFile(`${dir}/node-hosts`, "127.0.0.1 localhost node\n");
    const path = writeEtcHosts(`${dir}/pod`, {
      podIPs: [],
      hostname: "h",
      domain: "",
      hostNetwork: true,
      nodeHostsPath: `${dir}/node-hosts`,
      hostAliases: [{ ip: "1.2.3.4", hostnames: ["x"] }],
    });
    assert.equal(path, `${dir}/pod/etc-hosts`);
    assert.equal(
      await Deno.readTextFile(path),
      "# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost node\n\n# Entries added by HostAliases.\n1.2.3.4\tx\n",
    );
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o644);
  }));

Deno.test("termination log files are fresh, empty and world-writable", () =>
  withTmp(async (dir) => {
    const a = createTerminationLogFile(dir, "web");
    const b = createTerminationLogFile(dir, "web");
    assert.notEqual(a, b);
    assert.match(a, new RegExp(`^${dir}/containers/web/[0-9a-f]{8}$`));
    assert.equal((await Deno.stat(a)).size, 0);
    assert.equal((await Deno.stat(a)).mode! & 0o777, 0o666);
  }));

Deno.test("podDir joins rootDir and uid", () => {
  assert.equal(podDir("/var/lib/kubelet/", "u1"), "/var/lib/kubelet/pods/u1");
  assert.throws(() => podDir("/r", "a/b"), ConfigError);
});
