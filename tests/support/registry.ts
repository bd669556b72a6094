/**
 * A private registry for the tests: the distribution registry (Debian's docker-registry package,
 * v2.8, unpacked in seconds; DENOLET_DEV_REGISTRY=source builds v3 from the Go module proxy) on
 * loopback with htpasswd (basic) authentication, and a small pusher of OCI layouts over the
 * distribution API. Without `tls`, containerd pulls from `127.0.0.1:<port>` over plain HTTP with
 * no registry configuration (it treats loopback registries as HTTP). With `tls`, the registry
 * serves HTTPS with a certificate from a throwaway CA, and containerd trusts that CA through a
 * `hosts.toml` written into its registry `config_path`, as a node trusts a factory registry.
 */
import bcrypt from "bcryptjs";
import { stringify as toYaml } from "yaml";
import { realClock } from "../../src/util/clock.ts";
import { DevSetupError, sha256Hex } from "./_exec.ts";
import { writeOciArchive } from "./_oci.ts";
import { buildRegistry } from "./_registry_build.ts";
import { debBinaries } from "./_deb_binaries.ts";
import { Pki } from "./_pki.ts";
import { devDir } from "./containerd.ts";
import { busyboxRootfs } from "./images.ts";

export interface Registry {
  /** `127.0.0.1:<port>`: the image name prefix and the credentials' endpoint. */
  readonly host: string;
  /** `https://<host>` with `tls`, else `http://<host>`. */
  readonly url: string;
  /** The test CA's certificate (PEM path) with `tls`. */
  readonly caCert?: string;
  /**
   * Builds a busybox image with a file `/marker` holding `marker` (so its layer is new to the
   * runtime; `payloadBytes` adds `/payload` of random bytes to make it bigger) and pushes it as
   * `<host>/<repository>:<tag>` with `user`'s credentials (none: anonymous). Returns
   * the full image name and its manifest digest.
   */
  pushBusybox(
    repository: string,
    opts: { tag?: string; marker: string; user?: string; payloadBytes?: number },
  ): Promise<{ image: string; digest: string }>;
  /** Stops the registry and removes its storage. Idempotent. */
  stop(): Promise<void>;
}

export interface RegistryOptions {
  /** user → password; every request needs one of them. None: anonymous access. */
  users: Record<string, string>;
  /**
   * Serve HTTPS and write `<trustDir>/<host:port>/hosts.toml` naming the test CA, for a
   * containerd whose registry `config_path` is `trustDir` (`DevRuntime.registryConfigDir`);
   * `stop()` removes it.
   */
  tls?: { trustDir: string };
  log?: (s: string) => void;
}

/** Unpacks or builds (once per machine) and starts a registry; stop it with `stop()`. */
export async function startRegistry(opts: RegistryOptions): Promise<Registry> {
  const log = opts.log ?? ((s: string) => console.error(`[registry] ${s}`));
  const binary = Deno.env.get("DENOLET_DEV_REGISTRY") === "source"
    ? await buildRegistry(devDir(), { log })
    : (await debBinaries("docker-registry", { registry: "usr/bin/docker-registry" }, {
      dest: `${devDir()}/registry-deb`,
      log,
    })).registry;
  const dir = await Deno.makeTempDir({ prefix: "denolet-registry-" });
  const htpasswd = Object.entries(opts.users)
    .map(([u, p]) => `${u}:${bcrypt.hashSync(p, 4)}`)
    .join("\n");
  await Deno.writeTextFile(`${dir}/htpasswd`, htpasswd + "\n");
  const port = freePort();
  const host = `127.0.0.1:${port}`;
  const tls = opts.tls ? await serveTls(dir, host, opts.tls.trustDir) : undefined;
  const url = `${tls ? "https" : "http"}://${host}`;
  const config = {
    version: 0.1,
    log: { level: "warn", accesslog: { disabled: true } },
    storage: { filesystem: { rootdirectory: `${dir}/data` }, delete: { enabled: true } },
    http: {
      addr: host,
      secret: crypto.randomUUID(),
      tls: tls ? { certificate: tls.cert, key: tls.key } : undefined,
    },
    auth: Object.keys(opts.users).length
      ? { htpasswd: { realm: "denolet-test", path: `${dir}/htpasswd` } }
      : undefined,
  };
  await Deno.writeTextFile(`${dir}/config.yml`, toYaml(config));
  // `exec` leaves the registry itself as the child, so stop() signals it and not a shell.
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" serve "$1" >"$2" 2>&1',
      binary,
      `${dir}/config.yml`,
      `${dir}/registry.log`,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGTERM");
    } catch {
      // Already exited: nothing to stop.
    }
    await child.status;
    client?.close();
    if (tls) await Deno.remove(tls.hostsDir, { recursive: true }).catch(() => undefined);
    await Deno.remove(dir, { recursive: true }).catch(() => undefined);
  };
  // fetch trusts the test CA only through its own client.
  const client = tls
    ? Deno.createHttpClient({ caCerts: [await Deno.readTextFile(tls.caCert)] })
    : undefined;
  try {
    await waitReady(url, child.status, client);
  } catch (err) {
    const text = await Deno.readTextFile(`${dir}/registry.log`).catch(() => "");
    await stop();
    throw new DevSetupError(`The registry did not start: ${err}\n${text}`, { cause: err });
  }
  const auth = (user?: string) =>
    user === undefined ? undefined : `Basic ${btoa(`${user}:${opts.users[user]}`)}`;
  return {
    host,
    url,
    caCert: tls?.caCert,
    stop,
    async pushBusybox(repository, p) {
      const tag = p.tag ?? "1.0";
      const image = `${host}/${repository}:${tag}`;
      const work = await Deno.makeTempDir({ prefix: "denolet-push-" });
      try {
        const rootfs = `${work}/rootfs`;
        await Deno.mkdir(rootfs);
        const config = await busyboxRootfs(rootfs);
        await Deno.writeTextFile(`${rootfs}/marker`, p.marker);
        if (p.payloadBytes) await Deno.writeFile(`${rootfs}/payload`, randomBytes(p.payloadBytes));
        const { layout, manifestDigest } = await writeOciArchive({
          name: image,
          rootfs,
          config,
          workDir: work,
          out: `${work}/image.tar`,
        });
        await pushLayout(url, { layout, repository, tag, auth: auth(p.user), client });
        return { image, digest: manifestDigest };
      } finally {
        await Deno.remove(work, { recursive: true });
      }
    },
  };
}

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  // getRandomValues fills at most 64 KiB per call.
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, i + 65536));
  return out;
}

/** A port nobody listens on right now (the registry binds it a moment later). */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * A serving certificate for `host`'s address from a fresh CA under `dir`, and the hosts.toml
 * that makes containerd use HTTPS with that CA for `host` (a loopback registry is otherwise
 * plain HTTP). The CA goes in a `[host]` table (containerd 1.6 refuses a file without one:
 * "invalid `host` tree") and on the `server` fallback, which containerd tries after a 401.
 */
async function serveTls(dir: string, host: string, trustDir: string) {
  const pki = await Pki.create(`${dir}/pki`, { caName: "denolet-registry-test-ca" });
  const served = await pki.issue({
    name: "registry",
    commonName: "denolet-registry",
    usage: "server",
    hosts: [host.split(":")[0]],
  });
  const hostsDir = `${trustDir}/${host}`;
  await Deno.mkdir(hostsDir, { recursive: true });
  await Deno.writeTextFile(
    `${hostsDir}/hosts.toml`,
    [
      `server = "https://${host}"`,
      `ca = ${JSON.stringify(pki.ca.cert)}`,
      `[host."https://${host}"]`,
      `  capabilities = ["pull", "resolve"]`,
      `  ca = ${JSON.stringify(pki.ca.cert)}`,
      "",
    ].join("\n"),
  );
  return { ...served, caCert: pki.ca.cert, hostsDir };
}

/** Until `/v2/` answers (401 without credentials), at most 20 s. */
async function waitReady(
  url: string,
  exited: Promise<Deno.CommandStatus>,
  client?: Deno.HttpClient,
): Promise<void> {
  let done = false;
  const exit = exited.then((s) => {
    done = true;
    return s;
  });
  const deadline = realClock.now() + 20_000;
  while (realClock.now() < deadline) {
    if (done) throw new Error(`the registry exited with ${(await exit).code}`);
    try {
      const res = await fetch(`${url}/v2/`, { signal: AbortSignal.timeout(1000), client });
      await res.body?.cancel();
      if (res.status === 401 || res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await realClock.sleep(100);
  }
  throw new Error(`no answer from ${url}/v2/ within 20s`);
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}

/**
 * Pushes the single image of an OCI layout (blobs first, then the manifest under `tag`) with
 * the distribution API's monolithic upload: POST an upload, PUT the bytes with their digest.
 */
export async function pushLayout(
  base: string,
  opts: {
    layout: string;
    repository: string;
    tag: string;
    /** The Authorization header; none: anonymous. */
    auth?: string;
    /** Trusts the registry's test CA. */
    client?: Deno.HttpClient;
  },
): Promise<void> {
  const { layout, repository, auth, client } = opts;
  const index = JSON.parse(await Deno.readTextFile(`${layout}/index.json`)) as {
    manifests: Descriptor[];
  };
  const desc = index.manifests[0];
  const blob = (d: string) => Deno.readFile(`${layout}/blobs/sha256/${d.slice("sha256:".length)}`);
  const manifestBytes = await blob(desc.digest);
  const manifest = JSON.parse(new TextDecoder().decode(manifestBytes)) as {
    config: Descriptor;
    layers: Descriptor[];
  };
  const call = async (method: string, url: string, body?: Uint8Array, type?: string) => {
    const headers: Record<string, string> = auth ? { authorization: auth } : {};
    if (type) headers["content-type"] = type;
    const res = await fetch(url, { method, headers, body: body as BodyInit | undefined, client });
    const text = await res.text();
    if (res.status >= 300) {
      throw new DevSetupError(`${method} ${url}: ${res.status} ${text}`);
    }
    return res;
  };
  for (const d of [manifest.config, ...manifest.layers]) {
    const data = await blob(d.digest);
    if (`sha256:${await sha256Hex(data)}` !== d.digest) {
      throw new DevSetupError(`blob ${d.digest} of ${layout} does not match its digest`);
    }
    const started = await call("POST", `${base}/v2/${repository}/blobs/uploads/`);
    const location = new URL(started.headers.get("location") ?? "", base);
    location.searchParams.set("digest", d.digest);
    await call("PUT", location.href, data, "application/octet-stream");
  }
  await call(
    "PUT",
    `${base}/v2/${repository}/manifests/${opts.tag}`,
    manifestBytes,
    desc.mediaType,
  );
}
