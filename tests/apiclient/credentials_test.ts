import assert from "node:assert/strict";
import { CredentialSource } from "../../src/apiclient/_credentials.ts";
import { FakeClock } from "../../src/util/clock.ts";

Deno.test("credentials: a certificate manager's pair replaces the kubeconfig's, read at every request", async () => {
  let pair: { cert: string; key: string } | undefined;
  const creds = new CredentialSource({
    server: "https://api",
    namespace: "default",
    clientCert: "file-cert",
    clientKey: "file-key",
    certificate: () => pair,
  }, { clock: new FakeClock() });
  // No certificate yet (bootstrapping): none is presented, not the kubeconfig's.
  assert.deepEqual(await creds.get(), { cert: undefined, key: undefined });
  pair = { cert: "c1", key: "k1" };
  assert.deepEqual(await creds.get(), { cert: "c1", key: "k1" });
  pair = { cert: "c2", key: "k2" };
  assert.deepEqual(await creds.get(), { cert: "c2", key: "k2" }, "a rotation is seen at once");
});
