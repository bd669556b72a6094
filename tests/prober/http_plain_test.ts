/** The plain-HTTP GET behind httpGet probes and hooks (issue 14): framing cases a server may use. */
import assert from "node:assert/strict";
import { dechunk, plainGet, requestHead } from "../../src/prober/_http_plain.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A one-shot TCP server answering with `reply` (split into `parts` writes) and the request. */
async function withRawServer(
  parts: string[],
  fn: (port: number, request: Promise<string>) => Promise<void>,
): Promise<void> {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const request = (async () => {
    const conn = await l.accept();
    const buf = new Uint8Array(4096);
    let got = "";
    while (!got.includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) break;
      got += dec.decode(buf.subarray(0, n));
    }
    for (const p of parts) await conn.write(enc.encode(p));
    conn.close();
    return got;
  })();
  try {
    await fn((l.addr as Deno.NetAddr).port, request);
  } finally {
    l.close();
    await request;
  }
}

Deno.test("plainGet: sends Host first, the headers, Connection: close; reads a sized body", async () => {
  await withRawServer(
    ["HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 5\r\n", "\r\nhello world"],
    async (port, request) => {
      const r = await plainGet(new URL(`http://127.0.0.1:${port}/a?b=1`), {
        headers: { "user-agent": "kube-probe/1.0", "x-multi": ["1", "2"], accept: "*/*" },
        maxBody: 1024,
      });
      assert.deepEqual([r.status, r.location, dec.decode(r.body)], [302, "/next", "hello"]);
      assert.equal(
        await request,
        `GET /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nuser-agent: kube-probe/1.0\r\n` +
          "x-multi: 1\r\nx-multi: 2\r\naccept: */*\r\nConnection: close\r\n\r\n",
      );
    },
  );
});

Deno.test("plainGet: chunked bodies are de-chunked, bodies to EOF read, both cut at maxBody", async () => {
  await withRawServer(
    [
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
      "4;x=y\r\ndefg\r\n0\r\n\r\n",
    ],
    async (port) => {
      const r = await plainGet(new URL(`http://127.0.0.1:${port}/`), { headers: {}, maxBody: 100 });
      assert.equal(dec.decode(r.body), "abcdefg");
    },
  );
  await withRawServer(
    ["HTTP/1.0 500 Oops\r\n\r\n", "x".repeat(50), "y".repeat(50)],
    async (port) => {
      const r = await plainGet(new URL(`http://127.0.0.1:${port}/`), { headers: {}, maxBody: 60 });
      assert.equal(r.status, 500);
      assert.equal(dec.decode(r.body), "x".repeat(50) + "y".repeat(10));
    },
  );
  assert.deepEqual(dechunk(enc.encode("5\r\nhello\r\n5\r\nwor"), 100), {
    body: enc.encode("hellowor"),
    done: false,
  });
});

Deno.test("plainGet: a reply that is not HTTP, or ends inside the head, is an error", async () => {
  await withRawServer(["SSH-2.0-OpenSSH\r\n\r\n"], async (port) => {
    await assert.rejects(
      plainGet(new URL(`http://127.0.0.1:${port}/`), { headers: {}, maxBody: 10 }),
      /malformed HTTP response "SSH-2.0-OpenSSH"/,
    );
  });
  await withRawServer(["HTTP/1.1 200 OK\r\nContent-"], async (port) => {
    await assert.rejects(
      plainGet(new URL(`http://127.0.0.1:${port}/`), { headers: {}, maxBody: 10 }),
      /EOF before the end of the response head/,
    );
  });
});

Deno.test("plainGet: a custom Host replaces the URL's", () => {
  assert.match(
    requestHead(new URL("http://10.0.0.1:8080/x"), { host: "example.com" }),
    /^GET \/x HTTP\/1\.1\r\nHost: example\.com\r\nConnection: close\r\n\r\n$/,
  );
});

Deno.test("plainGet: 1xx heads before the final one are skipped, a 101 is final", async () => {
  const get = (port: number) =>
    plainGet(new URL(`http://127.0.0.1:${port}/`), { headers: {}, maxBody: 100 });
  const early = "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n";
  // All in one write, so the final head is already read with the first one.
  await withRawServer(
    [early + "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 No\r\n\r\ndown"],
    async (port) => {
      const r = await get(port);
      assert.deepEqual([r.status, dec.decode(r.body)], [503, "down"]);
    },
  );
  await withRawServer([early, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"], async (port) => {
    const r = await get(port);
    assert.deepEqual([r.status, dec.decode(r.body)], [200, "ok"]);
  });
  await withRawServer(
    ["HTTP/1.1 101 Switching Protocols\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"],
    async (port) => {
      assert.equal((await get(port)).status, 101);
    },
  );
  // Five are read past, as Go's transport does; a sixth is an error.
  await withRawServer([early.repeat(5) + "HTTP/1.1 204 No Content\r\n\r\n"], async (port) => {
    assert.equal((await get(port)).status, 204);
  });
  await withRawServer([early.repeat(6) + "HTTP/1.1 200 OK\r\n\r\n"], async (port) => {
    await assert.rejects(get(port), /too many 1xx informational responses/);
  });
});
