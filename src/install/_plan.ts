/**
 * Install and uninstall as data: a list of steps on paths relative to the node's root. The same
 * plan is applied directly (from source, or any process allowed to write those paths) or printed
 * as a shell script for a compiled binary, which only holds the agent's permissions.
 */
import { posix } from "node:path";
import type { LocalIdentity } from "./_identity.ts";
import { type ConfigOptions, defaultConfigYaml, LAYOUT, MODES } from "./_layout.ts";
import { renderUnit } from "./_unit.ts";

export type Step =
  /** Creates the directory (and parents) and sets its mode. */
  | { op: "dir"; path: string; mode: number }
  /**
   * Writes `content`; with `keep`, an existing file is left alone (user edits survive); with
   * `unlessExists`, nothing is written when that path exists (files that belong together).
   */
  | {
    op: "file";
    path: string;
    mode: number;
    content: string;
    keep?: boolean;
    unlessExists?: string;
  }
  /** Copies the binary `from` (a path on the running machine) to `path`, atomically. */
  | { op: "copy"; from: string; path: string; mode: number }
  /** Removes `path` if present; `recursive` for directories. */
  | { op: "remove"; path: string; recursive?: boolean };

export interface PlanOptions {
  /** Directory the binary goes into; default /usr/local/bin. */
  binDir?: string;
}

export interface InstallPlanOptions extends PlanOptions, ConfigOptions {
  /** The binary to install (the running compiled binary, or --binary). */
  binary: string;
  /**
   * Standalone only: the client CA and administrator certificate to write, unless a CA is
   * there already (a reinstall keeps the identity root holds).
   */
  identity?: LocalIdentity;
}

export interface UninstallPlanOptions extends PlanOptions {
  /** Also remove the config, manifests, pod directories and logs. */
  purge?: boolean;
}

export function binaryPath(opts: PlanOptions): string {
  return posix.join(opts.binDir ?? LAYOUT.binDir, LAYOUT.binName);
}

export function installPlan(opts: InstallPlanOptions): Step[] {
  const bin = binaryPath(opts);
  return [
    { op: "dir", path: posix.dirname(bin), mode: 0o755 },
    { op: "copy", from: opts.binary, path: bin, mode: MODES.binary },
    { op: "dir", path: LAYOUT.configDir, mode: MODES.configDir },
    {
      op: "file",
      path: LAYOUT.configFile,
      mode: MODES.config,
      content: defaultConfigYaml(opts),
      keep: true,
    },
    ...(opts.kubeconfig || !opts.identity ? [] : identitySteps(opts.identity)),
    { op: "dir", path: LAYOUT.manifestDir, mode: MODES.manifestDir },
    { op: "dir", path: LAYOUT.rootDir, mode: MODES.rootDir },
    { op: "dir", path: LAYOUT.podLogsDir, mode: MODES.podLogsDir },
    { op: "dir", path: posix.dirname(LAYOUT.unitFile), mode: 0o755 },
    {
      op: "file",
      path: LAYOUT.unitFile,
      mode: MODES.unit,
      content: renderUnit({
        binary: bin,
        configFile: LAYOUT.configFile,
        kubeconfig: opts.kubeconfig,
      }),
    },
  ];
}

/** The administrator's key and certificate first, the CA last: a CA present means all three are. */
function identitySteps(id: LocalIdentity): Step[] {
  const file = (path: string, content: string): Step => ({
    op: "file",
    path,
    mode: MODES.pkiFile,
    content,
    unlessExists: LAYOUT.clientCAFile,
  });
  return [
    { op: "dir", path: LAYOUT.pkiDir, mode: MODES.pkiDir },
    file(LAYOUT.adminKeyFile, id.keyPem),
    file(LAYOUT.adminCertFile, id.certPem),
    file(LAYOUT.clientCAFile, id.caPem),
  ];
}

/**
 * Reverses installPlan. Without purge, what pods and their owner made stays: the config, the
 * manifests, pod directories and logs (a reinstall picks them up and adopts running pods).
 */
export function uninstallPlan(opts: UninstallPlanOptions): Step[] {
  const steps: Step[] = [
    { op: "remove", path: LAYOUT.unitFile },
    { op: "remove", path: binaryPath(opts) },
    // What a packed binary unpacked (every build it ran): part of the binary, not the node's data.
    { op: "remove", path: LAYOUT.unpackDir, recursive: true },
  ];
  if (opts.purge) {
    steps.push(
      { op: "remove", path: LAYOUT.configDir, recursive: true },
      { op: "remove", path: LAYOUT.manifestDir, recursive: true },
      { op: "remove", path: LAYOUT.rootDir, recursive: true },
      { op: "remove", path: LAYOUT.podLogsDir, recursive: true },
    );
  }
  return steps;
}

/** `path` under `prefix` ("/" = the real root). */
export function underPrefix(prefix: string, path: string): string {
  return posix.join(prefix, path);
}
