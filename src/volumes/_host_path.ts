/**
 * hostPath volumes: the node path itself, after the `type` check upstream does at mount time
 * (pkg/volume/hostpath/host_path.go checkType).
 */
import type { V1HostPathVolumeSource } from "@kubernetes/client-node";
import { ConfigError } from "../util/errors.ts";

const KIND: Record<string, { test: (i: Deno.FileInfo) => boolean; noun: string }> = {
  Directory: { test: (i) => i.isDirectory, noun: "a directory" },
  DirectoryOrCreate: { test: (i) => i.isDirectory, noun: "a directory" },
  File: { test: (i) => i.isFile, noun: "a file" },
  FileOrCreate: { test: (i) => i.isFile, noun: "a file" },
  Socket: { test: (i) => i.isSocket === true, noun: "a socket file" },
  CharDevice: { test: (i) => i.isCharDevice === true, noun: "a character device" },
  BlockDevice: { test: (i) => i.isBlockDevice === true, noun: "a block device" },
};

async function statOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/**
 * Checks (and for the *OrCreate types creates) the hostPath and returns it. Errors name the
 * volume: `volume "data": hostPath type check failed: /x is not a directory`.
 */
export async function setUpHostPath(
  volumeName: string,
  src: V1HostPathVolumeSource,
): Promise<string> {
  const field = `volume ${JSON.stringify(volumeName)}`;
  const path = src.path;
  if (!path || !path.startsWith("/")) {
    throw new ConfigError(
      field,
      `hostPath.path must be an absolute path, got ${JSON.stringify(path)}`,
    );
  }
  const type = src.type ?? "";
  if (type === "") return path;
  const kind = KIND[type];
  if (!kind) throw new ConfigError(field, `unsupported hostPath type ${JSON.stringify(type)}`);
  try {
    let info = await statOrUndefined(path);
    if (!info && type === "DirectoryOrCreate") {
      await Deno.mkdir(path, { recursive: true, mode: 0o755 });
      info = await Deno.stat(path);
    } else if (!info && type === "FileOrCreate") {
      // Like upstream, the parent must already exist; only the file itself is created.
      (await Deno.open(path, { create: true, write: true, mode: 0o644 })).close();
      info = await Deno.stat(path);
    }
    if (!info) throw new ConfigError(field, `hostPath type check failed: ${path} does not exist`);
    if (!kind.test(info)) {
      throw new ConfigError(field, `hostPath type check failed: ${path} is not ${kind.noun}`);
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(field, `cannot set up hostPath ${path}`, { cause: err });
  }
  return path;
}
