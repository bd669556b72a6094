/**
 * The test registry with `tls`: HTTPS only, a certificate only the test CA vouches for, and a
 * hosts.toml that makes containerd (through its registry config_path) use HTTPS with that CA.
 * Needs the registry binary (Debian's docker-registry, unpacked under the dev dir).
 */
import assert from "node:assert/strict";
import { startRegistry } from "./registry.ts";

Deno.test({
  name: "registry with tls serves HTTPS with the test CA and writes containerd's hosts.toml",
  sanitizeResources: false,
  async fn() {
    const trustDir = await Deno.makeTempDir({ prefix: "denolet-certs-d-" });
    const reg = await startRegistry({ users: { alice: "pw" }, tls: { trustDir } });
    try {
      assert.equal(reg.url, `https://${reg.host}`);
      const plain = await fetch(`http://${reg.host}/v2/`);
      assert.equal(plain.status, 400, await plain.text());
      await assert.rejects(fetch(`${reg.url}/v2/`).then((r) => r.text()));
      const hosts = await Deno.readTextFile(`${trustDir}/${reg.host}/hosts.toml`);
      assert.match(hosts, new RegExp(`^server = "https://${reg.host}"$`, "m"));
      assert.match(hosts, new RegExp(`^\\[host\\."https://${reg.host}"\\]$`, "m"));
      assert.ok(hosts.includes(`ca = ${JSON.stringify(reg.caCert)}`), hosts);
      // The pusher trusts the CA itself.
      const { image } = await reg.pushBusybox("team/app", { marker: "m", user: "alice" });
      assert.equal(image, `${reg.host}/team/app:1.0`);
    } finally {
      await reg.stop();
    }
    await assert.rejects(Deno.stat(`${trustDir}/${reg.host}`), Deno.errors.NotFound);
    await Deno.remove(trustDir, { recursive: true });
  },
});
