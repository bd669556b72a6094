/**
 * The D-Bus client against the reference message bus (a private dbus-daemon), with test
 * doubles of systemd and logind on it: authentication and Hello, calls and error replies,
 * signals, systemd's transient units with their jobs, and logind's inhibitor descriptor passed
 * through the bus.
 */
import assert from "node:assert/strict";
import { realClock } from "../../src/util/clock.ts";
import {
  connectBus,
  DBusCallError,
  type DBusConnection,
  DBusConnectionError,
  fdUnixTransport,
  inhibitDelay,
  inhibitDelayMaxMs,
  isUnitExists,
  prop,
  type ReceivedMessage,
  systemBusPath,
  SystemdJobError,
  systemdManager,
  Variant,
  watchPrepareForShutdown,
} from "../../src/dbus/mod.ts";
import { startPrivateBus } from "../support/dbus_daemon.ts";
import { libcPipes } from "../support/pipes.ts";

const BUS = {
  destination: "org.freedesktop.DBus",
  path: "/org/freedesktop/DBus",
  interface: "org.freedesktop.DBus",
};

async function own(conn: DBusConnection, name: string): Promise<void> {
  const reply = await conn.call({
    ...BUS,
    member: "RequestName",
    signature: "su",
    body: [name, 4],
  });
  assert.equal(reply.body[0], 1, `cannot own ${name}`); // DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
}

Deno.test("connectBus authenticates, says Hello, and calls the bus", async () => {
  const bus = await startPrivateBus();
  try {
    const conn = await connectBus({ path: bus.path });
    assert.match(conn.uniqueName, /^:1\.\d+$/);
    const id = await conn.call({ ...BUS, member: "GetId" });
    assert.match(String(id.body[0]), /^[0-9a-f]{32}$/);
    const names = await conn.call({ ...BUS, member: "ListNames" });
    assert.ok((names.body[0] as string[]).includes(conn.uniqueName));
    await assert.rejects(
      conn.call({ ...BUS, member: "NoSuchMethod" }),
      (e) =>
        e instanceof DBusCallError && e.errorName === "org.freedesktop.DBus.Error.UnknownMethod",
    );
    conn.close();
    await conn.closed;
  } finally {
    await bus.close();
  }
});

Deno.test("a call still waiting fails when the bus goes away", async () => {
  const bus = await startPrivateBus();
  const conn = await connectBus({ path: bus.path });
  const service = await connectBus({ path: bus.path });
  await own(service, "org.denolet.Silent");
  let arrived: () => void = () => {};
  const reached = new Promise<void>((resolve) => arrived = resolve);
  service.handleCalls(() => {
    arrived();
    return new Promise(() => {}); // never answers
  });
  const call = assert.rejects(
    conn.call({ destination: "org.denolet.Silent", path: "/", member: "Wait" }),
    (e) => e instanceof DBusConnectionError && /ended before the reply/.test(e.message),
  );
  await reached;
  await bus.close();
  await call;
  await conn.closed;
  await service.closed;
});

/** A stand-in for systemd's manager that records calls and ends jobs as told. */
async function fakeSystemd(path: string, results: Record<string, string>) {
  const service = await connectBus({ path });
  await own(service, "org.freedesktop.systemd1");
  const calls: ReceivedMessage[] = [];
  const units = new Set<string>();
  let jobs = 0;
  const jobRemoved = (id: number, job: string, unit: string, result: string) =>
    service.emitSignal({
      path: "/org/freedesktop/systemd1",
      interface: "org.freedesktop.systemd1.Manager",
      member: "JobRemoved",
      signature: "uoss",
      body: [id, job, unit, result],
    });
  service.handleCalls(async (m) => {
    calls.push(m);
    const unit = String(m.body[0]);
    if (m.member === "StartTransientUnit" || m.member === "StopUnit") {
      if (m.member === "StartTransientUnit" && units.has(unit)) {
        throw new DBusCallError(
          "org.freedesktop.systemd1.UnitExists",
          `Unit ${unit} already exists.`,
        );
      }
      if (m.member === "StopUnit" && !units.has(unit)) {
        throw new DBusCallError("org.freedesktop.systemd1.NoSuchUnit", `Unit ${unit} not loaded.`);
      }
      const id = ++jobs;
      const job = `/org/freedesktop/systemd1/job/${id}`;
      const result = results[unit] ?? "done";
      if (m.member === "StartTransientUnit" && result === "done") units.add(unit);
      if (m.member === "StopUnit") units.delete(unit);
      // Either order happens on a real bus: systemd may finish the job before its reply is read.
      if (unit.startsWith("early")) await jobRemoved(id, job, unit, result);
      else {
        realClock.sleep(20).then(() => jobRemoved(id, job, unit, result)).catch((err) => {
          console.error("fake systemd: cannot send JobRemoved", err);
        });
      }
      return { signature: "o", body: [job] };
    }
    if (m.member === "SetUnitProperties" || m.member === "ResetFailedUnit") return {};
    if (m.member === "Get") return { signature: "v", body: [new Variant("s", "252.39-1~deb12u2")] };
    return undefined;
  });
  return { service, calls, units };
}

Deno.test("systemdManager starts and stops transient units and waits for their jobs", async () => {
  const bus = await startPrivateBus();
  try {
    const fake = await fakeSystemd(bus.path, { "fails.slice": "failed" });
    const conn = await connectBus({ path: bus.path });
    const systemd = systemdManager(conn);
    const props = [
      prop("Description", "s", "libcontainer container kubepods.slice"),
      prop("Wants", "as", ["-.slice"]),
    ];
    await systemd.startTransientUnit("kubepods.slice", props);
    await systemd.startTransientUnit("early.slice", props);
    assert.deepEqual([...fake.units].sort(), ["early.slice", "kubepods.slice"]);
    const start = fake.calls.find((c) => c.member === "StartTransientUnit")!;
    assert.equal(start.signature, "ssa(sv)a(sa(sv))");
    assert.deepEqual(start.body, ["kubepods.slice", "replace", props, []]);

    await assert.rejects(
      systemd.startTransientUnit("kubepods.slice", props),
      (e) => isUnitExists(e),
    );
    await assert.rejects(systemd.startTransientUnit("fails.slice", props), SystemdJobError);
    // A failed start is reset, as upstream does, so the next try starts afresh.
    assert.ok(
      fake.calls.some((c) => c.member === "ResetFailedUnit" && c.body[0] === "fails.slice"),
    );

    await systemd.setUnitProperties("kubepods.slice", true, [prop("MemoryMax", "t", 1n << 30n)]);
    const set = fake.calls.find((c) => c.member === "SetUnitProperties")!;
    assert.deepEqual(set.body, ["kubepods.slice", true, [[
      "MemoryMax",
      new Variant("t", 1n << 30n),
    ]]]);

    await systemd.stopUnit("kubepods.slice");
    await systemd.stopUnit("never-started.slice"); // NoSuchUnit is no error
    assert.deepEqual([...fake.units], ["early.slice"]);
    assert.equal(await systemd.version(), "252.39-1~deb12u2");
    conn.close();
    fake.service.close();
  } finally {
    await bus.close();
  }
});

Deno.test("inhibitDelay holds logind's lock descriptor until it is released", async () => {
  const bus = await startPrivateBus();
  const libc = libcPipes();
  try {
    // logind's side: a FIFO whose write end goes to the caller; the inhibitor lives while
    // any write end is open. Here a pipe, through a connection that can send descriptors.
    const logind = await connectBus({ transport: await fdUnixTransport(bus.path) });
    await own(logind, "org.freedesktop.login1");
    let readEnd = -1;
    const asked: unknown[][] = [];
    logind.handleCalls((m) => {
      if (m.member === "Get") return { signature: "v", body: [new Variant("t", 30_000_000n)] };
      if (m.member !== "Inhibit") return undefined;
      asked.push(m.body);
      const [r, w] = libc.pipe();
      readEnd = r;
      // logind closes its copy once the reply is sent.
      return { signature: "h", body: [0], fds: [w], onSent: () => libc.close(w) };
    });

    const conn = await connectBus({ path: bus.path });
    assert.equal(await inhibitDelayMaxMs(conn), 30_000);
    const lock = await inhibitDelay(
      { what: "shutdown", who: "denolet", why: "Kubelet needs time to handle node shutdown" },
      { path: bus.path },
    );
    assert.deepEqual(asked, [[
      "shutdown",
      "denolet",
      "Kubelet needs time to handle node shutdown",
      "delay",
    ]]);
    assert.ok(lock.fd > 2);
    // The bus closed its copy once delivered; logind's went with onSent.
    assert.equal(libc.hungUp(readEnd), false, "the lock is held while its descriptor is open");
    lock.release();
    lock.release();
    assert.equal(libc.hungUp(readEnd), true, "released: logind sees the last writer gone");
    libc.close(readEnd);
    conn.close();
    logind.close();
    await logind.closed;
  } finally {
    libc.unload();
    await bus.close();
  }
});

Deno.test("watchPrepareForShutdown reports logind's signal and nothing else", async () => {
  const bus = await startPrivateBus();
  try {
    const logind = await connectBus({ path: bus.path });
    await own(logind, "org.freedesktop.login1");
    const conn = await connectBus({ path: bus.path });
    const seen: boolean[] = [];
    let wake: () => void = () => {};
    const off = await watchPrepareForShutdown(conn, (active) => {
      seen.push(active);
      wake();
    });
    const emit = (member: string, active: boolean) =>
      logind.emitSignal({
        path: "/org/freedesktop/login1",
        interface: "org.freedesktop.login1.Manager",
        member,
        signature: "b",
        body: [active],
      });
    const two = new Promise<void>((resolve) => wake = () => seen.length === 2 && resolve());
    await emit("PrepareForSleep", true);
    await emit("PrepareForShutdown", true);
    await emit("PrepareForShutdown", false);
    await two;
    assert.deepEqual(seen, [true, false]);
    off();
    conn.close();
    logind.close();
  } finally {
    await bus.close();
  }
});

Deno.test("systemBusPath honours DBUS_SYSTEM_BUS_ADDRESS's unix path, as libdbus does", () => {
  const before = Deno.env.get("DBUS_SYSTEM_BUS_ADDRESS");
  try {
    Deno.env.delete("DBUS_SYSTEM_BUS_ADDRESS");
    assert.equal(systemBusPath(), "/run/dbus/system_bus_socket");
    Deno.env.set("DBUS_SYSTEM_BUS_ADDRESS", "tcp:host=x,port=1;unix:guid=1,path=/tmp/a%20b/bus");
    assert.equal(systemBusPath(), "/tmp/a b/bus");
  } finally {
    if (before === undefined) Deno.env.delete("DBUS_SYSTEM_BUS_ADDRESS");
    else Deno.env.set("DBUS_SYSTEM_BUS_ADDRESS", before);
  }
});
