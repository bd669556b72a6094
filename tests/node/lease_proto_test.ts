/** The Lease's protobuf codec against what the real API server sends, and round trips. */
import assert from "node:assert/strict";
import type { V1Lease } from "@kubernetes/client-node";
import { decodeObject, encodeEnvelope } from "../../src/apiclient/protobuf.ts";
import { LEASE_CODEC, parseTime } from "../../src/node/_lease_proto.ts";
import { LEASE_JSON, LEASE_PROTOBUF_BASE64 } from "./_lease_fixture.ts";

const bytes = Uint8Array.from(atob(LEASE_PROTOBUF_BASE64), (c) => c.charCodeAt(0));

Deno.test("lease protobuf: the API server's bytes decode to its JSON, managedFields included", () => {
  const lease = decodeObject(LEASE_CODEC, bytes);
  assert.deepEqual(lease.metadata, LEASE_JSON.metadata);
  assert.deepEqual(lease.spec, LEASE_JSON.spec);
});

Deno.test("lease protobuf: managedFields round-trip; one empty entry is an empty message", () => {
  const lease = decodeObject(LEASE_CODEC, bytes);
  const back = decodeObject(LEASE_CODEC, encodeEnvelope(LEASE_CODEC, lease));
  assert.deepEqual(back.metadata?.managedFields, LEASE_JSON.metadata.managedFields);
  const reset: V1Lease = { metadata: { name: "n1", managedFields: [{}] }, spec: {} };
  const wire = encodeEnvelope(LEASE_CODEC, reset);
  // ObjectMeta field 17, length 0: what Go decodes as one ManagedFieldsEntry{}, the reset.
  const meta = [0x0a, 0x02, 0x6e, 0x31, 0x8a, 0x01, 0x00];
  assert.ok(
    wire.join(",").includes(meta.join(",")),
    `the metadata is name n1 then an empty field 17: ${wire.join(",")}`,
  );
  assert.deepEqual(decodeObject(LEASE_CODEC, wire).metadata?.managedFields, [{}]);
});

Deno.test("lease protobuf: encode then decode keeps what a renewal sends", () => {
  const lease: V1Lease = {
    metadata: {
      name: "n1",
      namespace: "kube-node-lease",
      uid: "u",
      resourceVersion: "42",
      labels: { a: "b" },
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: "nu" }],
    },
    spec: {
      holderIdentity: "n1",
      leaseDurationSeconds: 40,
      renewTime: "2026-11-28T05:59:28.123456Z" as unknown as Date,
    },
  };
  const back = decodeObject(LEASE_CODEC, encodeEnvelope(LEASE_CODEC, lease));
  assert.deepEqual(back.metadata, lease.metadata);
  assert.deepEqual(back.spec, lease.spec);
  // Smaller than its JSON, which is the point.
  assert.ok(encodeEnvelope(LEASE_CODEC, lease).length < JSON.stringify(lease).length);
});

Deno.test("lease protobuf: times keep their microseconds", () => {
  assert.deepEqual(parseTime("2026-11-28T05:59:28.000001Z"), {
    seconds: 1795845568,
    nanos: 1000,
  });
  assert.deepEqual(parseTime("2026-11-28T05:59:28Z"), { seconds: 1795845568, nanos: 0 });
});
