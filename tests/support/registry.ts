/**
 * A private registry for the tests: the distribution registry (Debian's docker-registry package,
 * v2.8, unpacked in seconds; DENOLET_DEV_REGISTRY=source builds v3 from the Go module proxy) on
 * loopback with htpasswd (basic) authentication, and a small pusher of OCI layouts over the
 * distribution API. containerd pulls from `127.0.0.1:<port>` over plain HTTP without any
 * registry configuration (it treats loopback registries as HTTP), so the shared dev containerd's
 * config stays as it is.
 */
import bcrypt from "bcryptjs";
import { stringify as toYaml } from "yaml";
import { realClock } from "../../src/util/clock.ts";
import { DevSetupError, sha256Hex } from "./_exec.ts";
import { writeOciArchive } from "./_oci.ts";
import { buildRegistry } from "./_registry_build.ts";
import { debBinaries } from "./_deb_binaries.ts";
import { devDir } from "./containerd.ts";
import { busyboxRootfs } from "./images.ts";

export interface Registry {
  /** `127.0.0.1:<port>`: the image name prefix and the credentials' endpoint. */
  readonly host: string;
  /**
   * Builds a busybox image with a file `/marker` holding `marker` (so its layer is new to the
   * runtime) and pushes it as `<host>/<repository>:<tag>` with `user`'s credentials. Returns
   * the full image name and its manifest digest.
   */
  pushBusybox(
    repository: string,
    opts: { tag?: string; marker: string; user: string },
  ): Promise<{ image: string; digest: string }>;
  /** Stops the registry and removes its storage. Idempotent. */
  stop(): Promise<void>;
}

export interface RegistryOptions {
  /** user → password; every request needs one of them. */
  users: Record<string, string>;
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
  const config = {
    version: 0.1,
    log: { level: "warn", accesslog: { disabled: true } },
    storage: { filesystem: { rootdirectory: `${dir}/data` }, delete: { enabled: true } },
    http: { addr: host, secret: crypto.randomUUID() },
    auth: { htpasswd: { realm: "denolet-test", path: `${dir}/htpasswd` } },
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
    await Deno.remove(dir, { recursive: true }).catch(() => undefined);
  };
  try {
    await waitReady(host, child.status);
  } catch (err) {
    const text = await Deno.readTextFile(`${dir}/registry.log`).catch(() => "");
    await stop();
    throw new DevSetupError(`The registry did not start: ${err}\n${text}`, { cause: err });
  }
  const auth = (user: string) => `Basic ${btoa(`${user}:${opts.users[user]}`)}`;
  return {
    host,
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
        const { layout, manifestDigest } = await writeOciArchive({
          name: image,
          rootfs,
          config,
          workDir: work,
          out: `${work}/image.tar`,
        });
        await pushLayout(`http://${host}`, { layout, repository, tag, auth: auth(p.user) });
        return { image, digest: manifestDigest };
      } finally {
        await Deno.remove(work, { recursive: true });
      }
    },
  };
}

/** A port nobody listens on right now (the registry binds it a moment later). */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Until `/v2/` answers (401 without credentials), at most 20 s. */
async function waitReady(host: string, exited: Promise<Deno.CommandStatus>): Promise<void> {
  let done = false;
  const exit = exited.then((s) => {
    done = true;
    return s;
  });
  const deadline = realClock.now() + 20_000;
  while (realClock.now() < deadline) {
    if (done) throw new Error(`the registry exited with ${(await exit).code}`);
    try {
      const res = await fetch(`http://${host}/v2/`, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      if (res.status === 401 || res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await realClock.sleep(100);
  }
  throw new Error(`no answer from http://${host}/v2/ within 20s`);
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
  opts: { layout: string; repository: string; tag: string; auth: string },
): Promise<void> {
  const { layout, repository, auth } = opts;
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
    const headers: Record<string, string> = { authorization: auth };
    if (type) headers["content-type"] = type;
    const res = await fetch(url, { method, headers, body: body as BodyInit | undefined });
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
