/**
 * Fakes for the volume seams: a Mounter that records instead of mounting, an FdFs that walks
 * the real (temporary) file system by name, and the API objects plugin volumes read.
 */
import type { V1ConfigMap, V1Pod, V1Secret } from "@kubernetes/client-node";
import {
  ObjectNotFoundError,
  type PodObjects,
  type TokenRequestSpec,
} from "../../src/objects/mod.ts";
import { type FdFs, type FdInfo, FsCallError, type Mounter } from "../../src/volumes/mod.ts";

const FAKE_PROC = "/proc/fake-agent/fd/";

function errno(err: unknown, what: string): FsCallError {
  if (err instanceof Deno.errors.NotFound) return new FsCallError("ENOENT", `${what}: ENOENT`);
  if (err instanceof Deno.errors.AlreadyExists) return new FsCallError("EEXIST", `${what}: EEXIST`);
  if (err instanceof Deno.errors.NotADirectory) {
    return new FsCallError("ENOTDIR", `${what}: ENOTDIR`);
  }
  return new FsCallError("EIO", `${what}: ${err}`);
}

/**
 * FdFs by name over the real file system: a descriptor remembers the path it was opened at and
 * pins nothing, so `beforeOpen` and `afterOpen` can swap files at exact points of a walk. Paths
 * the fake mounter bound resolve to their source, as a bind mount would.
 */
export class FakeFdFs implements FdFs {
  #next = 100;
  /** Open descriptors and the paths they stand for; a test checks it is empty afterwards. */
  readonly open = new Map<number, string>();
  /** Bind mounts made through FakeMounter: target -> source path. */
  readonly binds = new Map<string, string>();
  beforeOpen?: (path: string) => void;
  afterOpen?: (path: string) => void;

  #path(fd: number): string {
    const p = this.open.get(fd);
    if (p === undefined) throw new FsCallError("EBADF", `fd ${fd}: EBADF`);
    return p;
  }

  #openPath(path: string): number {
    this.beforeOpen?.(path);
    const real = this.binds.get(path) ?? path;
    try {
      Deno.lstatSync(real);
    } catch (err) {
      throw errno(err, `open ${path}`);
    }
    const fd = this.#next++;
    this.open.set(fd, real);
    this.afterOpen?.(path);
    return fd;
  }

  #child(dirFd: number, name: string): string {
    const dir = this.#path(dirFd);
    if (!Deno.lstatSync(dir).isDirectory) throw new FsCallError("ENOTDIR", `${dir}: ENOTDIR`);
    return `${dir}/${name}`;
  }

  openRoot(path: string): number {
    return this.#openPath(path);
  }

  openAt(dirFd: number, name: string): number {
    return this.#openPath(this.#child(dirFd, name));
  }

  mkdirAt(dirFd: number, name: string, mode: number): void {
    const path = this.#child(dirFd, name);
    try {
      Deno.mkdirSync(path, { mode });
    } catch (err) {
      throw errno(err, `mkdir ${path}`);
    }
  }

  stat(fd: number): FdInfo {
    const info = Deno.lstatSync(this.#path(fd));
    const kind = info.isSymlink
      ? "symlink"
      : info.isDirectory
      ? "directory"
      : info.isFile
      ? "file"
      : "other";
    return { kind, mode: (info.mode ?? 0) & 0o7777, id: `${info.dev}:${info.ino}` };
  }

  chmod(fd: number, mode: number): void {
    Deno.chmodSync(this.#path(fd), mode);
  }

  close(fd: number): void {
    this.#path(fd);
    this.open.delete(fd);
  }

  procPath(fd: number): string {
    this.#path(fd);
    return `${FAKE_PROC}${fd}`;
  }

  /** The path a procPath() names, while its descriptor is open. */
  pathOfProc(source: string): string {
    if (!source.startsWith(FAKE_PROC)) throw new Error(`not a fake fd path: ${source}`);
    return this.#path(Number(source.slice(FAKE_PROC.length)));
  }
}

/** Records mounts instead of making them; with `fs`, binds become visible through that fake. */
export class FakeMounter implements Mounter {
  /** Mount points, each with its stack of mounts (topmost last). */
  mounted = new Map<string, { fstype: string; options: string[] }[]>();
  calls: string[] = [];
  /** Set to make the next binds fail. */
  failBind?: Error;
  /** Set to make a bind show this path instead of its source (a mount that went astray). */
  bindElsewhere?: string;

  constructor(readonly fs?: FakeFdFs) {}

  #push(target: string, entry: { fstype: string; options: string[] }) {
    this.mounted.set(target, [...(this.mounted.get(target) ?? []), entry]);
  }

  mount(_source: string, target: string, opts: { fstype: string; options?: string[] }) {
    this.calls.push(`mount ${target} ${(opts.options ?? []).join(",")}`);
    this.#push(target, { fstype: opts.fstype, options: opts.options ?? [] });
    return Promise.resolve();
  }
  bind(source: string, target: string, opts?: { readOnly?: boolean }) {
    this.calls.push(`bind ${source} ${target}${opts?.readOnly ? " ro" : ""}`);
    if (this.failBind) return Promise.reject(this.failBind);
    if (this.fs) this.fs.binds.set(target, this.bindElsewhere ?? this.fs.pathOfProc(source));
    this.#push(target, { fstype: "none", options: opts?.readOnly ? ["bind", "ro"] : ["bind"] });
    return Promise.resolve();
  }
  unmount(target: string) {
    this.calls.push(`umount ${target}`);
    const stack = this.mounted.get(target) ?? [];
    if (!stack.length) return Promise.reject(new Error(`umount ${target}: not mounted`));
    stack.pop();
    if (!stack.length) {
      this.mounted.delete(target);
      this.fs?.binds.delete(target);
    }
    return Promise.resolve();
  }
  isMountPoint(path: string) {
    return Promise.resolve(this.mounted.has(path));
  }
  mountPointsUnder(dir: string) {
    return Promise.resolve(
      [...this.mounted.entries()]
        .filter(([m]) => m === dir || m.startsWith(dir + "/"))
        .flatMap(([m, stack]) => stack.map(() => m)),
    );
  }
}

/** ConfigMaps, Secrets and tokens from maps, as the API mode's caches would give them. */
export class FakeObjects implements PodObjects {
  configMaps = new Map<string, V1ConfigMap>();
  secrets = new Map<string, V1Secret>();
  token = "token-1";
  tokenRequests: TokenRequestSpec[] = [];
  configMap(pod: V1Pod, name: string) {
    const found = this.configMaps.get(name);
    if (!found) {
      return Promise.reject(new ObjectNotFoundError("configmap", pod.metadata!.namespace!, name));
    }
    return Promise.resolve(found);
  }
  secret(pod: V1Pod, name: string) {
    const found = this.secrets.get(name);
    if (!found) {
      return Promise.reject(new ObjectNotFoundError("secret", pod.metadata!.namespace!, name));
    }
    return Promise.resolve(found);
  }
  serviceAccountToken(_pod: V1Pod, spec: TokenRequestSpec) {
    this.tokenRequests.push(spec);
    return Promise.resolve(this.token);
  }
}
