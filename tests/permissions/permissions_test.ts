import assert from "node:assert/strict";
import type { AgentConfig } from "../../src/config/mod.ts";
import { loadConfig } from "../../src/config/mod.ts";
import {
  DEFAULT_PROBE_NETWORKS,
  GRPC_ENV,
  missingPermissions,
  needsAllowAll,
  permissionFlags,
  permissionSet,
  toFlags,
} from "../../src/permissions/mod.ts";

async function config(argv: string[]): Promise<AgentConfig> {
  const r = await loadConfig(argv, { hostname: () => "node-1" });
  if (r.kind !== "run") throw new Error("not a run");
  return r.config;
}

Deno.test("permissionSet: defaults grant the kubelet layout, the socket and the listeners", async () => {
  const set = permissionSet(await config(["--pod-manifest-path", "/etc/kubernetes/manifests"]));
  assert.deepEqual(set.read, [
    "/etc/hosts",
    "/etc/kubernetes/manifests",
    "/etc/resolv.conf",
    "/run/containerd/containerd.sock",
    // The runtime may pick the systemd cgroup driver (CRI RuntimeConfig): systemd over D-Bus.
    "/run/dbus/system_bus_socket",
    "/var/lib/kubelet",
    // The node API's /logs/ serves the whole log directory, pod logs included.
    "/var/log",
  ]);
  assert.deepEqual(set.write, [
    "/run/containerd/containerd.sock",
    "/run/dbus/system_bus_socket",
    "/var/lib/kubelet",
    // The links log shippers tail.
    "/var/log/containers",
    "/var/log/pods",
  ]);
  assert.deepEqual(
    set.net,
    [
      "0.0.0.0:10250",
      "0.0.0.0:10255",
      "127.0.0.1:10248",
      ...DEFAULT_PROBE_NETWORKS,
      "unix:/run/containerd/containerd.sock",
      "unix:/run/dbus/system_bus_socket",
    ].sort(),
  );
  assert.deepEqual(
    set.env,
    [...GRPC_ENV, "DBUS_SYSTEM_BUS_ADDRESS", "LOG_STREAM", "LOG_TOKENS"].sort(),
  );
  assert.deepEqual(set.run, ["mount", "umount"]);
  // uid: the bus authenticates the agent as its uid (EXTERNAL).
  assert.deepEqual(set.sys, ["hostname", "networkInterfaces", "statfs", "systemMemoryInfo", "uid"]);
  assert.equal(set.ffi, true, "subPath mounts open path components through libc");
  // Stats, the Node status, QoS cgroups and tmpfs unmounting read /proc and /sys.
  assert.ok(set.allowAll.some((r) => r.includes("/proc")), set.allowAll.join("\n"));
  assert.ok(set.allowAll.some((r) => r.startsWith("QoS pod cgroups") && r.includes("write")));
});

Deno.test("permissionSet: follows the configuration's paths, ports, URL and endpoints", async () => {
  const set = permissionSet(
    await config([
      "--pod-manifest-path",
      "/srv/pods/web.yaml",
      "--root-dir",
      "/data/kubelet",
      "--manifest-url",
      "https://config.example:8443/pods",
      "--container-runtime-endpoint",
      "/run/k3s/containerd/containerd.sock",
      "--image-service-endpoint",
      "unix:///run/images.sock",
      "--address",
      "::",
      "--port",
      "0",
      "--read-only-port",
      "10255",
      "--node-ip",
      "203.0.113.7",
    ]),
    { configFile: "/etc/denolet/config.yaml" },
  );
  for (
    const p of ["/srv/pods", "/data/kubelet", "/etc/denolet/config.yaml"]
  ) {
    assert.ok(set.read.includes(p), `read ${p} in ${set.read}`);
  }
  assert.ok(!set.read.includes("/srv/pods/web.yaml"), "a file under a listed directory is covered");
  assert.ok(set.write.includes("/data/kubelet"));
  assert.ok(!set.read.includes("/var/lib/kubelet"));
  for (
    const h of [
      "config.example:8443",
      "unix:/run/k3s/containerd/containerd.sock",
      "unix:/run/images.sock",
      "[::]:10255",
      "203.0.113.7",
    ]
  ) {
    assert.ok(set.net.includes(h), `net ${h} in ${set.net}`);
  }
  assert.ok(!set.net.some((h) => h.endsWith(":10250")), "port 0 opens no listener");
});

Deno.test("permissionSet: probe networks and hostPath roots are options", async () => {
  const c = await config([]);
  assert.deepEqual(permissionSet(c, { probeNetworks: "any" }).net, ["*"]);
  const any = { ...permissionSet(c, { probeNetworks: "any" }), allowAll: [] };
  assert.ok(toFlags(any).includes("--allow-net"));
  const narrow = permissionSet(c, { probeNetworks: ["10.42.0.0/16"], hostPathRoots: ["/srv"] });
  assert.ok(narrow.net.includes("10.42.0.0/16") && !narrow.net.includes("192.168.0.0/16"));
  assert.ok(narrow.read.includes("/srv") && narrow.write.includes("/srv"));
});

Deno.test("permissionSet: a need Deno meets only with --allow-all collapses the flags to it", async () => {
  assert.ok(needsAllowAll("/proc/self/mountinfo"));
  assert.ok(needsAllowAll("/sys/fs/cgroup"));
  assert.ok(needsAllowAll("/dev"));
  assert.ok(!needsAllowAll("/dev/null"));
  assert.ok(!needsAllowAll("/var/lib/kubelet"));
  assert.ok(!needsAllowAll("/devices"));
  const c = await config(["--root-dir", "/sys/fs/cgroup/kubelet"]);
  const set = permissionSet(c);
  assert.ok(set.allowAll.some((r) => r.includes("/sys/fs/cgroup/kubelet")));
  assert.deepEqual(toFlags(set), ["--allow-all"]);
  assert.deepEqual(permissionFlags(c), ["--allow-all"]);
});

Deno.test("toFlags: without /proc or /sys needs, one flag per kind in a fixed order, then --allow-ffi", async () => {
  const flags = toFlags({ ...permissionSet(await config([])), allowAll: [] });
  assert.deepEqual(flags.map((f) => f.split("=")[0]), [
    "--allow-read",
    "--allow-write",
    "--allow-net",
    "--allow-env",
    "--allow-run",
    "--allow-sys",
    "--allow-ffi",
  ]);
  assert.ok(flags.slice(0, -1).every((f) => f.includes("=")), "every other grant is a list");
});

Deno.test("missingPermissions: nothing is missing under -A", async () => {
  // The unit tests run with --allow-all.
  assert.deepEqual(missingPermissions(permissionSet(await config([]))), []);
});
