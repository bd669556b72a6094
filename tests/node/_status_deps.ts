/** The node status provider's deps as its tests start from: node `edge-1` at 10.0.0.5. */
import type { NodeStatusDeps } from "../../src/node/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";

/** `over` on top of a Ready node with a fake clock (host roots: the provider's default). */
export function statusDeps(over: Partial<NodeStatusDeps> = {}): NodeStatusDeps {
  return {
    nodeName: "edge-1",
    hostname: "edge-1",
    nodeIPs: ["10.0.0.5"],
    clock: new FakeClock(),
    logger: nullLogger,
    agentVersion: "0.1.0",
    port: 10250,
    readinessErrors: () => [],
    ...over,
  };
}
