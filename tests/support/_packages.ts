/**
 * Installs the host packages the dev runtime needs, on a fresh Debian/Ubuntu machine.
 */
import { DevSetupError, exists, hasCommand, run } from "./_exec.ts";

export const CNI_BIN_DIR = "/usr/lib/cni";
export const BUSYBOX_PATH = "/bin/busybox";

const PACKAGES = [
  "containerd",
  "runc",
  "containernetworking-plugins",
  "busybox-static",
  "iptables",
  // A private message bus for the D-Bus client's tests (src/dbus).
  "dbus-daemon",
];

/** Names of what is missing on this host; empty when everything is in place. */
export async function missingPrerequisites(): Promise<string[]> {
  const missing: string[] = [];
  for (const cmd of ["containerd", "ctr", "runc", "iptables", "dbus-daemon"]) {
    if (!(await hasCommand(cmd))) missing.push(cmd);
  }
  for (const plugin of ["bridge", "host-local", "portmap", "loopback"]) {
    if (!(await exists(`${CNI_BIN_DIR}/${plugin}`))) missing.push(`cni:${plugin}`);
  }
  // The dynamically linked `busybox` package also provides /bin/busybox, but it cannot run
  // inside an image that has no libc, so insist on the static build.
  if (!(await isStaticElf(BUSYBOX_PATH))) missing.push("busybox-static");
  return missing;
}

/**
 * Runs `apt-get update` once and installs the packages when anything is missing.
 * Needs root. Safe to call repeatedly: a complete host costs a few `command -v` calls.
 */
export async function ensurePackages(log: (s: string) => void): Promise<void> {
  const missing = await missingPrerequisites();
  if (missing.length === 0) return;
  if (!(await hasCommand("apt-get"))) {
    throw new DevSetupError(
      `Cannot provision the dev runtime: missing ${
        missing.join(", ")
      } and apt-get is not available`,
    );
  }
  log(`installing ${PACKAGES.join(" ")} (missing: ${missing.join(", ")})`);
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  await run("apt-get", ["update"], { env });
  await run("apt-get", ["install", "-y", "--no-install-recommends", ...PACKAGES], { env });
  const still = await missingPrerequisites();
  if (still.length > 0) {
    throw new DevSetupError(`Installed packages but still missing: ${still.join(", ")}`);
  }
}

/** True when `path` is an ELF executable without a PT_INTERP segment (statically linked). */
export async function isStaticElf(path: string): Promise<boolean> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const isElf = bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46;
  // Only 64-bit little-endian is handled; that covers amd64 and arm64.
  if (!isElf || bytes[4] !== 2 || bytes[5] !== 1) return false;
  const phoff = Number(view.getBigUint64(0x20, true));
  const phentsize = view.getUint16(0x36, true);
  const phnum = view.getUint16(0x38, true);
  const PT_INTERP = 3;
  for (let i = 0; i < phnum; i++) {
    if (view.getUint32(phoff + i * phentsize, true) === PT_INTERP) return false;
  }
  return true;
}
