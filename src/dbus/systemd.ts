/**
 * systemd's manager (org.freedesktop.systemd1) as runc's and the kubelet's cgroup code uses it
 * (opencontainers/cgroups systemd/common.go): transient units started and stopped with their
 * jobs awaited through JobRemoved, unit properties set at runtime, failed units reset.
 */
import { DBusCallError } from "./_errors.ts";
import { type DBusValue, Variant } from "./_marshal.ts";
import type { DBusConnection, ReceivedMessage } from "./connection.ts";
import { DenoletError } from "../util/errors.ts";

const DEST = "org.freedesktop.systemd1";
const PATH = "/org/freedesktop/systemd1";
const MANAGER = "org.freedesktop.systemd1.Manager";
/** How long a job may take (upstream's startUnit and stopUnit wait 30 s). */
export const JOB_TIMEOUT_MS = 30_000;

/** A unit property as StartTransientUnit and SetUnitProperties take them, `(sv)`. */
export type UnitProperty = [name: string, value: Variant];

/** A property of D-Bus type `sig` ("t", "b", "s", "as"). */
export function prop(name: string, sig: string, value: DBusValue): UnitProperty {
  return [name, new Variant(sig, value)];
}

/** A systemd job ended with another result than "done", or not in time. */
export class SystemdJobError extends DenoletError {}

/** What the cgroup driver and the shutdown manager ask of systemd. */
export interface SystemdManager {
  /**
   * StartTransientUnit(name, "replace", props) and waits for its job. Throws DBusCallError
   * (`org.freedesktop.systemd1.UnitExists` when the unit is already there) or SystemdJobError.
   */
  startTransientUnit(
    name: string,
    props: UnitProperty[],
    opts?: { signal?: AbortSignal },
  ): Promise<void>;
  /** StopUnit(name, "replace") and waits for its job; a unit that is not loaded is no error. */
  stopUnit(name: string, opts?: { signal?: AbortSignal }): Promise<void>;
  /** SetUnitProperties(name, runtime, props). */
  setUnitProperties(
    name: string,
    runtime: boolean,
    props: UnitProperty[],
    opts?: { signal?: AbortSignal },
  ): Promise<void>;
  /** ResetFailedUnit(name): lets systemd forget a failed unit. */
  resetFailedUnit(name: string, opts?: { signal?: AbortSignal }): Promise<void>;
  /** KillUnit(name, whom, signal), e.g. SIGHUP to make a service reload. */
  killUnit(
    name: string,
    whom: string,
    signal: number,
    opts?: { signal?: AbortSignal },
  ): Promise<void>;
  /** The manager's Version property ("252.39-1~deb12u2"). */
  version(opts?: { signal?: AbortSignal }): Promise<string>;
}

export function systemdManager(conn: DBusConnection): SystemdManager {
  /** Job path → result, for jobs whose JobRemoved came before we looked for it. */
  const finished = new Map<string, string>();
  const waiters = new Map<string, (result: string) => void>();
  let subscribed: Promise<void> | undefined;
  conn.onSignal((m: ReceivedMessage) => {
    if (m.interface !== MANAGER || m.member !== "JobRemoved") return;
    const job = String(m.body[1]);
    const result = String(m.body[3]);
    const w = waiters.get(job);
    if (w) w(result);
    else {
      finished.set(job, result);
      // Removed jobs of other clients are of no interest; keep the map small.
      if (finished.size > 256) finished.delete(finished.keys().next().value!);
    }
  });
  const subscribe = (signal?: AbortSignal) => {
    subscribed ??= conn.addMatch(
      `type='signal',sender='${DEST}',path='${PATH}',interface='${MANAGER}',member='JobRemoved'`,
      { signal },
    ).catch((err) => {
      subscribed = undefined;
      throw err;
    });
    return subscribed;
  };
  const call = (member: string, signature: string, body: DBusValue[], signal?: AbortSignal) =>
    conn.call({ destination: DEST, path: PATH, interface: MANAGER, member, signature, body }, {
      signal,
    });

  /** Waits for `job`'s JobRemoved; resolves with its result. */
  const jobResult = async (job: string, unit: string, signal?: AbortSignal): Promise<string> => {
    const early = finished.get(job);
    if (early !== undefined) {
      finished.delete(job);
      return early;
    }
    const deadline = AbortSignal.timeout(JOB_TIMEOUT_MS);
    const all = signal ? AbortSignal.any([signal, deadline]) : deadline;
    try {
      return await new Promise<string>((resolve, reject) => {
        const onAbort = () => reject(all.reason);
        if (all.aborted) return onAbort();
        all.addEventListener("abort", onAbort, { once: true });
        waiters.set(job, (r) => {
          all.removeEventListener("abort", onAbort);
          resolve(r);
        });
      });
    } catch (err) {
      if (deadline.aborted) {
        throw new SystemdJobError(`Timeout waiting for systemd's job on ${unit}`, { cause: err });
      }
      throw err;
    } finally {
      waiters.delete(job);
    }
  };

  /** As upstream: a failed unit is forgotten; one that is not failed or gone refuses, fine. */
  const resetIfFailed = async (name: string, signal?: AbortSignal) => {
    try {
      await call("ResetFailedUnit", "s", [name], signal);
    } catch (err) {
      if (!(err instanceof DBusCallError)) throw err;
    }
  };

  const manager: SystemdManager = {
    async startTransientUnit(name, props, opts = {}) {
      await subscribe(opts.signal);
      const reply = await call("StartTransientUnit", "ssa(sv)a(sa(sv))", [
        name,
        "replace",
        props,
        [],
      ], opts.signal);
      let result: string;
      try {
        result = await jobResult(String(reply.body[0]), name, opts.signal);
      } catch (err) {
        if (err instanceof SystemdJobError) await resetIfFailed(name, opts.signal);
        throw err;
      }
      if (result !== "done") {
        await resetIfFailed(name, opts.signal);
        throw new SystemdJobError(`Error creating systemd unit ${name}: got ${result}`);
      }
    },
    async stopUnit(name, opts = {}) {
      await subscribe(opts.signal);
      try {
        const reply = await call("StopUnit", "ss", [name, "replace"], opts.signal);
        await jobResult(String(reply.body[0]), name, opts.signal);
      } catch (err) {
        if (!(err instanceof DBusCallError)) throw err;
        // NoSuchUnit: nothing to stop, as upstream's stopUnit tolerates.
      }
      await resetIfFailed(name, opts.signal);
    },
    async setUnitProperties(name, runtime, props, opts = {}) {
      await call("SetUnitProperties", "sba(sv)", [name, runtime, props], opts.signal);
    },
    async resetFailedUnit(name, opts = {}) {
      await call("ResetFailedUnit", "s", [name], opts.signal);
    },
    async killUnit(name, whom, sig, opts = {}) {
      await call("KillUnit", "ssi", [name, whom, sig], opts.signal);
    },
    async version(opts = {}) {
      const reply = await conn.call({
        destination: DEST,
        path: PATH,
        interface: "org.freedesktop.DBus.Properties",
        member: "Get",
        signature: "ss",
        body: [MANAGER, "Version"],
      }, opts);
      const v = reply.body[0];
      return v instanceof Variant ? String(v.value) : String(v);
    },
  };
  return manager;
}

/** True for StartTransientUnit's "unit already exists" error. */
export function isUnitExists(err: unknown): boolean {
  return err instanceof DBusCallError && err.errorName === "org.freedesktop.systemd1.UnitExists";
}
