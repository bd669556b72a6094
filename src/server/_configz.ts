/**
 * `/configz`: the running configuration under upstream's KubeletConfiguration names (durations
 * as Go strings), the way `kubectl get --raw /api/v1/nodes/<node>/proxy/configz` shows a
 * kubelet's: every field the config file takes. Flag-only settings (root dir, node name,
 * kubeconfig, ...) are not part of it.
 */
import { configDocument } from "../config/mod.ts";
import type { AgentConfig } from "../config/types.ts";

export function configzView(c: AgentConfig): Record<string, unknown> {
  return { enableServer: true, ...configDocument(c) };
}
