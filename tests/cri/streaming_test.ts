import assert from "node:assert/strict";
import { createCriClient } from "../../src/cri/mod.ts";
import { startTestServer } from "./_server.ts";

Deno.test("cri streaming calls send upstream's Exec, Attach and PortForward fields and return the URL", async () => {
  const server = await startTestServer();
  const client = createCriClient(server.endpoint, { timeoutMs: 2000 });
  const seen: Record<string, unknown> = {};
  server.handlers.Exec = (req) => {
    seen.Exec = req;
    return { url: "http://127.0.0.1:1/exec/abc" };
  };
  server.handlers.Attach = (req) => {
    seen.Attach = req;
    return { url: "http://127.0.0.1:1/attach/def" };
  };
  server.handlers.PortForward = (req) => {
    seen.PortForward = req;
    return { url: "http://127.0.0.1:1/portforward/ghi" };
  };
  try {
    const flags = { stdin: true, stdout: true, stderr: false, tty: true };
    assert.equal(
      await client.streaming.exec("c1", ["sh", "-c", "echo hi"], flags),
      "http://127.0.0.1:1/exec/abc",
    );
    assert.equal(
      await client.streaming.attach("c2", { ...flags, tty: false, stderr: true }),
      "http://127.0.0.1:1/attach/def",
    );
    assert.equal(
      await client.streaming.portForward("sb1", [80, 8080]),
      "http://127.0.0.1:1/portforward/ghi",
    );
    assert.deepEqual(seen.Exec, {
      containerId: "c1",
      cmd: ["sh", "-c", "echo hi"],
      tty: true,
      stdin: true,
      stdout: true,
      stderr: false,
    });
    assert.deepEqual(seen.Attach, {
      containerId: "c2",
      stdin: true,
      tty: false,
      stdout: true,
      stderr: true,
    });
    assert.deepEqual(seen.PortForward, { podSandboxId: "sb1", port: [80, 8080] });
  } finally {
    client.close();
    await server.close();
  }
});
