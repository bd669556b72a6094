/**
 * Adopting an existing Node (upstream updateDefaultLabels): the well-known labels the agent
 * computed, its defaults or --node-labels, are put back; an empty value of ours removes one.
 */
import assert from "node:assert/strict";
import type { V1Node } from "@kubernetes/client-node";
import { reconcileExisting } from "../../src/node/_node_patch.ts";

const NAME = "edge-1";
const BASE = {
  "kubernetes.io/hostname": NAME,
  "kubernetes.io/os": "linux",
  "kubernetes.io/arch": "amd64",
  "beta.kubernetes.io/os": "linux",
  "beta.kubernetes.io/arch": "amd64",
};

/** A Node with the default labels, the attach annotation and capacity all in place. */
function node(labels: Record<string, string>): V1Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: NAME,
      labels: { ...BASE, ...labels },
      annotations: { "volumes.kubernetes.io/controller-managed-attach-detach": "true" },
    },
    status: { capacity: { cpu: "2" }, allocatable: { cpu: "2" } },
  };
}

Deno.test("adopting a Node puts --node-labels topology and instance-type labels back", () => {
  const existing = node({
    "topology.kubernetes.io/zone": "zone-a",
    "topology.kubernetes.io/region": "region-1",
    "failure-domain.beta.kubernetes.io/region": "region-1",
    team: "a",
  });
  const ours = node({
    "topology.kubernetes.io/zone": "zone-b",
    "failure-domain.beta.kubernetes.io/zone": "zone-b",
    "node.kubernetes.io/instance-type": "m5.large",
    "node.kubernetes.io/windows-build": "10.0.17763",
    // An empty value asks for the label to go; absent on the Node, there is nothing to do.
    "topology.kubernetes.io/region": "",
    "beta.kubernetes.io/instance-type": "",
    // Not a well-known label: counts only at creation.
    "denolet.test/role": "edge",
  });
  // Labels we did not compute (the region's beta twin, team) stay as others set them.
  assert.deepEqual(reconcileExisting(existing, ours), {
    metadata: {
      labels: {
        "topology.kubernetes.io/zone": "zone-b",
        "failure-domain.beta.kubernetes.io/zone": "zone-b",
        "node.kubernetes.io/instance-type": "m5.large",
        "node.kubernetes.io/windows-build": "10.0.17763",
        "topology.kubernetes.io/region": null,
      },
    },
  });
});

Deno.test("adopting a Node whose labels already agree changes nothing", () => {
  const labels = {
    "topology.kubernetes.io/zone": "zone-a",
    "beta.kubernetes.io/instance-type": "x",
  };
  assert.equal(reconcileExisting(node(labels), node(labels)), undefined);
});

Deno.test("an empty label already on the Node is no reason to patch, yet goes with a patch", () => {
  const existing = node({ "topology.kubernetes.io/zone": "" });
  const ours = node({ "topology.kubernetes.io/zone": "" });
  assert.equal(reconcileExisting(existing, ours), undefined);
  // With another change to send, upstream's copy drops the empty label as well.
  existing.metadata!.annotations = {};
  assert.deepEqual(reconcileExisting(existing, ours)?.metadata, {
    labels: { "topology.kubernetes.io/zone": null },
    annotations: { "volumes.kubernetes.io/controller-managed-attach-detach": "true" },
  });
});
