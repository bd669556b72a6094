import assert from "node:assert/strict";
import { nodeIPsFrom } from "../../src/agent/_node_ip.ts";

const detect = (o: { preferIPv6?: boolean } = {}) => (o.preferIPv6 ? "fd00::9" : "10.0.0.9");

Deno.test("--node-ip: one address, a dual-stack pair in the order given, or detected", () => {
  assert.deepEqual(nodeIPsFrom("10.0.0.5", detect), ["10.0.0.5"]);
  assert.deepEqual(nodeIPsFrom("10.0.0.5,fd00::5", detect), ["10.0.0.5", "fd00::5"]);
  assert.deepEqual(nodeIPsFrom(" fd00::5 , 10.0.0.5", detect), ["fd00::5", "10.0.0.5"]);
  assert.deepEqual(nodeIPsFrom("", detect), ["10.0.0.9"]);
  // Upstream: "::" prefers a detected IPv6 address, "0.0.0.0" an IPv4 one.
  assert.deepEqual(nodeIPsFrom("::", detect), ["fd00::9"]);
  assert.deepEqual(nodeIPsFrom("0.0.0.0", detect), ["10.0.0.9"]);
  assert.deepEqual(nodeIPsFrom("", () => undefined), []);
});
