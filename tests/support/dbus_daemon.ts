/**
 * A private message bus (the reference dbus-daemon) for the D-Bus client's tests: a socket of
 * its own in a temp directory, EXTERNAL authentication, and a policy letting any connection own
 * any name, so a test can stand in for systemd or logind on it.
 */
import { realClock } from "../../src/util/clock.ts";
import { DevSetupError, exists } from "./_exec.ts";
import { ensurePackages } from "./_packages.ts";

export interface PrivateBus {
  /** The bus socket's path. */
  path: string;
  /** Stops the daemon and removes its directory. */
  close(): Promise<void>;
}

const CONFIG = (socket: string) =>
  `<!DOCTYPE busconfig PUBLIC
 "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>custom</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
`;

export async function startPrivateBus(): Promise<PrivateBus> {
  await ensurePackages((line) => console.error(line));
  const dir = await Deno.makeTempDir({ prefix: "denolet-dbus-" });
  const path = `${dir}/bus`;
  await Deno.writeTextFile(`${dir}/bus.conf`, CONFIG(path));
  const child = new Deno.Command("dbus-daemon", {
    args: [`--config-file=${dir}/bus.conf`, "--nofork", "--nopidfile"],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let log = "";
  const drained = (async () => {
    for (;;) {
      const { value, done } = await stderr.read();
      if (done) return;
      log += value;
    }
  })();
  const close = async () => {
    try {
      child.kill("SIGTERM");
    } catch (err) {
      if (!(err instanceof TypeError)) throw err; // already exited
    }
    await child.status;
    await drained;
    await Deno.remove(dir, { recursive: true });
  };
  for (let i = 0; i < 100 && !(await exists(path)); i++) await realClock.sleep(50);
  if (!(await exists(path))) {
    await close();
    throw new DevSetupError(`dbus-daemon did not create ${path}: ${log.trim()}`);
  }
  return { path, close };
}
