/**
 * The systemd cgroup driver (upstream's cgroupCommon with useSystemd, over opencontainers/cgroups
 * systemd): every cgroup is a slice systemd owns, so that systemd does not undo what the kubelet
 * wrote when it next reconfigures its tree. Creating one is StartTransientUnit (an existing unit
 * is fine), then SetUnitProperties with the resources, then the same values written to cgroupfs;
 * removing one is StopUnit, then rmdir of what is left. The cgroupfs side is the driver-less
 * tree this one wraps, addressed by the slices' paths.
 *
 * Loaded only when the systemd driver is in use; it brings in the D-Bus client.
 */
import {
  connectBus,
  type DBusConnection,
  DBusConnectionError,
  isUnitExists,
  prop,
  type SystemdManager,
  systemdManager,
} from "../dbus/mod.ts";
import type { Logger } from "../util/log.ts";
import { CgroupError } from "./_cgroup_fs.ts";
import type { ResourceConfig } from "./_resource_config.ts";
import {
  type PropertySpec,
  resourceProperties,
  sliceProperties,
  systemdCgroupPath,
  systemdVersionNumber,
  unitAndParent,
} from "./_systemd_names.ts";
import type { CgroupTree } from "./_tree.ts";

/** systemd's manager, reached lazily and again after a lost connection. */
export interface SystemdAccess {
  /** Runs `fn` with the manager; a lost connection is re-made and `fn` tried once more. */
  use<T>(fn: (m: SystemdManager) => Promise<T>): Promise<T>;
  /** The manager's version number (252), asked once. */
  version(): Promise<number>;
  close(): void;
}

/** The system bus's systemd, connected on first use (upstream's dbusConnManager). */
export function systemdOverDBus(opts: { path?: string } = {}): SystemdAccess {
  let current: { c: DBusConnection; m: SystemdManager } | undefined;
  let connecting: Promise<{ c: DBusConnection; m: SystemdManager }> | undefined;
  let version: number | undefined;
  const get = async () => {
    if (current) return current;
    connecting ??= connectBus({ path: opts.path }).then((c) => {
      const made = { c, m: systemdManager(c) };
      // A connection that ends (dbus or systemd restarted) is replaced on the next use.
      c.closed.then(() => {
        if (current === made) current = undefined;
      });
      current = made;
      return made;
    }).finally(() => connecting = undefined);
    return await connecting;
  };
  const access: SystemdAccess = {
    async use(fn) {
      for (let attempt = 0;; attempt++) {
        const conn = await get();
        try {
          return await fn(conn.m);
        } catch (err) {
          if (!(err instanceof DBusConnectionError) || attempt > 0) throw err;
          conn.c.close();
          if (current === conn) current = undefined;
        }
      }
    },
    async version() {
      version ??= systemdVersionNumber(await access.use((m) => m.version()));
      return version;
    },
    close() {
      current?.c.close();
      current = undefined;
    },
  };
  return access;
}

export function systemdCgroupTree(
  inner: CgroupTree,
  deps: { systemd: SystemdAccess; logger: Logger },
): CgroupTree {
  const { systemd } = deps;
  const variants = (specs: PropertySpec[]) => specs.map(([n, sig, v]) => prop(n, sig, v));
  const applyResources = async (path: string, config: ResourceConfig) => {
    const { unit } = unitAndParent(path);
    const { props, config: written } = resourceProperties(config, {
      cgroupVersion: inner.version,
      systemdVersion: await systemd.version(),
    });
    if (props.length > 0) {
      try {
        await systemd.use((m) => m.setUnitProperties(unit, true, variants(props)));
      } catch (err) {
        throw new CgroupError(`Cannot set the resources of ${unit} through systemd`, {
          cause: err,
        });
      }
    }
    return written;
  };
  return {
    version: inner.version,
    literal: (name) => systemdCgroupPath(name),
    async create(name, config) {
      const path = systemdCgroupPath(name);
      const { unit, parent } = unitAndParent(path);
      try {
        await systemd.use((m) =>
          m.startTransientUnit(unit, variants(sliceProperties(unit, parent)))
        );
        deps.logger.debug(2, "Started slice", { unit, cgroup: path });
      } catch (err) {
        // The kubelet makes sure a slice exists; one that does is what it wanted.
        if (!isUnitExists(err)) {
          throw new CgroupError(`Cannot start systemd unit ${unit} for cgroup ${name}`, {
            cause: err,
          });
        }
      }
      const written = await applyResources(path, config);
      await inner.create(path, written);
    },
    async update(name, config) {
      const path = systemdCgroupPath(name);
      await inner.update(path, await applyResources(path, config));
    },
    exists: (name) => inner.exists(systemdCgroupPath(name)),
    read: (name) => inner.read(systemdCgroupPath(name)),
    memoryUsage: (name) => inner.memoryUsage(systemdCgroupPath(name)),
    children: (name) => inner.children(systemdCgroupPath(name)),
    async remove(name) {
      const path = systemdCgroupPath(name);
      if (await inner.exists(path)) {
        const { unit } = unitAndParent(path);
        try {
          await systemd.use((m) => m.stopUnit(unit));
        } catch (err) {
          throw new CgroupError(`Cannot stop systemd unit ${unit} of cgroup ${name}`, {
            cause: err,
          });
        }
      }
      // systemd before 240 leaves child cgroups behind; the driver-less removal takes them.
      await inner.remove(path);
    },
    dir: (name, controller) => inner.dir(systemdCgroupPath(name), controller),
    validate: (name) => inner.validate(systemdCgroupPath(name)),
  };
}
