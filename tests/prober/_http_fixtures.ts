/**
 * Local servers for the httpGet tests of both users of the shared GET (probes and lifecycle
 * hooks): one plain HTTP and one HTTPS server (self-signed) with the same routes, a third
 * server on another loopback address to catch a redirect that should not have been followed,
 * and a child process whose proxy variables point at a dead port.
 */

/** What a server saw. */
export interface Hit {
  path: string;
  tls: boolean;
  headers: Headers;
}

export interface Servers {
  httpPort: number;
  httpsPort: number;
  /** Requests to the HTTP and HTTPS servers, in order. */
  hits: Hit[];
  /** Requests that reached the other host (a redirect there must not be followed). */
  stolen: Hit[];
  /** Resolves when a request for `path` (with its query) has arrived. */
  arrived(path: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Routes: `/ok` 200, `/fail` 500, `/same` a relative redirect to `/ok?via=same`, `/same-abs` an
 * absolute one to the same host, `/away` a redirect to the other host (127.0.0.2), `/loop` a
 * redirect to itself, `/big` a 50 000-byte body, `/hang` never answers until `close`.
 */
export async function startServers(): Promise<Servers> {
  const { cert, key } = await selfSignedCert();
  const hits: Hit[] = [];
  const stolen: Hit[] = [];
  const hang = Promise.withResolvers<void>();
  const waiters: { path: string; resolve: () => void }[] = [];
  const other = Deno.serve(
    { hostname: "127.0.0.2", port: 0, onListen() {} },
    (req) => {
      stolen.push({ path: new URL(req.url).pathname, tls: false, headers: req.headers });
      return new Response("stolen");
    },
  );
  const handler = (tls: boolean) => async (req: Request) => {
    const u = new URL(req.url);
    hits.push({ path: u.pathname + u.search, tls, headers: req.headers });
    for (const w of waiters) if (w.path === u.pathname + u.search) w.resolve();
    switch (u.pathname) {
      case "/ok":
        return new Response("ok");
      case "/fail":
        return new Response("no", { status: 500 });
      case "/same":
        return new Response(null, { status: 302, headers: { location: "/ok?via=same" } });
      case "/same-abs":
        return Response.redirect(new URL("/ok?via=abs", req.url), 301);
      case "/away":
        return Response.redirect(`http://127.0.0.2:${other.addr.port}/stolen`, 302);
      case "/loop":
        return new Response(null, { status: 302, headers: { location: "/loop" } });
      case "/big":
        return new Response("a".repeat(50_000));
      case "/hang":
        await hang.promise;
        return new Response("late");
      default:
        return new Response("not found", { status: 404 });
    }
  };
  const plain = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler(false));
  const secure = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen() {} },
    handler(true),
  );
  return {
    httpPort: plain.addr.port,
    httpsPort: secure.addr.port,
    hits,
    stolen,
    arrived(path) {
      if (hits.some((h) => h.path === path)) return Promise.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      waiters.push({ path, resolve });
      return promise;
    },
    async close() {
      hang.resolve();
      await Promise.all([plain.shutdown(), secure.shutdown(), other.shutdown()]);
    },
  };
}

let certPromise: Promise<{ cert: string; key: string }> | undefined;

/** A throw-away self-signed certificate for 127.0.0.1 (openssl), made once per test process. */
export function selfSignedCert(): Promise<{ cert: string; key: string }> {
  certPromise ??= (async () => {
    const out = await new Deno.Command("openssl", {
      args: [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=denolet-test",
        "-keyout",
        "/dev/stdout",
        "-out",
        "/dev/stdout",
      ],
      stdout: "piped",
      stderr: "null",
    }).output();
    const pem = new TextDecoder().decode(out.stdout);
    const key = pem.match(/-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/)![0];
    const cert = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0];
    return { cert, key };
  })();
  return certPromise;
}

const DEAD_PROXY = "http://127.0.0.1:9";

/**
 * Runs `code` (a module body; it may import repository files by absolute URL) in a child Deno
 * whose proxy variables all point at a dead port, and returns what it printed. The child's own
 * fetch goes through that proxy, so a client that honours the variables cannot pass unseen.
 */
export async function runWithDeadProxy(code: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", code],
    cwd: new URL("../../", import.meta.url).pathname,
    env: {
      HTTP_PROXY: DEAD_PROXY,
      HTTPS_PROXY: DEAD_PROXY,
      http_proxy: DEAD_PROXY,
      https_proxy: DEAD_PROXY,
      ALL_PROXY: DEAD_PROXY,
      all_proxy: DEAD_PROXY,
      NO_PROXY: "",
      no_proxy: "",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`child failed: ${text}${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** Prints "fetch-blocked" when the child's proxy variables really stop fetch to `url`. */
export function fetchControl(url: string): string {
  return `
try {
  const r = await fetch(${JSON.stringify(url)});
  await r.body?.cancel();
  console.log("fetch-through");
} catch {
  console.log("fetch-blocked");
}`;
}
