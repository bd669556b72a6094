import assert from "node:assert/strict";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const CONFIG = ["--config", "/k.yaml"];
const file = (body: string) => ({ "/k.yaml": HEAD + body });

Deno.test("healthz defaults to 127.0.0.1:10248, with or without a config file", async () => {
  for (const [argv, files] of [[[], {}], [CONFIG, file("")]] as const) {
    const { config, warnings } = await run([...argv], files);
    assert.equal(config.healthzPort, 10248);
    assert.equal(config.healthzBindAddress, "127.0.0.1");
    assert.deepEqual(warnings, []);
  }
});

Deno.test("--healthz-port and --healthz-bind-address set the healthz endpoint", async () => {
  const { config } = await run(["--healthz-port=0", "--healthz-bind-address", "::"]);
  assert.equal(config.healthzPort, 0);
  assert.equal(config.healthzBindAddress, "::");
});

Deno.test("healthzPort and healthzBindAddress are read from the file, not ignored", async () => {
  const { config, warnings } = await run(
    CONFIG,
    file("healthzPort: 10249\nhealthzBindAddress: 0.0.0.0\n"),
  );
  assert.deepEqual(warnings, []);
  assert.equal(config.healthzPort, 10249);
  assert.equal(config.healthzBindAddress, "0.0.0.0");
  // healthzPort is a pointer upstream: an explicit 0 turns it off; "" keeps the default address.
  const off = await run(CONFIG, file('healthzPort: 0\nhealthzBindAddress: ""\n'));
  assert.equal(off.config.healthzPort, 0);
  assert.equal(off.config.healthzBindAddress, "127.0.0.1");
});

Deno.test("healthz flags win over the file", async () => {
  const { config } = await run(
    [...CONFIG, "--healthz-port=9000", "--healthz-bind-address=10.0.0.1"],
    file("healthzPort: 10249\nhealthzBindAddress: 0.0.0.0\n"),
  );
  assert.equal(config.healthzPort, 9000);
  assert.equal(config.healthzBindAddress, "10.0.0.1");
});

Deno.test("bad healthz settings are refused naming the flag or field", async () => {
  await fails(["--healthz-port=70000"], "--healthz-port", /between 0 and 65535/);
  await fails(["--healthz-port=-1"], "--healthz-port", /between 0 and 65535/);
  await fails(["--healthz-bind-address=localhost"], "--healthz-bind-address", /not an IP/);
  await fails(CONFIG, "/k.yaml: healthzPort", /between 0 and 65535/, file("healthzPort: 65536\n"));
  await fails(
    CONFIG,
    "/k.yaml: healthzBindAddress",
    /not an IP address/,
    file("healthzBindAddress: any\n"),
  );
});
