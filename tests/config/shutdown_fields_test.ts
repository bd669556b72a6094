/** Graceful node shutdown's KubeletConfiguration fields and upstream's checks on them. */
import assert from "node:assert/strict";
import { gracefulShutdownConfigured } from "../../src/config/mod.ts";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
const file = (body: string) => ({ "/k.yaml": HEAD + body });

Deno.test("shutdownGracePeriod and shutdownGracePeriodCriticalPods are read and turn it on", async () => {
  const { config, warnings } = await run(
    ["--config", "/k.yaml"],
    file("shutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 10s\n"),
  );
  assert.deepEqual(warnings, []);
  assert.equal(config.shutdownGracePeriodMs, 30_000);
  assert.equal(config.shutdownGracePeriodCriticalPodsMs, 10_000);
  assert.ok(gracefulShutdownConfigured(config));
  // The defaults: off.
  assert.ok(!gracefulShutdownConfigured((await run([])).config));
});

Deno.test("shutdownGracePeriodByPodPriority is read as upstream's list", async () => {
  const { config } = await run(
    ["--config", "/k.yaml"],
    file(`shutdownGracePeriodByPodPriority:
  - priority: 2000000000
    shutdownGracePeriodSeconds: 10
  - priority: 10000
    shutdownGracePeriodSeconds: 20
  - priority: 0
    shutdownGracePeriodSeconds: 30
`),
  );
  assert.deepEqual(config.shutdownGracePeriodByPodPriority, [
    { priority: 2000000000, shutdownGracePeriodSeconds: 10 },
    { priority: 10000, shutdownGracePeriodSeconds: 20 },
    { priority: 0, shutdownGracePeriodSeconds: 30 },
  ]);
  assert.ok(gracefulShutdownConfigured(config));
  // With its gate off, the list alone turns nothing on (and is refused, below).
});

Deno.test("bad graceful shutdown settings are refused in upstream's words", async () => {
  const argv = ["--config", "/k.yaml"];
  await fails(
    argv,
    "/k.yaml: shutdownGracePeriodCriticalPods",
    /invalid configuration: shutdownGracePeriodCriticalPods 20s must be <= shutdownGracePeriod 10s/,
    file("shutdownGracePeriod: 10s\nshutdownGracePeriodCriticalPods: 20s\n"),
  );
  await fails(
    argv,
    "/k.yaml: shutdownGracePeriod",
    /shutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec/,
    file("shutdownGracePeriod: 500ms\n"),
  );
  await fails(
    argv,
    "/k.yaml: shutdownGracePeriodByPodPriority",
    /Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time/,
    file(
      "shutdownGracePeriod: 30s\nshutdownGracePeriodByPodPriority:\n" +
        "  - priority: 0\n    shutdownGracePeriodSeconds: 30\n",
    ),
  );
  await fails(
    argv,
    "/k.yaml: shutdownGracePeriodByPodPriority",
    /requires feature gate GracefulNodeShutdownBasedOnPodPriority/,
    file(
      "featureGates:\n  GracefulNodeShutdownBasedOnPodPriority: false\n" +
        "shutdownGracePeriodByPodPriority:\n  - priority: 0\n    shutdownGracePeriodSeconds: 30\n",
    ),
  );
  await fails(
    argv,
    "/k.yaml: shutdownGracePeriod",
    /requires feature gate GracefulNodeShutdown$/,
    file("featureGates:\n  GracefulNodeShutdown: false\nshutdownGracePeriod: 30s\n"),
  );
  await fails(
    argv,
    "/k.yaml: shutdownGracePeriodByPodPriority[0].priority",
    /expected an integer/,
    file("shutdownGracePeriodByPodPriority:\n  - priority: high\n"),
  );
});
