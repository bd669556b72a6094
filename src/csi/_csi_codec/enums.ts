// Generated from proto/csi/v1/csi.proto by tests/support/proto_codec.ts; do not edit.
// Regenerate after changing the proto: deno run -A tests/support/proto_codec.ts

/** csi.v1.PluginCapability.Service.Type */
export const PluginCapability_Service_Type_VALUES: Record<string, number> = {
  "UNKNOWN": 0,
  "CONTROLLER_SERVICE": 1,
  "VOLUME_ACCESSIBILITY_CONSTRAINTS": 2,
  "GROUP_CONTROLLER_SERVICE": 3,
  "SNAPSHOT_METADATA_SERVICE": 4,
};
export const PluginCapability_Service_Type_NAMES: readonly string[] = [
  "UNKNOWN",
  "CONTROLLER_SERVICE",
  "VOLUME_ACCESSIBILITY_CONSTRAINTS",
  "GROUP_CONTROLLER_SERVICE",
  "SNAPSHOT_METADATA_SERVICE",
];

/** csi.v1.PluginCapability.VolumeExpansion.Type */
export const PluginCapability_VolumeExpansion_Type_VALUES: Record<string, number> = {
  "UNKNOWN": 0,
  "ONLINE": 1,
  "OFFLINE": 2,
};
export const PluginCapability_VolumeExpansion_Type_NAMES: readonly string[] = [
  "UNKNOWN",
  "ONLINE",
  "OFFLINE",
];

/** csi.v1.VolumeCapability.AccessMode.Mode */
export const VolumeCapability_AccessMode_Mode_VALUES: Record<string, number> = {
  "UNKNOWN": 0,
  "SINGLE_NODE_WRITER": 1,
  "SINGLE_NODE_READER_ONLY": 2,
  "MULTI_NODE_READER_ONLY": 3,
  "MULTI_NODE_SINGLE_WRITER": 4,
  "MULTI_NODE_MULTI_WRITER": 5,
  "SINGLE_NODE_SINGLE_WRITER": 6,
  "SINGLE_NODE_MULTI_WRITER": 7,
};
export const VolumeCapability_AccessMode_Mode_NAMES: readonly string[] = [
  "UNKNOWN",
  "SINGLE_NODE_WRITER",
  "SINGLE_NODE_READER_ONLY",
  "MULTI_NODE_READER_ONLY",
  "MULTI_NODE_SINGLE_WRITER",
  "MULTI_NODE_MULTI_WRITER",
  "SINGLE_NODE_SINGLE_WRITER",
  "SINGLE_NODE_MULTI_WRITER",
];

/** csi.v1.VolumeUsage.Unit */
export const VolumeUsage_Unit_VALUES: Record<string, number> = {
  "UNKNOWN": 0,
  "BYTES": 1,
  "INODES": 2,
};
export const VolumeUsage_Unit_NAMES: readonly string[] = ["UNKNOWN", "BYTES", "INODES"];

/** csi.v1.NodeServiceCapability.RPC.Type */
export const NodeServiceCapability_RPC_Type_VALUES: Record<string, number> = {
  "UNKNOWN": 0,
  "STAGE_UNSTAGE_VOLUME": 1,
  "GET_VOLUME_STATS": 2,
  "EXPAND_VOLUME": 3,
  "VOLUME_CONDITION": 4,
  "SINGLE_NODE_MULTI_WRITER": 5,
  "VOLUME_MOUNT_GROUP": 6,
};
export const NodeServiceCapability_RPC_Type_NAMES: readonly string[] = [
  "UNKNOWN",
  "STAGE_UNSTAGE_VOLUME",
  "GET_VOLUME_STATS",
  "EXPAND_VOLUME",
  "VOLUME_CONDITION",
  "SINGLE_NODE_MULTI_WRITER",
  "VOLUME_MOUNT_GROUP",
];

/** csi.v1.BlockMetadataType */
export const BlockMetadataType_VALUES: Record<string, number> = {
  "UNKNOWN": 0,
  "FIXED_LENGTH": 1,
  "VARIABLE_LENGTH": 2,
};
export const BlockMetadataType_NAMES: readonly string[] = [
  "UNKNOWN",
  "FIXED_LENGTH",
  "VARIABLE_LENGTH",
];
