/** `/node`: the agent's v1 Node object (conditions, capacity, nodeInfo); 404 when not wired. */
import { NotFoundError } from "../util/errors.ts";
import { toKubeJson } from "./_json.ts";
import type { NodeApiDeps } from "./types.ts";

export async function handleNode(deps: NodeApiDeps, req: Request): Promise<Response> {
  if (deps.node === undefined) throw new NotFoundError("The node status is not enabled");
  const node = await deps.node({ signal: req.signal });
  return new Response(toKubeJson(node), { headers: { "content-type": "application/json" } });
}
