/**
 * Runs an arm64 Deno runtime on an x86_64 machine, for checking the arm64 packed file: Debian's
 * qemu-user-static emulates the CPU, and the arm64 cross libc (architecture-independent packages,
 * no multiarch set-up) gives the runtime its loader and libraries. Installed with apt like the
 * rest of the dev provisioning.
 */
import { DevSetupError, exists, hasCommand, run } from "./_exec.ts";

export const QEMU_AARCH64 = "qemu-aarch64-static";
/** Where libc6-arm64-cross puts the arm64 loader and libraries; qemu reads QEMU_LD_PREFIX. */
export const AARCH64_SYSROOT = "/usr/aarch64-linux-gnu";
const PACKAGES = ["qemu-user-static", "libc6-arm64-cross", "libgcc-s1-arm64-cross"];
/** The arm64 runtime's loader and the one library glibc does not carry. */
const NEEDED = ["lib/ld-linux-aarch64.so.1", "lib/libc.so.6", "lib/libgcc_s.so.1"];

async function ready(): Promise<boolean> {
  if (!(await hasCommand(QEMU_AARCH64))) return false;
  for (const f of NEEDED) if (!(await exists(`${AARCH64_SYSROOT}/${f}`))) return false;
  return true;
}

/**
 * The environment that runs a packed arm64 file here: DENOLET_EMULATOR and QEMU_LD_PREFIX.
 * Installs the packages when missing (needs root and apt-get).
 */
export async function ensureQemuAarch64(
  log: (line: string) => void,
): Promise<Record<string, string>> {
  const env = { DENOLET_EMULATOR: QEMU_AARCH64, QEMU_LD_PREFIX: AARCH64_SYSROOT };
  if (await ready()) return env;
  if (!(await hasCommand("apt-get"))) {
    throw new DevSetupError(
      `Cannot run arm64 code: ${PACKAGES.join(", ")} are missing, no apt-get`,
    );
  }
  log(`installing ${PACKAGES.join(" ")}`);
  const aptEnv = { DEBIAN_FRONTEND: "noninteractive" };
  // Another suite may be provisioning at the same time: wait for dpkg's lock, do not fail on it.
  const lock = ["-o", "DPkg::Lock::Timeout=300"];
  await run("apt-get", [...lock, "update"], { env: aptEnv });
  await run("apt-get", [...lock, "install", "-y", "--no-install-recommends", ...PACKAGES], {
    env: aptEnv,
  });
  if (!(await ready())) {
    throw new DevSetupError(`Installed ${PACKAGES.join(", ")} but ${QEMU_AARCH64} is not usable`);
  }
  return env;
}
