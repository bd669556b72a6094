/**
 * CSI plugin registration as upstream's plugin manager does it (pkg/kubelet/pluginmanager and
 * the CSI handler): a plugin's registrar puts a socket in `<root-dir>/plugins_registry`; the
 * node asks it for its info (pluginregistration.v1 GetInfo), validates it (type CSIPlugin, a
 * 1.x version), asks the driver for NodeGetInfo, records the driver in the CSINode object and
 * the Node (`csi.volume.kubernetes.io/nodeid`, topology labels), then tells the registrar
 * (NotifyRegistrationStatus). A socket that goes away deregisters its driver. The directory is
 * looked at every second, as upstream's reconciler runs.
 */
import type { ApiClient } from "../apiclient/types.ts";
import type { Clock } from "../util/clock.ts";
import { DenoletError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { createDriverClient, type CsiDriverClient } from "./_driver.ts";
import { callPlugin, openSocket } from "./_grpc.ts";
import { removeDriver, upsertDriver } from "./_node_info.ts";
import { Registration } from "./_registration_codec.ts";

const SCAN_MS = 1_000;
const REGISTRATION_TIMEOUT_MS = 10_000;

export interface PluginRegistryDeps {
  /** `<root-dir>/plugins_registry`. */
  dir: string;
  nodeName: string;
  client: ApiClient;
  clock: Clock;
  logger: Logger;
  /** A driver registered or went away: pods waiting for it may go on. */
  onChange?: () => void;
}

interface Registered {
  socket: string;
  /** The socket file's identity: a new socket at the same path registers anew. */
  stamp: string;
  driver?: CsiDriverClient;
}

export class PluginRegistry {
  readonly #deps: PluginRegistryDeps;
  readonly #sockets = new Map<string, Registered>();
  readonly #drivers = new Map<string, CsiDriverClient>();
  readonly #log: Logger;

  constructor(deps: PluginRegistryDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ component: "csi-registration" });
  }

  /** The registered driver `name`, or undefined. */
  driver(name: string): CsiDriverClient | undefined {
    return this.#drivers.get(name);
  }

  /** Names of the registered drivers. */
  drivers(): string[] {
    return [...this.#drivers.keys()];
  }

  /** Scans the directory every second until the signal aborts. Never rejects. */
  async run(opts: { signal: AbortSignal }): Promise<void> {
    const { signal } = opts;
    await Deno.mkdir(this.#deps.dir, { recursive: true, mode: 0o750 }).catch((err) =>
      this.#log.warn("Cannot create the plugin registration directory", { err })
    );
    while (!signal.aborted) {
      await this.scan({ signal }).catch((err) => {
        if (!signal.aborted) this.#log.warn("Plugin registration scan failed", { err });
      });
      await this.#deps.clock.sleep(SCAN_MS, { signal }).catch(() => undefined);
    }
    for (const d of this.#drivers.values()) d.close();
  }

  /** One pass: new sockets registered, gone ones deregistered. */
  async scan(opts: { signal?: AbortSignal } = {}): Promise<void> {
    const seen = new Map<string, string>();
    for await (const e of Deno.readDir(this.#deps.dir)) {
      if (e.name.startsWith(".")) continue;
      const path = `${this.#deps.dir}/${e.name}`;
      const st = await Deno.stat(path).catch(() => undefined);
      if (!st?.isSocket) continue;
      seen.set(path, `${st.ino}/${st.mtime?.getTime()}`);
    }
    for (const [path, reg] of this.#sockets) {
      if (seen.get(path) === reg.stamp) continue;
      this.#sockets.delete(path);
      if (reg.driver) await this.#deregister(reg.driver, opts);
    }
    for (const [path, stamp] of seen) {
      if (this.#sockets.has(path)) continue;
      const reg: Registered = { socket: path, stamp };
      this.#sockets.set(path, reg);
      reg.driver = await this.#register(path, opts);
    }
  }

  async #register(
    socket: string,
    opts: { signal?: AbortSignal },
  ): Promise<CsiDriverClient | undefined> {
    const channel = openSocket(socket);
    const limit = { timeoutMs: REGISTRATION_TIMEOUT_MS, clock: this.#deps.clock };
    const notify = (error: string) =>
      callPlugin(channel, Registration.NotifyRegistrationStatus, {
        pluginRegistered: error === "",
        error,
      }, { ...limit, signal: opts.signal }).catch((err) =>
        this.#log.warn("Cannot notify the plugin of its registration status", { socket, err })
      );
    try {
      let info: { type?: string; name?: string; endpoint?: string; supportedVersions?: string[] };
      try {
        info = await callPlugin(channel, Registration.GetInfo, {}, {
          ...limit,
          signal: opts.signal,
        });
      } catch (err) {
        this.#log.warn("Cannot register plugin", {
          socket,
          err: `failed to get plugin info using RPC GetInfo at socket ${socket}, err: ${
            errorMessage(err)
          }`,
        });
        return undefined;
      }
      const name = info.name ?? "";
      const problem = validate(info);
      if (problem) {
        this.#log.warn("Cannot register plugin", { socket, plugin: name, err: problem });
        await notify(problem);
        return undefined;
      }
      const endpoint = info.endpoint || socket;
      const driver = createDriverClient(name, endpoint, { clock: this.#deps.clock });
      try {
        const node = await driver.nodeGetInfo(opts);
        await upsertDriver(this.#deps.client, {
          nodeName: this.#deps.nodeName,
          driver: name,
          node,
          signal: opts.signal,
        });
      } catch (err) {
        driver.close();
        const why = `RegisterPlugin error -- plugin registration failed with err: ${
          errorMessage(err)
        }`;
        this.#log.warn("Cannot register CSI driver", { driver: name, endpoint, err: why });
        await notify(why);
        // Forget the socket so the next scan tries again, as upstream's reconciler retries.
        this.#sockets.delete(socket);
        return undefined;
      }
      this.#drivers.get(name)?.close();
      this.#drivers.set(name, driver);
      this.#log.info("Registered CSI driver", { driver: name, endpoint });
      await notify("");
      this.#deps.onChange?.();
      return driver;
    } finally {
      channel.close();
    }
  }

  async #deregister(driver: CsiDriverClient, opts: { signal?: AbortSignal }): Promise<void> {
    if (this.#drivers.get(driver.name) !== driver) return;
    this.#drivers.delete(driver.name);
    driver.close();
    this.#log.info("Deregistered CSI driver", { driver: driver.name });
    try {
      await removeDriver(this.#deps.client, {
        nodeName: this.#deps.nodeName,
        driver: driver.name,
        signal: opts.signal,
      });
    } catch (err) {
      this.#log.warn("Cannot remove the driver from the CSINode", { driver: driver.name, err });
    }
    this.#deps.onChange?.();
  }
}

/** Upstream's CSI handler ValidatePlugin: a CSI plugin with a 1.x version. */
function validate(
  info: { type?: string; name?: string; supportedVersions?: string[] },
): string | undefined {
  if (info.type !== "CSIPlugin") {
    return `no handler registered for plugin type: ${info.type ?? ""}`;
  }
  if (!info.name) return "plugin name is empty";
  const versions = info.supportedVersions ?? [];
  if (!versions.some((v) => /^v?1(\.|$)/.test(v))) {
    return `none of the versions specified [${versions.join(" ")}] are supported`;
  }
  return undefined;
}

/** A pod's CSI volume names a driver that is not registered (yet). */
export class DriverNotRegisteredError extends DenoletError {
  constructor(readonly driver: string) {
    super(`driver name ${driver} not found in the list of registered CSI drivers`);
  }
}
