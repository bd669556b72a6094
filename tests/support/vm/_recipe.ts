/**
 * What the test VM is made of: the Debian packages and the files written into its root
 * filesystem. A node as kubeadm and k3s users run one: systemd as PID 1 with logind and the
 * system D-Bus, the pure cgroup v2 hierarchy, containerd with runc's systemd cgroup driver and a
 * CNI bridge. Private to tests/support/vm.
 */

export type VmArch = "amd64" | "arm64";

export const SUITE = "bookworm";

/** The guest's packages (Debian bookworm: systemd 252, containerd 1.6, runc 1.1). */
export function packages(arch: VmArch): string[] {
  return [
    "systemd",
    "systemd-sysv",
    "dbus",
    "libpam-systemd",
    "udev",
    "kmod",
    arch === "amd64" ? "linux-image-amd64" : "linux-image-arm64",
    "initramfs-tools",
    "containerd",
    "runc",
    "containernetworking-plugins",
    "iptables",
    "busybox-static",
    "openssh-server",
    "iproute2",
    "procps",
    "ca-certificates",
    // The node API takes client certificates; the tests ask it as an operator would.
    "curl",
  ];
}

/**
 * mmdebstrap's essential hook: the initrd holds only the virtio and ext4 modules, written before
 * the kernel package is configured so that its postinst builds the small one once. A smaller
 * initrd boots noticeably faster under TCG.
 */
export const INITRD_HOOK = [
  'mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/etc/initramfs-tools/hooks"',
  'printf "MODULES=list\\nCOMPRESS=gzip\\n" > "$1/etc/initramfs-tools/conf.d/vm.conf"',
  'cat > "$1/etc/initramfs-tools/hooks/vm-virtio" <<"EOF"',
  "#!/bin/sh",
  'case "$1" in prereqs) exit 0;; esac',
  ". /usr/share/initramfs-tools/hook-functions",
  "for m in virtio_pci virtio_mmio virtio_blk virtio_net virtio_rng ext4; do force_load $m; done",
  "EOF",
  'chmod 755 "$1/etc/initramfs-tools/hooks/vm-virtio"',
].join("\n");

/** The serial console device qemu's machine gives the guest. */
export function consoleDevice(arch: VmArch): string {
  return arch === "amd64" ? "ttyS0" : "ttyAMA0";
}

export const GUEST_HOSTNAME = "denolet-vm";
/** qemu user networking (slirp) gives the guest this address; no DHCP round trip under TCG. */
export const GUEST_IP = "10.0.2.15";
export const POD_SUBNET = "10.88.0.0/16";
export const BUSYBOX_IMAGE = "localhost/busybox:1";
export const PAUSE_IMAGE = "localhost/pause:1";
/** Where the image archives are baked in; a first-boot unit imports them. */
export const IMAGE_DIR = "/opt/vm-images";

/** Files written into the root filesystem after mmdebstrap, keyed by absolute guest path. */
export function guestFiles(arch: VmArch, runc: string): Record<string, string> {
  const tty = consoleDevice(arch);
  return {
    "/etc/hostname": `${GUEST_HOSTNAME}\n`,
    "/etc/hosts": `127.0.0.1 localhost\n127.0.1.1 ${GUEST_HOSTNAME}\n::1 localhost\n`,
    "/etc/fstab": "/dev/vda / ext4 rw,relatime,errors=remount-ro 0 1\n",
    "/etc/resolv.conf": "nameserver 10.0.2.3\n",
    "/etc/systemd/network/10-uplink.network": [
      "[Match]",
      "Name=en* eth*",
      "[Network]",
      `Address=${GUEST_IP}/24`,
      "Gateway=10.0.2.2",
      "",
    ].join("\n"),
    "/etc/systemd/system/systemd-networkd-wait-online.service.d/any.conf": [
      "[Service]",
      "ExecStart=",
      "ExecStart=/lib/systemd/systemd-networkd-wait-online --any --timeout=30",
      "",
    ].join("\n"),
    // Root on the serial console, for looking around when ssh does not come up.
    [`/etc/systemd/system/serial-getty@${tty}.service.d/autologin.conf`]: [
      "[Service]",
      "ExecStart=",
      "ExecStart=-/sbin/agetty --autologin root --keep-baud 115200,57600,38400,9600 - $TERM",
      "",
    ].join("\n"),
    "/etc/ssh/sshd_config.d/vm.conf": [
      "PermitRootLogin prohibit-password",
      "PasswordAuthentication no",
      "UseDNS no",
      "",
    ].join("\n"),
    // Persistent, so the agent's log of the previous boot can be read after a reboot.
    "/etc/systemd/journald.conf.d/vm.conf": "[Journal]\nStorage=persistent\nSystemMaxUse=64M\n",
    "/etc/containerd/config.toml": containerdConfig(runc),
    "/etc/cni/net.d/10-bridge.conflist": JSON.stringify(
      {
        cniVersion: "1.0.0",
        name: "vm-bridge",
        plugins: [
          {
            type: "bridge",
            bridge: "cni0",
            isGateway: true,
            ipMasq: true,
            ipam: {
              type: "host-local",
              ranges: [[{ subnet: POD_SUBNET }]],
              routes: [{ dst: "0.0.0.0/0" }],
            },
          },
          { type: "portmap", capabilities: { portMappings: true } },
        ],
      },
      null,
      2,
    ),
    "/etc/systemd/system/vm-import-images.service": [
      "[Unit]",
      "Description=Import the baked-in test images into containerd's k8s.io namespace",
      "After=containerd.service",
      "Requires=containerd.service",
      "ConditionPathExists=!/var/lib/vm-images-imported",
      "[Service]",
      "Type=oneshot",
      "RemainAfterExit=yes",
      `ExecStart=/bin/sh -c 'for f in ${IMAGE_DIR}/*.tar; do ctr -n k8s.io images import ` +
      `"$f" || exit 1; done; touch /var/lib/vm-images-imported'`,
      "[Install]",
      "WantedBy=multi-user.target",
      "",
    ].join("\n"),
  };
}

/** containerd 1.6's CRI plugin with runc's systemd cgroup driver, as kubeadm's guides set it. */
function containerdConfig(runc: string): string {
  return [
    "version = 2",
    '[plugins."io.containerd.grpc.v1.cri"]',
    `  sandbox_image = "${PAUSE_IMAGE}"`,
    '  [plugins."io.containerd.grpc.v1.cri".containerd]',
    '    default_runtime_name = "runc"',
    '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]',
    '      runtime_type = "io.containerd.runc.v2"',
    '      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]',
    "        SystemdCgroup = true",
    `        BinaryName = "${runc}"`,
    '  [plugins."io.containerd.grpc.v1.cri".cni]',
    '    bin_dir = "/usr/lib/cni"',
    '    conf_dir = "/etc/cni/net.d"',
    "",
  ].join("\n");
}

/** Units enabled in the image (systemctl enable in the chroot). */
export const ENABLED_UNITS = [
  "systemd-networkd.service",
  "containerd.service",
  "vm-import-images.service",
];

/**
 * The pause image's command. busybox `sleep` as PID 1 ignores SIGTERM, so every sandbox stop,
 * and every shutdown with a pod up, would wait for the runtime's SIGKILL; this one exits.
 */
export const PAUSE_COMMAND = [
  "sh",
  "-c",
  "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done",
];

/** Applets linked in the busybox image. */
export const BUSYBOX_APPLETS = [
  "sh",
  "sleep",
  "echo",
  "cat",
  "ls",
  "true",
  "false",
  "date",
  "touch",
  "test",
  "head",
  "dd",
  "ps",
  "grep",
  "mkdir",
  "rm",
];

/** A hash of everything above, so an image built from another recipe is rebuilt. */
export async function recipeStamp(arch: VmArch): Promise<string> {
  const text = JSON.stringify([
    SUITE,
    packages(arch),
    INITRD_HOOK,
    guestFiles(arch, "RUNC"),
    ENABLED_UNITS,
    PAUSE_COMMAND,
    BUSYBOX_APPLETS,
  ]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest).slice(0, 8), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}
