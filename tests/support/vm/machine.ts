/**
 * The test VM: a Debian guest with systemd, logind, cgroup v2 and containerd (systemd cgroup
 * driver) under qemu, reached over ssh on a loopback port forward. `withVm` builds the image when
 * needed, boots a fresh copy-on-write overlay of it, hands the running machine to the caller and
 * powers it off afterwards, all under a lock: one VM per architecture and directory at a time.
 *
 * On a host without hardware virtualisation (this one: /dev/kvm is kvm_pvm, which cannot run a
 * stock kernel) qemu emulates with TCG: boot takes 1.5 to 2.5 min and the guest runs 10 to 30
 * times slower than native. Leave generous timeouts in anything that runs inside.
 */
import { realClock } from "../../../src/util/clock.ts";
import { DevSetupError, exists, run, tryRun } from "../_exec.ts";
import { devDir } from "../containerd.ts";
import { freePort } from "../wait.ts";
import {
  ensureHostPackages,
  ensureImage,
  hostArch,
  removeIfPresent,
  type VmImage,
} from "./_image.ts";
import { consoleDevice, type VmArch } from "./_recipe.ts";

export { hostArch } from "./_image.ts";
export { BUSYBOX_IMAGE, GUEST_IP, PAUSE_IMAGE, type VmArch } from "./_recipe.ts";

export interface VmOptions {
  arch?: VmArch;
  /** Where the image and overlay live; default `<dev dir>/vm/<arch>`. */
  dir?: string;
  cpus?: number;
  memoryMiB?: number;
  /** "auto" (hardware virtualisation only when it can run the guest), "tcg" or "kvm". */
  accel?: "auto" | "tcg" | "kvm";
  /** Guest TCP ports the host reaches, each on a free 127.0.0.1 port (`TestVm.hostPort`). */
  forwardPorts?: number[];
  /**
   * Host services the guest reaches at an address of qemu's network, `guest` ("10.0.2.100:6443",
   * not 10.0.2.2 or .3): qemu runs socat to `host` ("127.0.0.1:PORT") for each connection. The
   * guest reaches nothing else outside.
   */
  hostServices?: { guest: string; host: string }[];
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `<dev dir>/vm/<arch>` unless `$DENOLET_VM_DIR` says otherwise. */
export function vmDir(arch: VmArch): string {
  return Deno.env.get("DENOLET_VM_DIR") ?? `${devDir()}/vm/${arch}`;
}

/** Boots a fresh VM, runs `fn` with it and powers it off, under the VM lock. */
export async function withVm<T>(opts: VmOptions, fn: (vm: TestVm) => Promise<T>): Promise<T> {
  const arch = opts.arch ?? hostArch();
  const dir = opts.dir ?? vmDir(arch);
  const log = opts.log ?? ((line: string) => console.error(line));
  await Deno.mkdir(dir, { recursive: true });
  const lock = await Deno.open(`${dir}/.lock`, { create: true, write: true });
  try {
    // flock(2): a second run waits; the kernel releases it if this process dies.
    await lock.lock(true);
    await ensureHostPackages(arch, log);
    const image = await ensureImage(dir, arch, { log, signal: opts.signal });
    const vm = new TestVm(image, { ...opts, log });
    await vm.start();
    try {
      return await fn(vm);
    } finally {
      await vm.stop();
    }
  } finally {
    lock.close();
  }
}

export class TestVm {
  readonly arch: VmArch;
  #image: VmImage;
  #opts: VmOptions & { log: (line: string) => void };
  #port = 0;
  #forwarded = new Map<number, number>();

  constructor(image: VmImage, opts: VmOptions & { log: (line: string) => void }) {
    this.arch = image.arch;
    this.#image = image;
    this.#opts = opts;
  }

  get #pidFile(): string {
    return `${this.#image.dir}/qemu.pid`;
  }

  get serialLogFile(): string {
    return `${this.#image.dir}/serial.log`;
  }

  /** Boots a fresh overlay of the image and waits for ssh; returns the seconds it took. */
  async start(): Promise<number> {
    const dir = this.#image.dir;
    await removeIfPresent(`${dir}/disk.qcow2`);
    await run("qemu-img", [
      "create",
      "-q",
      "-f",
      "qcow2",
      "-F",
      "raw",
      "-b",
      this.#image.rootfs,
      `${dir}/disk.qcow2`,
    ]);
    this.#port = freePort();
    this.#forwarded = new Map();
    for (const guest of this.#opts.forwardPorts ?? []) {
      this.#forwarded.set(guest, freePort([this.#port, ...this.#forwarded.values()]));
    }
    await removeIfPresent(this.serialLogFile);
    const started = realClock.monotonic();
    const { binary, args } = await this.#qemuArgs();
    this.#opts.log(
      `vm: booting ${this.arch} (${args.includes("kvm") ? "KVM" : "TCG"}), ssh on ` +
        `127.0.0.1:${this.#port}`,
    );
    await run("nice", ["-n", "10", binary, ...args]);
    await this.waitForSsh(600_000);
    const seconds = Math.round((realClock.monotonic() - started) / 1000);
    this.#opts.log(`vm: ssh answered after ${seconds} s`);
    return seconds;
  }

  async #qemuArgs(): Promise<{ binary: string; args: string[] }> {
    const dir = this.#image.dir;
    const accel = await this.#accel();
    const cmdline = [
      `console=${consoleDevice(this.arch)}${this.arch === "amd64" ? ",115200" : ""}`,
      "root=/dev/vda",
      "rw",
      "quiet",
      "loglevel=4",
    ].join(" ");
    const machine = this.arch === "amd64"
      ? [
        ...(accel === "kvm"
          ? ["-accel", "kvm", "-cpu", "host"]
          : ["-accel", "tcg,thread=multi", "-cpu", "max"]),
        "-M",
        "q35",
      ]
      : ["-accel", "tcg,thread=multi", "-M", "virt", "-cpu", "cortex-a72"];
    return {
      binary: this.arch === "amd64" ? "qemu-system-x86_64" : "qemu-system-aarch64",
      args: [
        ...machine,
        "-m",
        `${this.#opts.memoryMiB ?? 2048}`,
        "-smp",
        `${this.#opts.cpus ?? 2}`,
        "-display",
        "none",
        "-kernel",
        this.#image.kernel,
        "-initrd",
        this.#image.initrd,
        "-append",
        cmdline,
        "-drive",
        `file=${dir}/disk.qcow2,format=qcow2,if=none,id=d0,cache=unsafe,discard=unmap`,
        "-device",
        "virtio-blk-pci,drive=d0",
        // restrict=on: the guest reaches nothing outside but the host services asked for; only
        // the ssh forward and the ports asked for come in.
        "-netdev",
        [
          "user,id=n0,restrict=on",
          `hostfwd=tcp:127.0.0.1:${this.#port}-:22`,
          ...[...this.#forwarded].map(([guest, host]) => `hostfwd=tcp:127.0.0.1:${host}-:${guest}`),
          ...(this.#opts.hostServices ?? []).map((s) =>
            `guestfwd=tcp:${s.guest}-cmd:socat - TCP:${s.host}`
          ),
        ].join(","),
        "-device",
        "virtio-net-pci,netdev=n0",
        "-device",
        "virtio-rng-pci",
        "-serial",
        `file:${this.serialLogFile}`,
        "-monitor",
        `unix:${dir}/monitor.sock,server=on,wait=off`,
        "-pidfile",
        this.#pidFile,
        "-daemonize",
      ],
    };
  }

  /** KVM only for the host's own architecture on a host whose KVM runs stock kernels. */
  async #accel(): Promise<"kvm" | "tcg"> {
    const want = this.#opts.accel ?? Deno.env.get("DENOLET_VM_ACCEL") ?? "auto";
    if (want === "kvm" || want === "tcg") return want;
    if (this.arch !== hostArch() || !(await exists("/dev/kvm"))) return "tcg";
    if (await exists("/sys/module/kvm_pvm")) return "tcg";
    return (await exists("/sys/module/kvm_intel")) || (await exists("/sys/module/kvm_amd"))
      ? "kvm"
      : "tcg";
  }

  #sshArgs(): string[] {
    return [
      "-i",
      this.#image.sshKey,
      "-o",
      "StrictHostKeyChecking=no",
      "-o",
      "UserKnownHostsFile=/dev/null",
      "-o",
      "LogLevel=ERROR",
      "-o",
      "ConnectTimeout=10",
      "-o",
      "ServerAliveInterval=15",
      "-o",
      "BatchMode=yes",
    ];
  }

  /** The host's 127.0.0.1 port that reaches `guestPort` (one of `forwardPorts`). */
  hostPort(guestPort: number): number {
    const port = this.#forwarded.get(guestPort);
    if (port === undefined) throw new DevSetupError(`Guest port ${guestPort} is not forwarded`);
    return port;
  }

  /** The ssh command line that reaches the guest, for a person at a terminal. */
  sshCommand(): string {
    return ["ssh", ...this.#sshArgs(), "-p", `${this.#port}`, "root@127.0.0.1"].join(" ");
  }

  /** Runs a shell command in the guest as root; never throws on its exit code. */
  exec(command: string, opts: { signal?: AbortSignal } = {}): Promise<ExecResult> {
    return tryRun("ssh", [...this.#sshArgs(), "-p", `${this.#port}`, "root@127.0.0.1", command], {
      signal: opts.signal,
    });
  }

  /** Like `exec`, but throws DevSetupError with the output when the command fails. */
  async sh(command: string, opts: { signal?: AbortSignal } = {}): Promise<string> {
    const res = await this.exec(command, opts);
    if (res.code !== 0) {
      throw new DevSetupError(
        `In the VM, ${JSON.stringify(command.slice(0, 200))} exited with ${res.code}:\n` +
          (res.stderr || res.stdout).trim().split("\n").slice(-30).join("\n"),
      );
    }
    return res.stdout;
  }

  /** Copies a host file into the guest. */
  async put(local: string, remote: string): Promise<void> {
    await run("scp", [
      ...this.#sshArgs(),
      "-P",
      `${this.#port}`,
      local,
      `root@127.0.0.1:${remote}`,
    ]);
  }

  /** Waits until ssh answers (the guest booted far enough), at most `timeoutMs`. */
  async waitForSsh(timeoutMs: number): Promise<void> {
    const deadline = realClock.monotonic() + timeoutMs;
    for (;;) {
      const res = await this.exec("true");
      if (res.code === 0) return;
      if (!(await this.running())) {
        throw new DevSetupError(`qemu exited during boot; see ${this.serialLogFile}`);
      }
      if (realClock.monotonic() > deadline) {
        throw new DevSetupError(
          `The VM did not answer ssh in ${timeoutMs / 1000} s; see ` +
            this.serialLogFile,
        );
      }
      await realClock.sleep(2_000, { signal: this.#opts.signal });
    }
  }

  async bootId(): Promise<string> {
    return (await this.sh("cat /proc/sys/kernel/random/boot_id")).trim();
  }

  /**
   * Runs `systemctl reboot` in the guest and waits for it to come back with a new boot id;
   * returns the seconds it took. The reboot goes through logind, so delay inhibitors hold it.
   */
  async reboot(timeoutMs = 900_000): Promise<number> {
    const before = await this.bootId();
    const started = realClock.monotonic();
    // The connection may drop before ssh reports the command's status.
    await this.exec("systemctl reboot");
    for (;;) {
      const res = await this.exec("cat /proc/sys/kernel/random/boot_id");
      if (res.code === 0 && res.stdout.trim() !== "" && res.stdout.trim() !== before) break;
      if (realClock.monotonic() - started > timeoutMs) {
        throw new DevSetupError(`The VM did not come back from reboot in ${timeoutMs / 1000} s`);
      }
      await realClock.sleep(3_000, { signal: this.#opts.signal });
    }
    return Math.round((realClock.monotonic() - started) / 1000);
  }

  async running(): Promise<boolean> {
    let pid: number;
    try {
      pid = Number((await Deno.readTextFile(this.#pidFile)).trim());
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false; // qemu never started
      throw err;
    }
    if (!pid) return false;
    return (await tryRun("kill", ["-0", `${pid}`])).code === 0;
  }

  /** Powers the guest off (ssh, then ACPI through the monitor, then qemu's own quit). */
  async stop(): Promise<void> {
    if (!(await this.running())) return;
    await this.exec("systemctl poweroff");
    if (await this.#waitExit(120_000)) return;
    this.#opts.log("vm: the guest did not power off; quitting qemu");
    await this.#monitor("quit").catch((err) => this.#opts.log(`vm: monitor: ${err}`));
    if (await this.#waitExit(10_000)) return;
    const pid = (await Deno.readTextFile(this.#pidFile)).trim();
    await tryRun("kill", ["-9", pid]);
  }

  async #waitExit(ms: number): Promise<boolean> {
    const deadline = realClock.monotonic() + ms;
    while (realClock.monotonic() < deadline) {
      if (!(await this.running())) return true;
      await realClock.sleep(1_000);
    }
    return false;
  }

  async #monitor(command: string): Promise<void> {
    const conn = await Deno.connect({ transport: "unix", path: `${this.#image.dir}/monitor.sock` });
    try {
      await conn.write(new TextEncoder().encode(`${command}\n`));
    } finally {
      conn.close();
    }
  }
}
