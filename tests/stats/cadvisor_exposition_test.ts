import assert from "node:assert/strict";
import { escapeLabel, Exposition, goFloat } from "../../src/stats/cadvisor/_exposition.ts";
import {
  flatKeyed,
  parseBlkio,
  parseCpuinfo,
  parseCpuMax,
  parseDiskstats,
  parseIoStat,
  parseMaxOpenFiles,
  parseMountinfo,
  parseNetDevFull,
  parsePsiTotals,
  parseUint,
  weightToShares,
} from "../../src/stats/cadvisor/_parse.ts";

Deno.test("goFloat writes values as Go's strconv 'g' -1 does", () => {
  assert.equal(goFloat(0), "0");
  assert.equal(goFloat(1), "1");
  assert.equal(goFloat(-1), "-1");
  assert.equal(goFloat(123456), "123456");
  assert.equal(goFloat(1000000), "1e+06");
  assert.equal(goFloat(52428800), "5.24288e+07");
  assert.equal(goFloat(7802.095017244), "7802.095017244");
  assert.equal(goFloat(0.0001), "0.0001");
  assert.equal(goFloat(0.00001), "1e-05");
  assert.equal(goFloat(18446744073709551615), "1.8446744073709552e+19");
  assert.equal(goFloat(1e100), "1e+100");
  assert.equal(goFloat(NaN), "NaN");
  assert.equal(goFloat(Infinity), "+Inf");
  assert.equal(goFloat(-Infinity), "-Inf");
});

Deno.test("label values escape backslash, double quote and newline", () => {
  assert.equal(escapeLabel('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
  const out = new Exposition();
  out.add({ name: "m", help: "Help with \\ and\nnewline", type: "gauge" }, {
    labels: { l: 'x"y' },
    value: 1,
  });
  assert.equal(
    out.render(),
    '# HELP m Help with \\\\ and\\nnewline\n# TYPE m gauge\nm{l="x\\"y"} 1\n',
  );
});

Deno.test("the exposition sorts families by name, samples by label values and pairs by name", () => {
  const out = new Exposition();
  const b = { name: "b_total", help: "B.", type: "counter" as const };
  const a = { name: "a", help: "A.", type: "gauge" as const };
  out.add(b, { labels: { pod: "z", container: "c" }, value: 2, timestampMs: 1000 });
  out.add(b, { labels: { pod: "a", container: "c" }, value: 1, timestampMs: 1000 });
  out.add(b, { labels: { pod: "a", container: "b" }, value: 3, timestampMs: 1000 });
  out.add(a, { labels: {}, value: 5 });
  assert.equal(
    out.render(),
    [
      "# HELP a A.",
      "# TYPE a gauge",
      "a 5",
      "# HELP b_total B.",
      "# TYPE b_total counter",
      'b_total{container="b",pod="a"} 3 1000',
      'b_total{container="c",pod="a"} 1 1000',
      'b_total{container="c",pod="z"} 2 1000',
      "",
    ].join("\n"),
  );
});

Deno.test("a second sample with the same name and labels is dropped, the first kept", () => {
  const out = new Exposition();
  const f = { name: "container_fs_reads_total", help: "R.", type: "counter" as const };
  assert.equal(out.add(f, { labels: { device: "/dev/vda", id: "/" }, value: 1 }), true);
  assert.equal(out.add(f, { labels: { id: "/", device: "/dev/vda" }, value: 2 }), false);
  assert.equal(out.duplicates, 1);
  assert.match(out.render(), /^container_fs_reads_total\{device="\/dev\/vda",id="\/"\} 1$/m);
  assert.equal(out.render().match(/^container_fs_reads_total\{/gm)?.length, 1);
});

Deno.test("blkio files group per device, skip the Total line, keep every operation", () => {
  const devs = parseBlkio("8:0 Read 10\n8:0 Write 20\n8:16 Read 1\n8:0 Total 30\nTotal 31\n");
  assert.deepEqual(devs.map((d) => [d.major, d.minor, Object.fromEntries(d.ops)]), [
    [8, 0, { Read: 10, Write: 20, Total: 30 }],
    [8, 16, { Read: 1 }],
  ]);
  assert.deepEqual(parseBlkio("Total 0\n"), []);
});

Deno.test("io.stat maps rbytes/wbytes and rios/wios to cgroup v1's tables", () => {
  const io = parseIoStat(
    "254:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n8:0 rbytes=1\n",
  );
  assert.deepEqual(io.serviceBytes.map((d) => [d.major, d.minor, Object.fromEntries(d.ops)]), [
    [254, 0, { Read: 4096, Write: 8192 }],
    [8, 0, { Read: 1 }],
  ]);
  assert.deepEqual(Object.fromEntries(io.serviced[0].ops), { Read: 1, Write: 2 });
});

Deno.test("PSI totals, cpu.max, cpu.weight and cgroup integers read as runc reads them", () => {
  assert.deepEqual(
    parsePsiTotals(
      "some avg10=0.00 avg60=0.00 avg300=0.00 total=3000\nfull avg10=0 avg60=0 avg300=0 total=10\n",
    ),
    { some: 3000, full: 10 },
  );
  assert.deepEqual(parseCpuMax("max 100000\n"), { quota: 0, period: 100000 });
  assert.deepEqual(parseCpuMax("50000 100000\n"), { quota: 50000, period: 100000 });
  assert.equal(weightToShares(100), 2597);
  assert.equal(weightToShares(1), 2);
  assert.equal(weightToShares(10000), 262144);
  assert.equal(weightToShares(0), 0);
  assert.equal(parseUint("max\n"), 18446744073709551615);
  assert.equal(parseUint(undefined), 0);
  assert.equal(parseUint("12\n"), 12);
});

Deno.test("net/dev keeps every counter and leaves out the interfaces cAdvisor ignores", () => {
  const text = "Inter-|   Receive |  Transmit\n face |bytes packets|bytes\n" +
    "    lo: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n" +
    "  eth0: 100 2 3 4 0 0 0 0 500 6 7 8 0 0 0 0\n" +
    "vethab: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n";
  assert.deepEqual(parseNetDevFull(text), [{
    name: "eth0",
    rxBytes: 100,
    rxPackets: 2,
    rxErrors: 3,
    rxDropped: 4,
    txBytes: 500,
    txPackets: 6,
    txErrors: 7,
    txDropped: 8,
  }]);
});

Deno.test("diskstats, mountinfo, cpuinfo and limits", () => {
  const d = parseDiskstats(" 254 0 vda 100 2 3000 40 200 5 6000 70 0 500 110 0 0 0 0\n");
  assert.equal(d.get("254:0")?.name, "vda");
  assert.equal(d.get("254:0")?.weightedIoTimeMs, 110);
  assert.deepEqual(
    parseMountinfo("25 1 254:0 / /var/lib/my\\040dir rw - ext4 /dev/vda rw\n"),
    [{ major: 254, minor: 0, mountpoint: "/var/lib/my dir", fsType: "ext4", source: "/dev/vda" }],
  );
  // Distinct lines, as cAdvisor counts: two sockets with core ids 0-1 count 2 physical cores.
  const cpu = [0, 1, 2, 3].map((i) =>
    `processor\t: ${i}\nphysical id\t: ${i >> 1}\ncore id\t\t: ${i & 1}\n`
  ).join("\n");
  assert.deepEqual(parseCpuinfo(cpu), { cores: 4, physicalCores: 2, sockets: 2 });
  assert.equal(
    parseMaxOpenFiles("Max open files            1024                 4096     files\n"),
    1024,
  );
  assert.equal(parseMaxOpenFiles("Max open files            unlimited  unlimited  files\n"), -1);
  assert.equal(parseMaxOpenFiles(""), undefined);
});

Deno.test("flatKeyed finds whole keys at line starts, first line and last line included", () => {
  const stat = flatKeyed("cache 1\nrss 2\nrss_huge 3\ntotal_cache 4\nmapped_file 5");
  assert.equal(stat("cache"), 1);
  assert.equal(stat("rss"), 2);
  assert.equal(stat("rss_huge"), 3);
  assert.equal(stat("total_cache"), 4);
  assert.equal(stat("mapped_file"), 5);
  assert.equal(stat("huge"), undefined);
  assert.equal(stat("file"), undefined);
  assert.equal(flatKeyed(undefined)("cache"), undefined);
  assert.equal(flatKeyed("usage_usec \n")("usage_usec"), undefined);
});
