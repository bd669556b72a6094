import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { computePodEvents, generateEvents } from "../../src/pleg/_events.ts";
import type { PlegContainerState } from "../../src/pleg/_events.ts";
import { runningPod } from "./_fake_runtime.ts";

Deno.test("generateEvents maps every state transition as upstream does", () => {
  const cases: [PlegContainerState, PlegContainerState, string[]][] = [
    ["non-existent", "running", ["ContainerStarted"]],
    ["unknown", "running", ["ContainerStarted"]],
    ["running", "exited", ["ContainerDied"]],
    ["non-existent", "exited", ["ContainerDied"]],
    ["non-existent", "unknown", ["ContainerChanged"]],
    ["running", "unknown", ["ContainerChanged"]],
    ["exited", "non-existent", ["ContainerRemoved"]],
    ["running", "non-existent", ["ContainerDied", "ContainerRemoved"]],
    ["unknown", "non-existent", ["ContainerDied", "ContainerRemoved"]],
    ["running", "running", []],
    ["exited", "exited", []],
  ];
  for (const [from, to, want] of cases) {
    const got = generateEvents("u1", "c1", { old: from, new: to });
    assertEquals(got.map((e) => e.type), want, `${from} -> ${to}`);
    for (const e of got) assertEquals([e.uid, e.data], ["u1", "c1"]);
  }
});

Deno.test("computePodEvents treats created containers as unknown and sandboxes as containers", () => {
  const before = runningPod("u1", {
    sandboxes: [["s1", "ready"]],
    containers: [["c1", "created"]],
  });
  const after = runningPod("u1", {
    sandboxes: [["s1", "notready"]],
    containers: [["c1", "running"]],
  });
  assertEquals(computePodEvents("u1", { old: before, new: after }), [
    { uid: "u1", type: "ContainerStarted", data: "c1" },
    { uid: "u1", type: "ContainerDied", data: "s1" },
  ]);
  assertEquals(computePodEvents("u1", { old: undefined, new: before }), [
    { uid: "u1", type: "ContainerChanged", data: "c1" },
    { uid: "u1", type: "ContainerStarted", data: "s1" },
  ]);
});

Deno.test("computePodEvents reports a vanished pod's containers as died and removed", () => {
  const before = runningPod("u1", {
    sandboxes: [["s1", "notready"]],
    containers: [["c1", "running"]],
  });
  assertEquals(computePodEvents("u1", { old: before, new: undefined }).map((e) => e.type), [
    "ContainerDied",
    "ContainerRemoved",
    "ContainerRemoved",
  ]);
});
