/**
 * --cloud-provider=external and --provider-id, as upstream's kubelet_node_status.go and the
 * NodeAddress setter: the uninitialized taint and the provider id at registration, --node-ip in
 * the provided-node-ip annotation, and addresses the cloud controller set left alone.
 */
import assert from "node:assert/strict";
import type { V1Node } from "@kubernetes/client-node";
import { createNodeStatusProvider, type NodeStatusDeps } from "../../src/node/mod.ts";
import { initialNode, statusUpdate } from "../../src/node/_node_patch.ts";
import { statusDeps } from "./_status_deps.ts";

const PROVIDED = "alpha.kubernetes.io/provided-node-ip";
const NOWHERE = "/nonexistent-denolet-test-root";

function node(over: Partial<NodeStatusDeps> = {}): Promise<V1Node> {
  return createNodeStatusProvider(
    statusDeps({ roots: { proc: NOWHERE, sys: NOWHERE, etc: NOWHERE }, ...over }),
  ).node();
}

Deno.test("external cloud provider: the Node registers tainted uninitialized, with the provided IP", async () => {
  const ours = await node({
    externalCloudProvider: true,
    providedNodeIP: "10.0.0.5",
    providerID: "aws:///eu-west-1a/i-0abc",
    taints: [{ key: "dedicated", value: "edge", effect: "NoSchedule" }],
  });
  const body = initialNode(ours) as V1Node;
  assert.deepEqual(body.spec, {
    taints: [
      { key: "dedicated", value: "edge", effect: "NoSchedule" },
      {
        key: "node.cloudprovider.kubernetes.io/uninitialized",
        value: "true",
        effect: "NoSchedule",
      },
    ],
    providerID: "aws:///eu-west-1a/i-0abc",
  });
  assert.equal(body.metadata?.annotations?.[PROVIDED], "10.0.0.5");
  assert.equal(
    body.metadata?.annotations?.["volumes.kubernetes.io/controller-managed-attach-detach"],
    "true",
  );
});

Deno.test("without a cloud provider: no taint, no annotation; the provider id still goes in", async () => {
  const body = initialNode(
    await node({ providedNodeIP: "10.0.0.5", providerID: "x://1" }),
  ) as V1Node;
  assert.deepEqual(body.spec, { providerID: "x://1" });
  assert.equal(body.metadata?.annotations?.[PROVIDED], undefined);
  assert.deepEqual(initialNode(await node()).spec, {});
});

Deno.test("external cloud provider: addresses on the server's Node are the controller's", async () => {
  const ours = await node({ externalCloudProvider: true, providedNodeIP: "10.0.0.5" });
  const server: V1Node = {
    metadata: { name: "edge-1", annotations: { [PROVIDED]: "10.0.0.5" } },
    status: { addresses: [{ type: "ExternalIP", address: "203.0.113.9" }] },
  };
  const kept = statusUpdate(server, ours, 0, { keepServerAddresses: true });
  assert.equal((kept.patch.status as Record<string, unknown>).addresses, undefined);
  const annotations = (p: Record<string, unknown>) =>
    (p.metadata as { annotations?: unknown } | undefined)?.annotations;
  assert.equal(annotations(kept.patch), undefined, "the annotation is already right");
  // A Node with no addresses yet gets the agent's.
  const empty = statusUpdate({ metadata: { name: "edge-1" } }, ours, 0, {
    keepServerAddresses: true,
  });
  assert.deepEqual((empty.patch.status as Record<string, unknown>).addresses, [
    { type: "InternalIP", address: "10.0.0.5" },
    { type: "Hostname", address: "edge-1" },
    { $patch: "replace" },
  ]);
  assert.deepEqual(annotations(empty.patch), { [PROVIDED]: "10.0.0.5" });
  assert.ok(empty.changed);
});

Deno.test("a stale provided-node-ip annotation is removed, as upstream's setter does", async () => {
  const server: V1Node = { metadata: { name: "edge-1", annotations: { [PROVIDED]: "10.0.0.9" } } };
  const { patch, changed } = statusUpdate(server, await node(), 0);
  assert.ok(changed);
  assert.deepEqual((patch.metadata as Record<string, unknown>).annotations, { [PROVIDED]: null });
});

Deno.test("external cloud provider without --node-ip: only the hostname address is reported", async () => {
  const ours = await node({ externalCloudProvider: true, nodeIPs: [] });
  assert.deepEqual(ours.status?.addresses, [{ type: "Hostname", address: "edge-1" }]);
  assert.equal(ours.metadata?.annotations, undefined);
});
