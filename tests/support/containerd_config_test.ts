import assert from "node:assert/strict";
import {
  DEFAULT_CNI_NETWORK,
  gatewayOf,
  layoutFor,
  renderCniConfig,
  renderContainerdConfig,
} from "./_containerd_config.ts";

const l = layoutFor("/srv/dev");

Deno.test("containerd config keeps every path under the dev directory", () => {
  const toml = renderContainerdConfig(l, "denolet.test/pause:1.0");
  assert.match(toml, /^version = 2$/m);
  assert.match(toml, /^root = "\/srv\/dev\/root"$/m);
  assert.match(toml, /^state = "\/srv\/dev\/state"$/m);
  assert.match(toml, /\[grpc\]\n\s+address = "\/srv\/dev\/run\/containerd\.sock"/);
  assert.match(toml, /\[ttrpc\]\n\s+address = "\/srv\/dev\/run\/containerd\.sock\.ttrpc"/);
  assert.match(toml, /\[debug\]\n\s+address = "\/srv\/dev\/run\/debug\.sock"/);
  assert.match(toml, /conf_dir = "\/srv\/dev\/cni\/net\.d"/);
  assert.match(toml, /bin_dir = "\/usr\/lib\/cni"/);
  assert.match(toml, /\.registry\]\n(\s+#.*\n)*\s+config_path = "\/srv\/dev\/certs\.d"/);
});

Deno.test("containerd config sets the CRI options this environment needs", () => {
  const toml = renderContainerdConfig(l, "denolet.test/pause:1.0");
  assert.match(toml, /sandbox_image = "denolet\.test\/pause:1\.0"/);
  assert.match(toml, /restrict_oom_score_adj = true/);
  assert.match(toml, /SystemdCgroup = false/);
  assert.match(toml, /snapshotter = "overlayfs"/);
  assert.match(toml, /runtime_type = "io\.containerd\.runc\.v2"/);
});

Deno.test("CNI config is a bridge with host-local IPAM in the dev dir and portmap", () => {
  const conf = JSON.parse(renderCniConfig(l));
  const [bridge, portmap] = conf.plugins;
  assert.equal(bridge.type, "bridge");
  assert.equal(bridge.bridge, "denolet0");
  assert.equal(bridge.ipam.type, "host-local");
  assert.equal(bridge.ipam.dataDir, "/srv/dev/cni/networks");
  assert.equal(bridge.ipam.ranges[0][0].subnet, "10.85.0.0/16");
  assert.equal(portmap.type, "portmap");
  assert.deepEqual(portmap.capabilities, { portMappings: true });
});

Deno.test("CNI config of a second runtime takes its own bridge, subnet and gateway", () => {
  const conf = JSON.parse(renderCniConfig(l, { bridge: "denolet1", subnet: "10.86.0.0/16" }));
  const [bridge] = conf.plugins;
  assert.equal(bridge.bridge, "denolet1");
  assert.deepEqual(bridge.ipam.ranges, [[{ subnet: "10.86.0.0/16", gateway: "10.86.0.1" }]]);
  assert.throws(() => gatewayOf("10.86.1.5/16"), RangeError);
});

Deno.test("CNI config of the dev runtime is unchanged by the network option", () => {
  assert.equal(renderCniConfig(l), renderCniConfig(l, DEFAULT_CNI_NETWORK));
  assert.equal(
    JSON.parse(renderCniConfig(l)).plugins[0].ipam.ranges[0][0].gateway,
    "10.85.0.1",
  );
});
