/** Exec probe commands expand `$(VAR)` from the container's literal env values only. */
import assert from "node:assert/strict";
import type { V1Container } from "@kubernetes/client-node";
import { createProber } from "../../src/prober/_prober.ts";
import { staticCommand } from "../../src/prober/_exec.ts";
import { execProbe, FakeExec, probePod, setupManager, tick } from "./_fakes.ts";

/** Runs `command` as an exec probe of `container` and returns what ExecSync was given. */
async function probedCommand(command: string[], container: V1Container): Promise<string[]> {
  const exec = new FakeExec();
  let seen: string[] = [];
  const prober = createProber({
    userAgent: "kube-probe/1.31",
    runtime: {
      execSync(id, cmd, timeout) {
        seen = cmd;
        return exec.execSync(id, cmd, timeout);
      },
    },
  });
  const out = await prober.probe({ exec: { command } }, {
    pod: {},
    container,
    containerId: "c1",
    podIp: "10.0.0.5",
  }, { signal: new AbortController().signal });
  assert.equal(out.result, "success");
  return seen;
}

Deno.test("prober: an exec probe expands $(VAR) from the container's env", async () => {
  const seen = await probedCommand(["sh", "-c", "test -f $(READY_FILE)"], {
    name: "app",
    env: [{ name: "READY_FILE", value: "/tmp/ready" }],
  });
  assert.deepEqual(seen, ["sh", "-c", "test -f /tmp/ready"]);
});

Deno.test("staticCommand: valueFrom is empty, unknown names stay, $$ escapes, last entry wins", () => {
  const env = [
    { name: "A", value: "one" },
    { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    { name: "A", value: "two" },
    { name: "EMPTY" },
  ];
  assert.deepEqual(
    staticCommand(["$(A)", "<$(POD)>", "$(NOPE)", "$$(A)", "$(EMPTY)|", "cost $5", "$("], env),
    ["two", "<>", "$(NOPE)", "$(A)", "|", "cost $5", "$("],
  );
  assert.deepEqual(staticCommand(["$(A)"], undefined), ["$(A)"]);
});

Deno.test("staticCommand: a command without $ is passed through without a copy", () => {
  const cmd = ["cat", "/tmp/healthy"];
  assert.equal(staticCommand(cmd, [{ name: "A", value: "x" }]), cmd);
});

Deno.test("prober: a worker expands a $(VAR) exec command once, not on every probe run", async () => {
  const { clock, statuses, exec, manager } = setupManager();
  const seen: string[][] = [];
  const execSync = exec.execSync.bind(exec);
  exec.execSync = (id, cmd, timeout) => {
    seen.push(cmd);
    return execSync(id, cmd, timeout);
  };
  statuses.running("c1", clock.now());
  manager.addPod(probePod(
    { livenessProbe: execProbe({ exec: { command: ["test", "-f", "$(F)"] }, periodSeconds: 1 }) },
    { env: [{ name: "F", value: "/tmp/ok" }] },
  ));
  await tick(clock, 0);
  await tick(clock, 1_000);
  await tick(clock, 1_000);
  manager.stop();
  assert.equal(seen.length, 3);
  assert.deepEqual(seen[0], ["test", "-f", "/tmp/ok"]);
  // The very same array each run: nothing was expanded again.
  assert.ok(seen.every((cmd) => cmd === seen[0]));
});
