import assert from "node:assert/strict";
import { createMetricsRegistry } from "../../src/util/metrics.ts";
import { ipExt, parseStat, processCollector, softLimit } from "../../src/util/process_metrics.ts";

const STAT = "4242 (deno (main)) S 1 4242 4242 0 -1 4194560 3000 0 5 0 250 150 0 0 20 0 9 0 " +
  "12345 734003200 12800 18446744073709551615 1 1 0 0 0 0 0 16781312 1026 0 0 0 17 1 0 0 0 0 0\n";
const LIMITS = "Limit                     Soft Limit           Hard Limit           Units\n" +
  "Max open files            1024                 4096                 files\n" +
  "Max address space         unlimited            unlimited            bytes\n";
const NETSTAT = "TcpExt: SyncookiesSent\nTcpExt: 0\n" +
  "IpExt: InNoRoutes InTruncatedPkts InMcastPkts OutMcastPkts InBcastPkts OutBcastPkts InOctets OutOctets\n" +
  "IpExt: 0 0 0 0 0 0 123456 654321\n";

async function fakeProc(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-proc-" });
  await Deno.mkdir(`${dir}/self/fd`, { recursive: true });
  await Deno.mkdir(`${dir}/self/net`, { recursive: true });
  await Deno.writeTextFile(`${dir}/self/stat`, STAT);
  await Deno.writeTextFile(`${dir}/self/limits`, LIMITS);
  await Deno.writeTextFile(`${dir}/self/net/netstat`, NETSTAT);
  await Deno.writeTextFile(`${dir}/stat`, "cpu  1 2 3\nbtime 1767225600\n");
  for (const fd of ["0", "1", "2"]) Deno.symlinkSync("/dev/null", `${dir}/self/fd/${fd}`);
  return dir;
}

Deno.test("process_* on /metrics: the Go client's process collector, from /proc", async () => {
  const dir = await fakeProc();
  try {
    const r = createMetricsRegistry();
    r.registerCollector(processCollector({ procRoot: dir }));
    r.gauge({ name: "kubelet_running_pods", help: "Pods.", stability: "ALPHA" }).set(2);
    const text = r.render();
    const lines = text.split("\n").filter((l) => !l.startsWith("#") && l !== "");
    assert.deepEqual(lines, [
      "kubelet_running_pods 2",
      "process_cpu_seconds_total 4",
      "process_max_fds 1024",
      "process_network_receive_bytes_total 123456",
      "process_network_transmit_bytes_total 654321",
      "process_open_fds 3",
      "process_resident_memory_bytes 52428800",
      "process_start_time_seconds 1767225723.45",
      "process_virtual_memory_bytes 734003200",
      "process_virtual_memory_max_bytes 18446744073709552000",
    ]);
    assert.match(
      text,
      /^# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds\.\n# TYPE process_cpu_seconds_total counter$/m,
    );
    assert.match(text, /^# TYPE process_resident_memory_bytes gauge$/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("process_* leaves out what /proc does not have, and names stay unique", () => {
  const r = createMetricsRegistry();
  r.registerCollector(processCollector({ procRoot: "/nonexistent" }));
  assert.equal(r.render(), "");
  assert.throws(() => r.gauge({ name: "process_open_fds", help: "x" }), /already registered/);
  assert.throws(() => r.registerCollector(processCollector()), /already registered/);
});

Deno.test("stat, limits and netstat parsers", () => {
  assert.equal(parseStat(STAT)?.utime, 250);
  assert.equal(parseStat("garbage"), undefined);
  assert.equal(softLimit(LIMITS, "Max open files"), 1024);
  assert.equal(softLimit(LIMITS, "Max address space"), 18446744073709551615);
  assert.deepEqual(ipExt(NETSTAT)?.OutOctets, 654321);
});

Deno.test("the real /proc/self gives every process_* family", () => {
  const r = createMetricsRegistry();
  r.registerCollector(processCollector());
  const text = r.render();
  for (
    const n of [
      "process_cpu_seconds_total",
      "process_open_fds",
      "process_max_fds",
      "process_resident_memory_bytes",
      "process_start_time_seconds",
      "process_virtual_memory_bytes",
    ]
  ) assert.match(text, new RegExp(`^${n} \\d`, "m"));
});
