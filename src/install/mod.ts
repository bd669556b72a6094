/**
 * `denolet install` / `denolet uninstall`: place the binary, the systemd unit, the default
 * configuration and the directories, or remove them.
 *
 * A compiled denolet holds only the agent's permissions (it cannot write /usr/local/bin or
 * /etc/systemd), so it installs by printing a script: `./denolet install --script | sudo sh`.
 * Run from source with write access (`deno run -A main.ts install --binary dist/denolet-...`),
 * it applies the same plan itself. Both paths share one plan (`_plan.ts`).
 */
import { realClock } from "../util/clock.ts";
import { applyPlan, InstallError, renderScript } from "./_apply.ts";
import { installPlan, type Step, uninstallPlan } from "./_plan.ts";

export { applyPlan, InstallError, renderScript } from "./_apply.ts";
export {
  type ConfigOptions,
  DEFAULT_CLIENT_CA_FILE,
  defaultConfigYaml,
  LAYOUT,
  MODES,
} from "./_layout.ts";
export {
  binaryPath,
  installPlan,
  type InstallPlanOptions,
  type Step,
  uninstallPlan,
  type UninstallPlanOptions,
} from "./_plan.ts";
export { renderUnit, type UnitOptions } from "./_unit.ts";

export interface InstallCommandDeps {
  /** True in a compiled binary: the running executable is what gets installed. */
  compiled: boolean;
  /** Path of the running executable (Deno.execPath). */
  execPath: () => string;
  out: (line: string) => void;
  err: (line: string) => void;
}

const USAGE = [
  "Usage:",
  "  denolet install   [--prefix DIR] [--bin-dir DIR] [--binary FILE] [--kubeconfig FILE]",
  "                    [--client-ca-file FILE] [--script]",
  "  denolet uninstall [--prefix DIR] [--bin-dir DIR] [--purge] [--script]",
  "",
  "  --prefix DIR   install under DIR instead of / (default /)",
  "  --bin-dir DIR  where the binary goes (default /usr/local/bin)",
  "  --binary FILE  the compiled denolet to install (default: this executable when compiled)",
  "  --kubeconfig FILE      install: join the cluster with this kubeconfig (path on the node);",
  "                         the node API then authenticates and authorizes through the API",
  "                         server. Without it the node is standalone and its API loopback-only",
  "  --client-ca-file FILE  install, with --kubeconfig: CA of the API server's client",
  "                         certificate (default /etc/kubernetes/pki/ca.crt)",
  "  --purge        uninstall: also remove the config, manifests, pod directories and logs",
  "  --script       print a shell script doing the same instead (pipe it to `sudo sh`)",
].join("\n");

interface Args {
  prefix: string;
  binDir?: string;
  binary?: string;
  kubeconfig?: string;
  clientCAFile?: string;
  purge: boolean;
  script: boolean;
  help: boolean;
}

/** Runs `install` or `uninstall` with `argv` (after the subcommand). Returns the exit code. */
export async function runInstallCommand(
  command: "install" | "uninstall",
  argv: readonly string[],
  deps: InstallCommandDeps,
): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(command, argv);
  } catch (err) {
    deps.err(`denolet ${command}: ${(err as Error).message}\n${USAGE}`);
    return 1;
  }
  if (args.help) {
    deps.out(USAGE);
    return 0;
  }
  let steps: Step[];
  if (command === "install") {
    const binary = args.binary ?? (deps.compiled ? deps.execPath() : undefined);
    if (!binary) {
      deps.err(
        "denolet install: running from source, there is no binary to install. Build one with " +
          "`deno task compile` and pass it: --binary dist/denolet-<target>",
      );
      return 1;
    }
    // Standalone: the node API's only caller is root, with a certificate made here. Loaded
    // only for this: the agent never needs the certificate writer at start.
    const identity = args.kubeconfig
      ? undefined
      : await (await import("./_identity.ts")).createLocalIdentity(realClock.now());
    steps = installPlan({
      binary,
      binDir: args.binDir,
      kubeconfig: args.kubeconfig,
      clientCAFile: args.clientCAFile,
      identity,
    });
  } else {
    steps = uninstallPlan({ binDir: args.binDir, purge: args.purge });
  }
  if (args.script) {
    deps.out(renderScript(steps, args.prefix).trimEnd());
    return 0;
  }
  const denied = deniedPaths(steps, args.prefix);
  if (denied.length > 0) {
    deps.err(
      `denolet ${command}: this process may not touch ${denied.join(", ")}. A compiled denolet ` +
        `holds only the agent's permissions; run: sudo ${deps.execPath()} ${command} ` +
        `${argv.join(" ")} --script | sudo sh`.replace(/ +/g, " "),
    );
    return 1;
  }
  try {
    for (const line of await applyPlan(steps, args.prefix)) deps.out(line);
  } catch (err) {
    if (!(err instanceof InstallError)) throw err;
    deps.err(`denolet ${command}: ${err.message}`);
    return 1;
  }
  if (args.prefix === "/") {
    deps.out(
      command === "install"
        ? "Next: systemctl daemon-reload && systemctl enable --now denolet"
        : "Next: systemctl daemon-reload (stop the service first if it still runs)",
    );
  }
  return 0;
}

function parseArgs(command: string, argv: readonly string[]): Args {
  const args: Args = { prefix: "/", purge: false, script: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new Error(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case "--prefix":
        args.prefix = value();
        break;
      case "--bin-dir":
        args.binDir = value();
        break;
      case "--binary":
        if (command !== "install") throw new Error("--binary is for install");
        args.binary = value();
        break;
      case "--kubeconfig":
      case "--client-ca-file":
        if (command !== "install") throw new Error(`${name} is for install`);
        if (name === "--kubeconfig") args.kubeconfig = value();
        else args.clientCAFile = value();
        break;
      case "--purge":
        if (command !== "uninstall") throw new Error("--purge is for uninstall");
        args.purge = true;
        break;
      case "--script":
        args.script = true;
        break;
      case "-h":
      case "--help":
        args.help = true;
        break;
      default:
        throw new Error(`unknown argument ${JSON.stringify(argv[i])}`);
    }
  }
  if (args.clientCAFile !== undefined && args.kubeconfig === undefined) {
    throw new Error("--client-ca-file goes with --kubeconfig");
  }
  const paths = [
    ["--prefix", args.prefix],
    ["--bin-dir", args.binDir],
    ["--kubeconfig", args.kubeconfig],
    ["--client-ca-file", args.clientCAFile],
  ] as const;
  for (const [flag, v] of paths) {
    if (v !== undefined && !v.startsWith("/")) throw new Error(`${flag} must be absolute`);
  }
  return args;
}

/** Paths of the plan this process lacks write (or, for the binary, read) permission for. */
function deniedPaths(steps: readonly Step[], prefix: string): string[] {
  const denied: string[] = [];
  const granted = (desc: Deno.PermissionDescriptor) =>
    Deno.permissions.querySync(desc).state === "granted";
  for (const step of steps) {
    const path = prefix === "/" ? step.path : `${prefix}${step.path}`;
    if (!granted({ name: "write", path })) denied.push(path);
    if (step.op === "copy" && !granted({ name: "read", path: step.from })) denied.push(step.from);
  }
  return denied;
}
