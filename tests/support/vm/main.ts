/**
 * The test VM by hand, for development (`deno task test:vm` runs the suites):
 *
 *   deno run -A tests/support/vm/main.ts build [--arch arm64]   # build the image if needed
 *   deno run -A tests/support/vm/main.ts up [--arch arm64]      # boot it, print the ssh command,
 *                                                               # power it off on Ctrl-C
 */
import { parseArgs } from "node:util";
import { ensureImage, hostArch } from "./_image.ts";
import { vmDir, withVm } from "./machine.ts";
import type { VmArch } from "./_recipe.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { arch: { type: "string" } },
  allowPositionals: true,
});
const arch = (values.arch ?? hostArch()) as VmArch;
if (arch !== "amd64" && arch !== "arm64") throw new Error(`--arch must be amd64 or arm64`);
const log = (line: string) => console.error(line);

switch (positionals[0] ?? "build") {
  case "build": {
    const image = await ensureImage(vmDir(arch), arch, { log });
    console.log(image.dir);
    break;
  }
  case "up": {
    const stop = new AbortController();
    Deno.addSignalListener("SIGINT", () => stop.abort());
    await withVm({ arch, log }, async (vm) => {
      console.log(`ssh: ${vm.sshCommand()}`);
      await new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve()));
    });
    break;
  }
  default:
    console.error("usage: main.ts build|up [--arch amd64|arm64]");
    Deno.exit(2);
}
