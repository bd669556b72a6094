import assert from "node:assert/strict";
import {
  capacityOf,
  type MachineInfo,
  podsAllocatable,
  reservationProblems,
} from "../../src/node/mod.ts";
import { parseThresholdConfig } from "../../src/eviction/mod.ts";
import { taskMax } from "../../src/node/_machine.ts";

const MACHINE: MachineInfo = {
  cpus: 4,
  memoryBytes: 8 * 2 ** 30,
  swapBytes: 0,
  maxPids: 32768,
  hugePages: [{ sizeKiB: 2048, bytes: 64 * 2 ** 20 }],
  machineID: "",
  systemUUID: "",
  bootID: "",
  kernelVersion: "",
  osImage: "",
};
const RESERVED = {
  kubeReserved: { cpu: "500m", memory: "1Gi", pid: "1000" },
  systemReserved: { cpu: "250m", memory: "512Mi", "ephemeral-storage": "1Gi" },
};

Deno.test("kubepods' size: capacity less kube- and system-reserved, hard eviction left in", () => {
  assert.deepEqual(podsAllocatable(MACHINE, { enforce: true, ...RESERVED }), {
    cpuMilli: 3250,
    memoryBytes: 8 * 2 ** 30 - 1.5 * 2 ** 30,
    pids: 31768,
    hugePages: { "2MB": 64 * 2 ** 20 },
  });
});

Deno.test("without the pods enforcement kubepods gets the whole machine", () => {
  assert.deepEqual(podsAllocatable(MACHINE, { enforce: false, ...RESERVED }), {
    cpuMilli: 4000,
    memoryBytes: 8 * 2 ** 30,
    pids: 32768,
    hugePages: { "2MB": 64 * 2 ** 20 },
  });
  assert.equal(podsAllocatable({ ...MACHINE, maxPids: 0 }, { enforce: true }).pids, undefined);
  // Never below zero.
  assert.equal(
    podsAllocatable(MACHINE, { enforce: true, kubeReserved: { cpu: "9" } }).cpuMilli,
    0,
  );
});

Deno.test("the task limit is the smaller of pid_max and threads-max that are known", () => {
  assert.equal(taskMax("4194304\n", "95000\n"), 95000);
  assert.equal(taskMax("32768\n", ""), 32768);
  assert.equal(taskMax("", ""), 0);
});

Deno.test("a reservation larger than capacity is named with upstream's words", () => {
  const capacity = capacityOf(MACHINE, 110, 10 * 2 ** 30);
  assert.deepEqual(reservationProblems(capacity, RESERVED), []);
  assert.deepEqual(
    reservationProblems(capacity, {
      kubeReserved: { memory: "6Gi" },
      systemReserved: { memory: "2Gi" },
      hard: parseThresholdConfig({ hard: { "memory.available": "100Mi" } }),
    }),
    [
      'Resource "memory" has a reservation of 8292Mi but capacity of 8Gi. Expected capacity >= ' +
      "reservation.",
    ],
  );
});
