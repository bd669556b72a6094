// Generated from proto/grpc/health/v1/health.proto by tests/support/proto_text.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_text.ts

/** The text of proto/grpc/health/v1/health.proto, parsed by proto-loader at run time. */
export const HEALTH_PROTO: string =
  `// The gRPC health checking protocol, reduced to the unary Check that probes use.
// Wire-compatible with grpc/grpc-proto grpc/health/v1/health.proto (same package, service,
// message and field numbers); Watch is left out because the kubelet never calls it.
syntax = "proto3";

package grpc.health.v1;

message HealthCheckRequest {
  string service = 1;
}

message HealthCheckResponse {
  enum ServingStatus {
    UNKNOWN = 0;
    SERVING = 1;
    NOT_SERVING = 2;
    SERVICE_UNKNOWN = 3;  // Used only by the Watch method.
  }
  ServingStatus status = 1;
}

service Health {
  rpc Check(HealthCheckRequest) returns (HealthCheckResponse);
}
`;
