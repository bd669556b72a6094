/** The /var/log/containers links, on a temp directory. */
import assert from "node:assert/strict";
import { createLogLinks, logLinkPath } from "../../src/runtime/mod.ts";
import { nullLogger } from "../../src/util/log.ts";

const ID = "a".repeat(64);
const OTHER = "b".repeat(64);

Deno.test("log links: upstream's name, cut to 255 characters before the suffix", () => {
  assert.equal(
    logLinkPath("/var/log/containers", {
      podName: "web-0",
      podNamespace: "shop",
      containerName: "nginx",
      containerId: ID,
    }),
    `/var/log/containers/web-0_shop_nginx-${ID}.log`,
  );
  const long = logLinkPath("/d", {
    podName: "p".repeat(200),
    podNamespace: "ns",
    containerName: "c",
    containerId: ID,
  });
  assert.equal(long.slice("/d/".length).length, 255);
  assert.ok(long.endsWith(".log"));
});

Deno.test("log links: made for an existing log, removed with the container, dangling ones swept", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "denolet-loglinks-" });
  try {
    const dir = `${tmp}/containers`;
    const links = createLogLinks(dir, nullLogger);
    const log = `${tmp}/pods/0.log`;
    await Deno.mkdir(`${tmp}/pods`);
    await Deno.writeTextFile(log, "hello\n");
    const name = { podName: "p", podNamespace: "ns", containerName: "c", containerId: ID };
    await links.create(name, log);
    await links.create(name, log); // again: already there, no error
    assert.equal(await Deno.readTextFile(logLinkPath(dir, name)), "hello\n");
    // No log, no link.
    await links.create({ ...name, containerId: OTHER }, `${tmp}/pods/missing.log`);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(dir))).length, 1);

    await links.remove([ID]);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);

    await links.create(name, log);
    await Deno.remove(log);
    await links.sweep((id) => ID.startsWith(id)); // its container still runs (a rotation)
    assert.equal((await Array.fromAsync(Deno.readDir(dir))).length, 1);
    await links.sweep(() => false);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
