import assert from "node:assert/strict";
import { checkSwap, swapControllerFile, swapOn } from "../../src/cm/mod.ts";
import { ConfigError } from "../../src/util/errors.ts";

const HEADER = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
const ON = HEADER + "/swapfile                               file\t\t1048572\t\t0\t\t-2\n";

Deno.test("swap is on when /proc/swaps lists a device beyond its header", () => {
  assert.equal(swapOn(HEADER), false);
  assert.equal(swapOn(ON), true);
});

Deno.test("--fail-swap-on refuses to start with swap on, in upstream's words", () => {
  const base = { failSwapOn: true, swapBehavior: "", cgroupVersion: 1 as const };
  assert.throws(
    () => checkSwap({ ...base, procSwaps: ON }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message.endsWith(
        "running with swap on is not supported, please disable swap or set --fail-swap-on " +
          "flag to false",
      ),
  );
  checkSwap({ ...base, procSwaps: HEADER });
  checkSwap({ ...base, procSwaps: undefined }); // no /proc/swaps: swap is off
  checkSwap({ ...base, failSwapOn: false, procSwaps: ON });
});

Deno.test("LimitedSwap is refused on cgroup v1, as upstream's kubelet refuses it", () => {
  assert.throws(
    () =>
      checkSwap({
        failSwapOn: false,
        swapBehavior: "LimitedSwap",
        cgroupVersion: 1,
        procSwaps: ON,
      }),
    /LimitedSwap but it is only supported with cgroupv2/,
  );
  checkSwap({ failSwapOn: false, swapBehavior: "LimitedSwap", cgroupVersion: 2, procSwaps: ON });
});

Deno.test("the swap controller: memory.memsw on v1, memory.swap.max of the agent's own cgroup on v2", () => {
  assert.equal(
    swapControllerFile(1, { mountRoot: "/sys/fs/cgroup" }),
    "/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes",
  );
  assert.equal(
    swapControllerFile(2, {
      mountRoot: "/sys/fs/cgroup",
      selfCgroup: "0::/system.slice/denolet.service\n",
    }),
    "/sys/fs/cgroup/system.slice/denolet.service/memory.swap.max",
  );
  assert.equal(swapControllerFile(2, { mountRoot: "/sys/fs/cgroup", selfCgroup: "" }), undefined);
});
