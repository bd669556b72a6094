/** What the agent reads from the host at start-up and in housekeeping. */
import { parseResolvConf } from "../runtime/mod.ts";
import type { DNSConfig } from "../cri/types.ts";
import type { Logger } from "../util/log.ts";

/**
 * UIDs of the pod directories under `<rootDir>/pods`. Read synchronously, as the other
 * periodic metadata reads: an async one is a task on Deno's blocking thread pool, and work
 * arriving every few seconds keeps every thread a burst ever started alive (22 idle threads
 * after 110 pods started, each with its stack and malloc arena; issue 14).
 */
export function listPodDirs(rootDir: string): string[] {
  const uids: string[] = [];
  try {
    for (const e of Deno.readDirSync(`${rootDir}/pods`)) if (e.isDirectory) uids.push(e.name);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return uids;
}

/** The host's resolver configuration, which dnsPolicy Default pods inherit. */
export async function readResolvConf(path: string, logger: Logger): Promise<DNSConfig> {
  if (!path) return { servers: [], searches: [], options: [] };
  try {
    return parseResolvConf(await Deno.readTextFile(path));
  } catch (e) {
    logger.warn("Cannot read resolv.conf; pods with dnsPolicy Default get no DNS config", {
      path,
      err: e,
    });
    return { servers: [], searches: [], options: [] };
  }
}

/**
 * Whether the kernel enforces AppArmor (runc's apparmor.IsEnabled): the module is loaded and
 * says so, and securityfs shows it. Read once at start, as upstream does.
 */
export function hostAppArmorEnabled(): boolean {
  try {
    Deno.statSync("/sys/kernel/security/apparmor");
    return Deno.readTextFileSync("/sys/module/apparmor/parameters/enabled").startsWith("Y");
  } catch {
    // Either file missing: AppArmor is not there to enforce anything.
    return false;
  }
}
