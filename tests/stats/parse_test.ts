import assert from "node:assert/strict";
import {
  parseFlatKeyed,
  parseLoadavgProcs,
  parseMeminfo,
  parseNetDev,
  parsePidStat,
  parseProcStat,
  parseSingleValue,
} from "../../src/stats/_parse.ts";
import { socketInode } from "../../src/stats/_system.ts";

const FIX = new URL("./fixtures/", import.meta.url).pathname;

Deno.test("parseFlatKeyed reads key value lines and skips junk", () => {
  const m = parseFlatKeyed("anon 10\nfile 20\nbogus\nx y\n");
  assert.equal(m.get("anon"), 10);
  assert.equal(m.get("file"), 20);
  assert.equal(m.has("x"), false);
});

Deno.test("parseSingleValue treats max and empty as no value", () => {
  assert.equal(parseSingleValue("42\n"), 42);
  assert.equal(parseSingleValue("max\n"), undefined);
  assert.equal(parseSingleValue(""), undefined);
});

Deno.test("parseMeminfo converts kB to bytes and keeps unitless counts", async () => {
  const m = parseMeminfo(await Deno.readTextFile(`${FIX}proc/meminfo`));
  assert.equal(m.get("MemTotal"), 8000000 * 1024);
  assert.equal(m.get("HugePages_Total"), 0);
});

Deno.test("parseNetDev reads bytes and errors per interface", async () => {
  const list = parseNetDev(await Deno.readTextFile(`${FIX}proc/self/net/dev`));
  assert.deepEqual(list.find((i) => i.name === "eth0"), {
    name: "eth0",
    rxBytes: 159275645,
    rxErrors: 1,
    txBytes: 447464,
    txErrors: 2,
  });
  assert.equal(list.length, 4);
});

Deno.test("parseProcStat sums busy ticks (not idle/iowait) as ns and reads btime", async () => {
  const s = parseProcStat(await Deno.readTextFile(`${FIX}proc/stat`))!;
  // user 48730 + nice 100 + system 17422 + irq 0 + softirq 749 + steal 116 ticks of 10 ms.
  assert.equal(s.busyNs, (48730 + 100 + 17422 + 749 + 116) * 10_000_000);
  assert.equal(s.bootTimeMs, 1795313512_000);
});

Deno.test("parsePidStat copes with spaces and parentheses in the command name", async () => {
  const s = parsePidStat(await Deno.readTextFile(`${FIX}proc/self/stat`))!;
  assert.equal(s.cpuNs, (250 + 50) * 10_000_000);
  assert.equal(s.minorFaults, 15000);
  assert.equal(s.majorFaults, 3);
  assert.equal(s.startAfterBootMs, 10_000);
  assert.equal(s.rssPages, 20000);
  assert.equal(parsePidStat("garbage"), undefined);
});

Deno.test("parseLoadavgProcs reads the total scheduling entities", () => {
  assert.equal(parseLoadavgProcs("1.87 1.10 0.86 3/267 31309\n"), 267);
  assert.equal(parseLoadavgProcs(""), undefined);
});

Deno.test("socketInode finds the listening socket, not connected ones", () => {
  const text = [
    "Num       RefCount Protocol Flags    Type St Inode Path",
    "0000: 00000003 00000000 00000000 0001 03 224778 /run/c.sock",
    "0000: 00000002 00000000 00010000 0001 01 164652 /run/c.sock",
  ].join("\n");
  assert.equal(socketInode(text, "/run/c.sock"), "164652");
  assert.equal(socketInode(text, "/run/other.sock"), undefined);
});
