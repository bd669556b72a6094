import assert from "node:assert/strict";
import {
  containerMounts,
  createTerminationLogFile,
  managedHostsContent,
  type MountedVolume,
  podDir,
  prepareSubPath,
  validateSubPath,
  writeEtcHosts,
} from "../../src/volumes/mod.ts";
import { ConfigError } from "../../src/util/errors.ts";

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

Deno.test("prepareSubPath creates missing dirs with the volume's mode", () =>
  withTmp(async (dir) => {
    const vol = `${dir}/vol`;
    await Deno.mkdir(vol);
    await Deno.chmod(vol, 0o770);
    const p = prepareSubPath(vol, "a/b", "f");
    assert.equal(p, `${vol}/a/b`);
    assert.equal((await Deno.stat(`${vol}/a`)).mode! & 0o777, 0o770);
    assert.equal(prepareSubPath(vol, "a/b", "f"), p);
    await Deno.writeTextFile(`${vol}/file`, "x");
    assert.equal(prepareSubPath(vol, "file", "f"), `${vol}/file`);
  }));

Deno.test("prepareSubPath refuses symlinks that lead out of the volume", () =>
  withTmp(async (dir) => {
    const vol = `${dir}/vol`;
    await Deno.mkdir(vol);
    await Deno.mkdir(`${dir}/outside`);
    await Deno.symlink(`${dir}/outside`, `${vol}/link`);
    assert.throws(() => prepareSubPath(vol, "link/new", "f"), /outside the volume/);
    // Nothing was created outside.
    assert.deepEqual([...Deno.readDirSync(`${dir}/outside`)], []);
    await Deno.symlink(`${vol}`, `${vol}/self`);
    assert.equal(prepareSubPath(vol, "self/x", "f"), `${vol}/x`);
  }));

Deno.test("containerMounts maps readOnly, propagation, subPath and rejects unknown volumes", () =>
  withTmp(async (dir) => {
    await Deno.mkdir(`${dir}/data`);
    const volumes = new Map<string, MountedVolume>([
      ["data", { hostPath: `${dir}/data`, readOnly: false, kind: "emptyDir" }],
      ["ro", { hostPath: `${dir}/data`, readOnly: true, kind: "hostPath" }],
    ]);
    const mounts = containerMounts(
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
        hostPath: `${dir}/data`,
        readonly: false,
        propagation: "PROPAGATION_PRIVATE",
      },
      {
        containerPath: "/sub",
        hostPath: `${dir}/data/x/y`,
        readonly: true,
        propagation: "PROPAGATION_HOST_TO_CONTAINER",
      },
      {
        containerPath: "/rel",
        hostPath: `${dir}/data`,
        readonly: true,
        propagation: "PROPAGATION_BIDIRECTIONAL",
      },
    ]);
    assert.throws(
      () => containerMounts([{ name: "nope", mountPath: "/x" }], volumes, { containerName: "c" }),
      /cannot find volume "nope"/,
    );
    assert.throws(
      () =>
        containerMounts([{ name: "data", mountPath: "/x", subPath: "../../etc" }], volumes, {
          containerName: "c",
        }),
      ConfigError,
    );
    assert.throws(
      () =>
        containerMounts(
          [{ name: "data", mountPath: "/x", mountPropagation: "Sideways" }],
          volumes,
          { containerName: "c" },
        ),
      /mountPropagation/,
    );
  }));

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
