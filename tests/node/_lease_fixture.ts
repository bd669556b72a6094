/**
 * A node Lease as the v1.37.2 API server sent it, in protobuf and in JSON (captured from the test
 * control plane with Accept headers; the lease was written by denolet).
 */
export const LEASE_PROTOBUF_BASE64 =
  "azhzAAofChZjb29yZGluYXRpb24uazhzLmlvL3YxEgVMZWFzZRLEAwqeAwoPZTJlLW5vZGUtOTAwMy0xEgAaD2t1YmUtbm9kZS1sZWFzZSIAKiQ0NGM0Y2U3NC00ZmI1LTRmOTktOTkyMi1lNDZiNzE5NzM0MjkyAzI4MDgAQggIttup2AYQAGpBCgROb2RlGg9lMmUtbm9kZS05MDAzLTEiJDMzMDZhYjg3LWVlNTYtNDE0NS04MDBlLTFjZGUxMWRhY2E3NyoCdjGKAfoBCgdkZW5vbGV0EgZVcGRhdGUaFmNvb3JkaW5hdGlvbi5rOHMuaW8vdjEiCAjA26nYBhAAMghGaWVsZHNWMTq4AQq1AXsiZjptZXRhZGF0YSI6eyJmOm93bmVyUmVmZXJlbmNlcyI6eyIuIjp7fSwiazp7XCJ1aWRcIjpcIjMzMDZhYjg3LWVlNTYtNDE0NS04MDBlLTFjZGUxMWRhY2E3N1wifSI6e319fSwiZjpzcGVjIjp7ImY6aG9sZGVySWRlbnRpdHkiOnt9LCJmOmxlYXNlRHVyYXRpb25TZWNvbmRzIjp7fSwiZjpyZW5ld1RpbWUiOnt9fX1CABIhCg9lMmUtbm9kZS05MDAzLTEQKCIMCMDbqdgGEID+tYcBGgAiAA==";

export const LEASE_JSON = {
  "kind": "Lease",
  "apiVersion": "coordination.k8s.io/v1",
  "metadata": {
    "name": "e2e-node-9003-1",
    "namespace": "kube-node-lease",
    "uid": "44c4ce74-4fb5-4f99-9922-e46b71973429",
    "resourceVersion": "280",
    "creationTimestamp": "2026-11-28T05:59:18Z",
    "ownerReferences": [
      {
        "apiVersion": "v1",
        "kind": "Node",
        "name": "e2e-node-9003-1",
        "uid": "3306ab87-ee56-4145-800e-1cde11daca77",
      },
    ],
    "managedFields": [
      {
        "manager": "denolet",
        "operation": "Update",
        "apiVersion": "coordination.k8s.io/v1",
        "time": "2026-11-28T05:59:28Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": {
          "f:metadata": {
            "f:ownerReferences": {
              ".": {},
              'k:{"uid":"3306ab87-ee56-4145-800e-1cde11daca77"}': {},
            },
          },
          "f:spec": {
            "f:holderIdentity": {},
            "f:leaseDurationSeconds": {},
            "f:renewTime": {},
          },
        },
      },
    ],
  },
  "spec": {
    "holderIdentity": "e2e-node-9003-1",
    "leaseDurationSeconds": 40,
    "renewTime": "2026-11-28T05:59:28.284000Z",
  },
};
