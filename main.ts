/**
 * denolet: a Kubernetes node agent. Parses the kubelet-compatible command line, then runs the
 * agent until SIGTERM/SIGINT. Bad flags or configuration exit with status 1 before anything starts.
 */
import { loadConfig } from "./src/config/mod.ts";
import { runAgent } from "./src/agent/mod.ts";
import { createLogger, errorMessage } from "./src/util/log.ts";

async function main(argv: string[]): Promise<number> {
  let loaded;
  try {
    loaded = await loadConfig(argv);
  } catch (e) {
    console.error(`denolet: ${errorMessage(e)}`);
    console.error("Run 'denolet --help' for the flags.");
    return 1;
  }
  if (loaded.kind === "help" || loaded.kind === "version") {
    console.log(loaded.text);
    return 0;
  }
  const { config } = loaded;
  const logger = createLogger({ verbosity: config.verbosity });
  for (const w of loaded.warnings ?? []) logger.warn(w);

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
    await runAgent(config, { signal: ac.signal, logger });
    return 0;
  } catch (e) {
    logger.error("denolet failed", { err: e });
    return 1;
  } finally {
    for (const [sig, fn] of handlers) Deno.removeSignalListener(sig, fn);
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
