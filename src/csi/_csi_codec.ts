// Generated from proto/csi/v1/csi.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// The codec's modules: enums, messages by the RPCs that use them, services (see proto_codec.ts).

export * from "./_csi_codec/enums.ts";
export * from "./_csi_codec/plugin.ts";
export * from "./_csi_codec/stage.ts";
export * from "./_csi_codec/volumes_1.ts";
export * from "./_csi_codec/volumes_2.ts";
export * from "./_csi_codec/publish.ts";
export * from "./_csi_codec/identity.ts";
export * from "./_csi_codec/node.ts";
