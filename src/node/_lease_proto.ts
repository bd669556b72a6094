/**
 * The node Lease (coordination.k8s.io/v1) in the API server's protobuf form: renewed every 10 s,
 * it is most of an idle node's traffic, and protobuf halves it as it does for the kubelet. Field
 * numbers are k8s.io/api's generated.proto (Lease, LeaseSpec) and apimachinery's (ObjectMeta,
 * OwnerReference, ManagedFieldsEntry, Time, MicroTime). What the agent reads and must send back
 * is kept, managedFields included (a renewal strips them with one empty entry, see lease.ts); the
 * rest is skipped.
 */
import type {
  V1Lease,
  V1ManagedFieldsEntry,
  V1ObjectMeta,
  V1OwnerReference,
} from "@kubernetes/client-node";
import type { ProtobufCodec } from "../apiclient/protobuf.ts";
import {
  type ProtoReader,
  type ProtoWriter,
  readStringMapEntry,
  writeStringMap,
} from "../cri/_wire.ts";

function str(w: ProtoWriter, field: number, v: string | undefined): void {
  if (v === undefined || v === null) return;
  w.tag(field, 2);
  w.string(v);
}

function varint(w: ProtoWriter, field: number, v: number | undefined): void {
  if (v === undefined || v === null) return;
  w.tag(field, 0);
  w.int64(v);
}

/** RFC 3339 with up to nanoseconds → seconds and nanos since the epoch. */
export function parseTime(t: Date | string): { seconds: number; nanos: number } {
  if (t instanceof Date) {
    const ms = t.getTime();
    return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 };
  }
  const m = /^(.*?)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(t);
  const whole = Date.parse(m ? `${m[1]}${m[3]}` : t);
  const nanos = m?.[2] ? Number(m[2].padEnd(9, "0")) : 0;
  return { seconds: Math.floor(whole / 1000), nanos };
}

/** metav1.MicroTime's JSON form: microseconds, UTC. */
function microTimeText(seconds: number, nanos: number): string {
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z`;
}

/** metav1.Time's JSON form: whole seconds, UTC. */
function timeText(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function writeTime(w: ProtoWriter, field: number, t: Date | string | undefined): void {
  if (t === undefined || t === null) return;
  const { seconds, nanos } = parseTime(t);
  w.tag(field, 2);
  const at = w.open();
  varint(w, 1, seconds);
  if (nanos) varint(w, 2, nanos);
  w.close(at);
}

function readTime(r: ProtoReader): { seconds: number; nanos: number } {
  const end = r.end();
  let seconds = 0;
  let nanos = 0;
  while (r.pos < end) {
    const t = r.uint32();
    if (t === 8) seconds = r.int64();
    else if (t === 16) nanos = r.int32();
    else r.skip(t & 7);
  }
  return { seconds, nanos };
}

function writeOwner(w: ProtoWriter, o: V1OwnerReference): void {
  w.tag(13, 2);
  const at = w.open();
  str(w, 1, o.kind);
  str(w, 3, o.name);
  str(w, 4, o.uid);
  str(w, 5, o.apiVersion);
  if (o.controller !== undefined && o.controller !== null) {
    w.tag(6, 0);
    w.bool(o.controller);
  }
  if (o.blockOwnerDeletion !== undefined && o.blockOwnerDeletion !== null) {
    w.tag(7, 0);
    w.bool(o.blockOwnerDeletion);
  }
  w.close(at);
}

function readOwner(r: ProtoReader): V1OwnerReference {
  const end = r.end();
  const o = { kind: "", name: "", uid: "", apiVersion: "" } as V1OwnerReference;
  while (r.pos < end) {
    const t = r.uint32();
    if (t === 10) o.kind = r.string();
    else if (t === 26) o.name = r.string();
    else if (t === 34) o.uid = r.string();
    else if (t === 42) o.apiVersion = r.string();
    else if (t === 48) o.controller = r.bool();
    else if (t === 56) o.blockOwnerDeletion = r.bool();
    else r.skip(t & 7);
  }
  return o;
}

/** One entry; `{}` is an empty message, the reset that strips an object's managedFields. */
function writeManagedFields(w: ProtoWriter, f: V1ManagedFieldsEntry): void {
  w.tag(17, 2);
  const at = w.open();
  str(w, 1, f.manager);
  str(w, 2, f.operation);
  str(w, 3, f.apiVersion);
  writeTime(w, 4, f.time);
  str(w, 6, f.fieldsType);
  if (f.fieldsV1 !== undefined && f.fieldsV1 !== null) {
    w.tag(7, 2);
    const raw = w.open();
    w.tag(1, 2);
    w.bytes(new TextEncoder().encode(JSON.stringify(f.fieldsV1)));
    w.close(raw);
  }
  str(w, 8, f.subresource);
  w.close(at);
}

function readManagedFields(r: ProtoReader): V1ManagedFieldsEntry {
  const end = r.end();
  const f: V1ManagedFieldsEntry = {};
  // Go sends its empty strings; JSON leaves them out (omitempty), and so does this.
  const text = (v: string) => v === "" ? undefined : v;
  while (r.pos < end) {
    const t = r.uint32();
    if (t === 10) f.manager = text(r.string());
    else if (t === 18) f.operation = text(r.string());
    else if (t === 26) f.apiVersion = text(r.string());
    else if (t === 34) f.time = timeText(readTime(r).seconds) as unknown as Date;
    else if (t === 50) f.fieldsType = text(r.string());
    else if (t === 58) {
      const rawEnd = r.end();
      while (r.pos < rawEnd) {
        const u = r.uint32();
        if (u === 10) f.fieldsV1 = JSON.parse(new TextDecoder().decode(r.bytes()));
        else r.skip(u & 7);
      }
    } else if (t === 66) f.subresource = text(r.string());
    else r.skip(t & 7);
  }
  for (const k of Object.keys(f) as (keyof V1ManagedFieldsEntry)[]) {
    if (f[k] === undefined) delete f[k];
  }
  return f;
}

function writeMeta(w: ProtoWriter, m: V1ObjectMeta): void {
  w.tag(1, 2);
  const at = w.open();
  str(w, 1, m.name);
  str(w, 3, m.namespace);
  str(w, 5, m.uid);
  str(w, 6, m.resourceVersion);
  if (m.labels) writeStringMap(w, 11, m.labels);
  if (m.annotations) writeStringMap(w, 12, m.annotations);
  for (const o of m.ownerReferences ?? []) writeOwner(w, o);
  for (const f of m.finalizers ?? []) str(w, 14, f);
  for (const f of m.managedFields ?? []) writeManagedFields(w, f);
  w.close(at);
}

function readMeta(r: ProtoReader): V1ObjectMeta {
  const end = r.end();
  const m: V1ObjectMeta = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.name = r.string();
        break;
      case 26:
        m.namespace = r.string();
        break;
      case 42:
        m.uid = r.string();
        break;
      case 50:
        m.resourceVersion = r.string();
        break;
      case 56: {
        // Sent as 0 when unset (a proto2 int64, not a pointer); JSON leaves it out.
        const g = r.int64();
        if (g !== 0) m.generation = g;
        break;
      }
      case 66:
        m.creationTimestamp = timeText(readTime(r).seconds) as unknown as Date;
        break;
      case 90:
        readStringMapEntry(r, m.labels ??= {});
        break;
      case 98:
        readStringMapEntry(r, m.annotations ??= {});
        break;
      case 106:
        (m.ownerReferences ??= []).push(readOwner(r));
        break;
      case 114:
        (m.finalizers ??= []).push(r.string());
        break;
      case 138:
        (m.managedFields ??= []).push(readManagedFields(r));
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

export const LEASE_CODEC: ProtobufCodec<V1Lease> = {
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  encode(w, lease) {
    writeMeta(w, lease.metadata ?? {});
    const s = lease.spec ?? {};
    w.tag(2, 2);
    const at = w.open();
    str(w, 1, s.holderIdentity);
    varint(w, 2, s.leaseDurationSeconds);
    writeTime(w, 3, s.acquireTime);
    writeTime(w, 4, s.renewTime);
    varint(w, 5, s.leaseTransitions);
    str(w, 6, s.strategy);
    str(w, 7, s.preferredHolder);
    w.close(at);
  },
  decode(r, end) {
    const lease: V1Lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", spec: {} };
    while (r.pos < end) {
      const t = r.uint32();
      if (t === 10) lease.metadata = readMeta(r);
      else if (t === 18) {
        const specEnd = r.end();
        const s = lease.spec!;
        while (r.pos < specEnd) {
          const u = r.uint32();
          if (u === 10) s.holderIdentity = r.string();
          else if (u === 16) s.leaseDurationSeconds = r.int32();
          else if (u === 26 || u === 34) {
            const { seconds, nanos } = readTime(r);
            const text = microTimeText(seconds, nanos) as unknown as Date;
            if (u === 26) s.acquireTime = text;
            else s.renewTime = text;
          } else if (u === 40) s.leaseTransitions = r.int32();
          else if (u === 50) s.strategy = r.string();
          else if (u === 58) s.preferredHolder = r.string();
          else r.skip(u & 7);
        }
      } else r.skip(t & 7);
    }
    return lease;
  },
};
