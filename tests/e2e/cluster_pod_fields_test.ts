/**
 * Honour or refuse, API pods on a real control plane (containerd 1.6): an unsafe sysctl fails
 * the pod at once (Failed, SysctlForbidden, and an event) as the upstream kubelet does; a
 * RuntimeClass whose handler the runtime lacks fails the sandbox (FailedCreatePodSandBox) and
 * the pod never runs on the default runtime; a class naming the runtime's own handler runs; a
 * field the node does not implement fails the pod with PodFeatureUnsupported naming it.
 */
import assert from "node:assert/strict";
import type { CoreV1EventList, V1Pod } from "@kubernetes/client-node";
import { realClock } from "../../src/util/clock.ts";
import { waitFor } from "../support/wait.ts";
import { busyboxPod, E2E_TEST, setupCluster } from "./_cluster.ts";
import { isRunning } from "./_helpers.ts";

const failed = (p: V1Pod) => p.status?.phase === "Failed";

Deno.test({
  name: "API mode: pod fields are honoured or refused as the upstream kubelet does",
  ...E2E_TEST,
  async fn(t) {
    const e2e = await setupCluster();
    const node = e2e.nodeName;
    const events = async (pod: string) =>
      ((await e2e.getJson<CoreV1EventList>([
        "events",
        "-n",
        "default",
        "--field-selector",
        `involvedObject.name=${pod}`,
      ]))?.items ?? []).map((e) => `${e.type} ${e.reason}: ${e.message}`);
    try {
      await e2e.waitNodeReady({ timeoutMs: 60_000, intervalMs: 500 });

      await t.step("an unsafe sysctl: Failed, SysctlForbidden, with the event", async () => {
        await e2e.apply(busyboxPod("sysctl", "sleep 3600", {
          node,
          extra: { securityContext: { sysctls: [{ name: "kernel.msgmax", value: "9999" }] } },
        }));
        const p = await e2e.waitPod("sysctl", failed, {
          timeoutMs: 60_000,
          intervalMs: 500,
          what: "pod sysctl Failed",
        });
        assert.equal(p.status?.reason, "SysctlForbidden");
        assert.equal(
          p.status?.message,
          'Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted',
        );
        await waitFor(
          async () =>
            (await events("sysctl")).some((e) =>
              e === 'Warning SysctlForbidden: forbidden sysctl: "kernel.msgmax" not allowlisted'
            ),
          { timeoutMs: 30_000, intervalMs: 500, what: "the SysctlForbidden event" },
        );
      });

      await t.step("a RuntimeClass whose handler containerd lacks fails the sandbox", async () => {
        await e2e.apply(
          {
            apiVersion: "node.k8s.io/v1",
            kind: "RuntimeClass",
            metadata: { name: "missing" },
            handler: "no-such-handler",
          },
          {
            apiVersion: "node.k8s.io/v1",
            kind: "RuntimeClass",
            metadata: { name: "plain" },
            handler: "runc",
          },
        );
        await e2e.apply(busyboxPod("rc-missing", "sleep 3600", {
          node,
          extra: { runtimeClassName: "missing" },
        }));
        await e2e.apply(busyboxPod("rc-plain", "echo up; sleep 3600", {
          node,
          extra: { runtimeClassName: "plain" },
        }));
        const running = await e2e.waitPod("rc-plain", isRunning, {
          timeoutMs: 90_000,
          intervalMs: 500,
          what: "pod rc-plain Running on handler runc",
        });
        const sandboxes = await e2e.cri.runtime.listPodSandbox({
          labelSelector: { "io.kubernetes.pod.uid": running.metadata!.uid! },
        });
        assert.equal(sandboxes[0]?.runtimeHandler, "runc");

        const sandboxEvent = await waitFor(
          async () =>
            (await events("rc-missing")).find((e) =>
              e.startsWith("Warning FailedCreatePodSandBox: Failed to create pod sandbox:")
            ),
          { timeoutMs: 60_000, intervalMs: 500, what: "FailedCreatePodSandBox for rc-missing" },
        );
        assert.match(sandboxEvent, /no-such-handler/);
        await realClock.sleep(2_000);
        const missing = await e2e.pod("rc-missing");
        assert.equal(missing?.status?.phase, "Pending");
        assert.deepEqual(
          await e2e.cri.runtime.listPodSandbox({
            labelSelector: { "io.kubernetes.pod.uid": missing!.metadata!.uid! },
          }),
          [],
          "no sandbox on the default runtime",
        );
      });

      await t.step(
        "a field the node does not implement: Failed, PodFeatureUnsupported",
        async () => {
          await e2e.apply(busyboxPod("nfs", "sleep 3600", {
            node,
            extra: { volumes: [{ name: "share", nfs: { server: "127.0.0.1", path: "/export" } }] },
          }));
          const p = await e2e.waitPod("nfs", failed, {
            timeoutMs: 60_000,
            intervalMs: 500,
            what: "pod nfs Failed",
          });
          assert.equal(p.status?.reason, "PodFeatureUnsupported");
          assert.equal(
            p.status?.message,
            "Pod was rejected: Pod requires node features that are not available: " +
              "spec.volumes[0].nfs (nfs volumes)",
          );
          await waitFor(
            async () =>
              (await events("nfs")).some((e) =>
                e.startsWith("Warning PodFeatureUnsupported: Pod requires node features")
              ),
            { timeoutMs: 30_000, intervalMs: 500, what: "the PodFeatureUnsupported event" },
          );
        },
      );
    } finally {
      await e2e.close();
    }
  },
});
