/**
 * Events about pods and the node (Pulling, Started, Killing, Unhealthy, Evicted, NodeReady, ...)
 * with upstream's reasons. Standalone, they are log lines; in API mode they are Events.
 */
export {
  type EventRecorder,
  type EventType,
  nullRecorder,
  type ObjectRef,
  podObjectRef,
} from "./types.ts";
export { type ApiEventRecorder, createApiEventRecorder } from "./api_recorder.ts";
