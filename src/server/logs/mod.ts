/** Container logs (`/containerLogs`) and the node's log directory (`/logs/`). */
export { type ContainerLogsDeps, handleContainerLogs, logContainerId } from "./container_logs.ts";
export { handleSystemLogs, type SystemLogsDeps } from "./system_logs.ts";
export { type LogReadDeps, type LogReadOptions, readContainerLogs } from "./reader.ts";
export { parsePodLogOptions, type PodLogOptions } from "./options.ts";
