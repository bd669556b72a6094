// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// deno-lint-ignore-file no-explicit-any

import { enumName, enumValue, type ProtoReader, type ProtoWriter } from "../_wire.ts";
import { ContainerEventType_NAMES, ContainerEventType_VALUES } from "./enums.ts";

/** A message as the agent passes it: plain fields in lowerCamelCase. */
type Msg = Record<string, any>;

/** runtime.v1.GetEventsRequest */
export function encodeGetEventsRequest(_w: ProtoWriter, _m: Msg): void {
}

export function decodeGetEventsRequest(r: ProtoReader, end: number): Msg {
  const m: Msg = {};
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      default:
        r.skip(t & 7);
    }
  }
  return m;
}

/** runtime.v1.ContainerEventResponse */
export function encodeContainerEventResponse(w: ProtoWriter, m: Msg): void {
  let v: any;
  if ((v = m.containerId) != null && v !== "") {
    w.tag(1, 2);
    w.string(v);
  }
  if ((v = m.containerEventType) != null) {
    w.tag(2, 0);
    w.int32(enumValue(ContainerEventType_VALUES, v, "ContainerEventType"));
  }
  if ((v = m.createdAt) != null && v !== 0) {
    w.tag(3, 0);
    w.int64(v);
  }
}

export function decodeContainerEventResponse(r: ProtoReader, end: number): Msg {
  const m: Msg = { containerId: "", containerEventType: "CONTAINER_CREATED_EVENT", createdAt: 0 };
  while (r.pos < end) {
    const t = r.uint32();
    switch (t) {
      case 10:
        m.containerId = r.string();
        break;
      case 16:
        m.containerEventType = enumName(ContainerEventType_NAMES, r.int32());
        break;
      case 24:
        m.createdAt = r.int64();
        break;
      default:
        r.skip(t & 7);
    }
  }
  return m;
}
