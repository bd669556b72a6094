/**
 * The end of an agent restart test: two agents in a row on one state dir (root dir, static
 * pods, pod logs), the first killed so that its pods stay for the second to adopt.
 */
import { createCriClient } from "../../src/cri/mod.ts";
import { removeAgentSandboxes } from "../support/agent.ts";
import { devRuntime } from "../support/containerd.ts";
import type { E2E } from "./_helpers.ts";

export interface RestartAgents {
  /** Still set when the test failed before handing over: killed, its state kept. */
  first?: E2E;
  second?: E2E;
  /** The shared state dir, removed last. */
  base: string;
  /** Whatever happened, remove every sandbox of this node (the agents' node name). */
  removeSandboxesOf?: string;
}

/** Stops both agents and removes what they shared; a state dir that will not go is reported. */
export async function closeRestartAgents(o: RestartAgents): Promise<void> {
  if (o.first) {
    o.first.agent.kill("SIGKILL");
    await o.first.close({ keepState: true });
  }
  if (o.second) await o.second.close();
  if (o.removeSandboxesOf) {
    const cri = createCriClient(devRuntime().endpoint, { timeoutMs: 30_000 });
    try {
      await removeAgentSandboxes(cri.runtime, o.removeSandboxesOf);
    } finally {
      cri.close();
    }
  }
  await Deno.remove(o.base, { recursive: true }).catch((err) =>
    console.error(`[denolet-e2e] cannot remove ${o.base}: ${(err as Error).message}`)
  );
}
