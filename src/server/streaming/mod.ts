/** Exec, attach, port-forward and run on the node API, proxied to the runtime's stream server. */
export {
  handleAttach,
  handleExec,
  handlePortForward,
  handleRun,
  type StreamingDeps,
  type StreamTarget,
  SWITCHED,
} from "./handlers.ts";
export { type Dial, type Duplex, proxyUpgrade, requestHead, tcpDial } from "./proxy.ts";
export { forwardedPorts, isUpgradeRequest, isWebSocketRequest, streamFlags } from "./options.ts";
