/** When probes run: start-up jitter, spread phases, the shared grid, manual triggers (issue 14). */
import assert from "node:assert/strict";
import { execProbe, probePod, setupManager as setup, tick } from "./_fakes.ts";

Deno.test("prober: start-up jitter delays the first probe by random × period", async () => {
  const { clock, statuses, exec, manager } = setup({ random: () => 0.5 });
  statuses.running("c1", clock.now());
  manager.addPod(probePod({ livenessProbe: execProbe({ periodSeconds: 10 }) }));
  await tick(clock, 4_999);
  assert.equal(exec.calls.length, 0);
  await tick(clock, 1);
  assert.equal(exec.calls.length, 1);
  // Pods added once the manager has run for a period start at once, as upstream.
  await tick(clock, 10_000);
  const n = exec.calls.length;
  manager.addPod({ ...probePod({ livenessProbe: execProbe() }), metadata: { uid: "uid-2" } });
  statuses.running("d1", clock.now(), "uid-2");
  await tick(clock, 0);
  assert.equal(exec.calls.length, n + 1);
  assert.equal(exec.calls.at(-1), "d1");
  manager.stop();
});

Deno.test("prober: pods started together probe at once, then at spread phases (issue 14)", async () => {
  const phases = [0.1, 0.6, 0.35];
  let draws = 0;
  const { clock, statuses, exec, manager } = setup({ random: () => phases[draws++ % 3] });
  // Past the start-up period: no initial jitter.
  await tick(clock, 10_000);
  draws = 0;
  for (const [i, uid] of ["u-a", "u-b", "u-c"].entries()) {
    manager.addPod({
      ...probePod({ livenessProbe: execProbe({ periodSeconds: 10 }) }),
      metadata: { uid },
    });
    statuses.running(`c${i}`, clock.now(), uid);
  }
  await tick(clock, 0);
  assert.deepEqual(exec.calls, ["c0", "c1", "c2"], "first probes without delay");
  const at = (ms: number) => tick(clock, ms).then(() => exec.calls.splice(3));
  // Second probes at period - phase x period after the first: 9 s, 6.5 s, 4 s.
  assert.deepEqual(await at(4_000), ["c1"]);
  assert.deepEqual(await at(2_500), ["c2"]);
  assert.deepEqual(await at(2_500), ["c0"]);
  // Then every period, each at its own phase.
  assert.deepEqual(await at(4_999), []);
  assert.deepEqual(await at(1), ["c1"]);
  manager.stop();
});

Deno.test("prober: probes share a 500 ms grid so probes due together wake the agent once (issue 14)", async () => {
  const phases = [0.1, 0.6, 0.35, 0.5];
  let draws = 0;
  const { clock, statuses, exec, manager } = setup({ random: () => phases[draws++ % 4] });
  const start = clock.now();
  const times: number[] = [];
  exec.next = () => (times.push(clock.now() - start), 0);
  // At start-up, at an odd time: the jittered first probe is put off to the next grid time.
  await tick(clock, 77);
  manager.addPod(probePod({ livenessProbe: execProbe({ periodSeconds: 10 }) }));
  statuses.running("c0", clock.now());
  // Past the start-up period, at another odd time: pods probe at once, then on the grid.
  await tick(clock, 10_046);
  for (const [i, uid] of ["u-a", "u-b", "u-c"].entries()) {
    manager.addPod({
      ...probePod({ livenessProbe: execProbe({ periodSeconds: 10 }) }),
      metadata: { uid },
    });
    statuses.running(`c${i + 1}`, clock.now(), uid);
  }
  for (let t = 0; t < 25_000; t += 50) await tick(clock, 50);
  assert.equal(times[0], 1_500, "77 ms + 0.1 x 10 s, up to the grid");
  assert.equal(times.filter((t) => t === 10_123).length, 3, "new pods' first probes at once");
  const later = times.filter((t) => t !== 10_123);
  assert.ok(later.length >= 7, `probes: ${times}`);
  for (const t of later) assert.equal(t % 500, 0, `a probe at ${t} ms is off the grid: ${times}`);
  // Each pod keeps its own phase: 10 s after 10 123 ms - 0.6/0.35/0.5 x 10 s, down to the grid.
  for (const t of [14_000, 16_500, 15_000, 11_500]) assert.ok(later.includes(t), `${t}: ${times}`);
  manager.stop();
});

Deno.test("prober: a manual trigger does not shift the periodic schedule", async () => {
  const { clock, statuses, exec, manager } = setup();
  exec.next = () => 1;
  const pod = probePod({ readinessProbe: execProbe({ periodSeconds: 10 }) });
  manager.addPod(pod);
  await tick(clock, 0); // t=0: no status yet
  await tick(clock, 3_000);
  statuses.running("c1", clock.now());
  manager.addPod(pod); // t=3 s: new container, probed at once
  await tick(clock, 0);
  assert.equal(exec.calls.length, 1);
  await tick(clock, 7_000); // t=10 s: the regular tick still fires
  assert.equal(exec.calls.length, 2);
  await tick(clock, 10_000);
  assert.equal(exec.calls.length, 3);
  manager.stop();
});
