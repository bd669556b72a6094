/**
 * denolet: a Kubernetes node agent. Parses the kubelet-compatible command line, then runs the
 * agent until SIGTERM/SIGINT. Bad flags or configuration exit with status 1 before anything starts.
 *
 * Subcommands (the first argument): `install` / `uninstall` (see src/install) and
 * `permissions <agent flags>`, which prints the Deno permission flags those agent flags need.
 */
import { resolve } from "node:path";
import { loadConfig } from "./src/config/mod.ts";
import { BUILD_INFO, executablePath } from "./src/build_info/mod.ts";
import { runInstallCommand } from "./src/install/mod.ts";
import {
  permissionFlags,
  type PermissionOptions,
  startupPermissionProblem,
} from "./src/permissions/mod.ts";
import { createLogger, errorMessage, type Logger } from "./src/util/log.ts";
import { processUptimeMs } from "./src/util/clock.ts";

/**
 * Set by the commands that only print (help, version, permissions): their process ends by itself
 * instead of through Deno.exit, which would skip writing V8's code cache for the program. So the
 * package's first-start `--version` run leaves the cache the agent then starts from: ~3 MB less
 * resident for its whole life than when its own first run has to make it (issue 14).
 */
let endsByItself = false;

async function main(argv: string[]): Promise<number> {
  const sub = argv[0];
  if (sub === "install" || sub === "uninstall") {
    return await runInstallCommand(sub, argv.slice(1), {
      compiled: BUILD_INFO.compiled,
      execPath: () => executablePath(),
      out: (line) => console.log(line),
      err: (line) => console.error(line),
    });
  }
  const printPermissions = sub === "permissions";
  let loaded;
  try {
    loaded = await loadConfig(printPermissions ? argv.slice(1) : argv);
  } catch (e) {
    console.error(`denolet: ${errorMessage(e)}`);
    console.error("Run 'denolet --help' for the flags.");
    return 1;
  }
  if (loaded.kind === "help" || loaded.kind === "version") {
    console.log(loaded.text);
    endsByItself = true;
    return 0;
  }
  const { config } = loaded;
  const permissionOptions: PermissionOptions = {
    configFile: loaded.configFile ? resolve(loaded.configFile) : undefined,
    ...BUILD_INFO.permissionOptions,
  };
  if (printPermissions) {
    try {
      console.log(permissionFlags(config, permissionOptions).join(" "));
      endsByItself = true;
      return 0;
    } catch (e) {
      console.error(`denolet: ${errorMessage(e)}`);
      return 1;
    }
  }
  const problem = startupPermissionProblem(config, permissionOptions);
  if (problem) {
    console.error(`denolet: ${problem}`);
    return 1;
  }
  const logger = createLogger({ verbosity: config.verbosity });
  guardUnhandledRejections(logger);
  for (const w of loaded.warnings ?? []) logger.warn(w);
  // The start's phases at debug level, each with the time since the process began (issue 31).
  logger.debug(1, "Start phase: configuration loaded", { sinceStartMs: processUptimeMs() });

  const ac = new AbortController();
  const onSignal = (name: string) => () => {
    logger.info("Shutting down", { signal: name });
    ac.abort(new Error(`received ${name}`));
  };
  const handlers: [Deno.Signal, () => void][] = [
    ["SIGTERM", onSignal("SIGTERM")],
    ["SIGINT", onSignal("SIGINT")],
  ];
  for (const [sig, fn] of handlers) Deno.addSignalListener(sig, fn);
  try {
    // Loaded after the permission check: grpc-js reads its environment variables at import, so
    // a binary lacking them would otherwise die with a stack trace instead of the message above.
    const { runAgent } = await import("./src/agent/mod.ts");
    logger.debug(1, "Start phase: agent modules loaded", { sinceStartMs: processUptimeMs() });
    await runAgent(config, { signal: ac.signal, logger });
    return 0;
  } catch (e) {
    logger.error("denolet failed", { err: e });
    return 1;
  } finally {
    for (const [sig, fn] of handlers) Deno.removeSignalListener(sig, fn);
  }
}

/**
 * Last resort: Deno ends the process on an unhandled promise rejection, and under systemd that
 * is a crash loop that stops every pod's probes and restarts. A bug that leaves one is logged
 * instead. Returns the function that removes the guard.
 */
export function guardUnhandledRejections(logger: Logger): () => void {
  const onRejection = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    logger.error("Unhandled promise rejection; carrying on", { err: e.reason });
  };
  globalThis.addEventListener("unhandledrejection", onRejection);
  return () => globalThis.removeEventListener("unhandledrejection", onRejection);
}

if (import.meta.main) {
  const code = await main(Deno.args);
  // The agent exits at once: nothing left open after its shutdown may keep the process alive.
  if (endsByItself) Deno.exitCode = code;
  else Deno.exit(code);
}
