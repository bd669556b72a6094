// Generated from proto/runtime/v1/api.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts
// The codec's modules: enums, messages by the RPCs that use them, services (see proto_codec.ts).

export * from "./_codec/enums.ts";
export * from "./_codec/runtime_1.ts";
export * from "./_codec/runtime_2.ts";
export * from "./_codec/sandbox_1.ts";
export * from "./_codec/sandbox_2.ts";
export * from "./_codec/sandbox_3.ts";
export * from "./_codec/sandbox_4.ts";
export * from "./_codec/sandbox_5.ts";
export * from "./_codec/container_1.ts";
export * from "./_codec/container_2.ts";
export * from "./_codec/container_3.ts";
export * from "./_codec/container_4.ts";
export * from "./_codec/container_5.ts";
export * from "./_codec/streaming.ts";
export * from "./_codec/stats_1.ts";
export * from "./_codec/stats_2.ts";
export * from "./_codec/stats_3.ts";
export * from "./_codec/events.ts";
export * from "./_codec/image_1.ts";
export * from "./_codec/image_2.ts";
export * from "./_codec/runtime_service.ts";
export * from "./_codec/image_service.ts";
