/** An httpGet probe judges the final status, not a 1xx informational head before it. */
import assert from "node:assert/strict";
import { httpProbe } from "../../src/prober/_http.ts";

Deno.test("prober: an httpGet probe skips a 103 Early Hints before the 200", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const served = (async () => {
    const conn = await listener.accept();
    await conn.read(new Uint8Array(4096));
    await conn.write(new TextEncoder().encode(
      "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" +
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    ));
    conn.close();
  })();
  try {
    const out = await httpProbe({ port, path: "/healthz" }, {
      container: { name: "app" },
      podIP: "127.0.0.1",
      userAgent: "kube-probe/1.31",
      timeoutMs: 1000,
      signal: new AbortController().signal,
    });
    assert.deepEqual(out, { result: "success", output: "ok" });
  } finally {
    listener.close();
    await served;
  }
});
