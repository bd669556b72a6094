/**
 * The shutdown manager's logind and systemd over the system D-Bus (upstream
 * nodeshutdown/systemd/inhibit_linux.go), and the logind.conf drop-in that lets an inhibitor
 * hold a shutdown for as long as the grace periods need.
 */
import type { ShutdownInhibitor } from "./manager.ts";

export const LOGIND_CONF_DIR = "/etc/systemd/logind.conf.d";
export const LOGIND_DROP_IN = "99-kubelet.conf";

/** The drop-in upstream writes (its name, header and seconds as `%.0f`). */
export function logindDropIn(ms: number): string {
  return `# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=${Math.round(ms / 1000)}\n`;
}

export async function connectLogind(
  opts: { busPath?: string; confDir?: string } = {},
): Promise<ShutdownInhibitor> {
  const dbus = await import("../dbus/mod.ts");
  const conn = await dbus.connectBus({ path: opts.busPath });
  const systemd = dbus.systemdManager(conn);
  const confDir = opts.confDir ?? LOGIND_CONF_DIR;
  return {
    currentInhibitDelayMs: () => dbus.inhibitDelayMaxMs(conn),
    inhibitShutdown: () =>
      dbus.inhibitDelay({
        what: "shutdown",
        who: "kubelet",
        why: "Kubelet needs time to handle node shutdown",
      }, { path: opts.busPath }),
    async overrideInhibitDelay(ms) {
      await Deno.mkdir(confDir, { recursive: true, mode: 0o755 });
      await Deno.writeTextFile(`${confDir}/${LOGIND_DROP_IN}`, logindDropIn(ms), { mode: 0o644 });
    },
    // SIGHUP to logind through systemd: it reads its configuration again.
    reloadLogindConf: () => systemd.killUnit("systemd-logind.service", "all", 1),
    async monitorShutdown(fn) {
      await dbus.watchPrepareForShutdown(conn, fn);
    },
    closed: conn.closed,
    close: () => conn.close(),
  };
}
