/**
 * The API server's own account of what a node asked (its audit log at the Metadata level, for
 * the `system:nodes` group only): requests by verb and resource in a time window, the same for
 * the upstream kubelet as for denolet, whose encodings and connections the proxy cannot see into.
 */

/** An audit policy: Metadata for nodes, nothing for anyone else, no RequestReceived stage. */
export const NODE_AUDIT_POLICY = JSON.stringify({
  apiVersion: "audit.k8s.io/v1",
  kind: "Policy",
  omitStages: ["RequestReceived"],
  rules: [
    { level: "Metadata", userGroups: ["system:nodes"] },
    { level: "None" },
  ],
});

/** kube-apiserver flags that write the log to `logFile` with `policyFile`'s policy. */
export function auditFlags(policyFile: string, logFile: string): string[] {
  return [
    `--audit-policy-file=${policyFile}`,
    `--audit-log-path=${logFile}`,
    "--audit-log-format=json",
  ];
}

interface AuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string };
  requestURI?: string;
  stageTimestamp?: string;
}

/**
 * Requests of `user` whose stage ended in [fromMs, toMs) (wall clock), as `verb resource` →
 * count: a watch counts when it starts (ResponseStarted), anything else when it completes.
 * Non-resource requests (/livez) are keyed by their path. Lines that are not events are skipped.
 */
export function auditCounts(
  log: string,
  opts: { user: string; fromMs: number; toMs: number },
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of log.split("\n")) {
    if (!line.includes(opts.user)) continue;
    let e: AuditEvent;
    try {
      e = JSON.parse(line) as AuditEvent;
    } catch {
      continue; // a line cut by a rotation or a write under way
    }
    if (e.user?.username !== opts.user) continue;
    const watch = e.verb === "watch";
    if (e.stage !== (watch ? "ResponseStarted" : "ResponseComplete")) continue;
    const at = Date.parse(e.stageTimestamp ?? "");
    if (!(at >= opts.fromMs && at < opts.toMs)) continue;
    const ref = e.objectRef;
    const what = ref?.resource
      ? `${ref.resource}${ref.subresource ? `/${ref.subresource}` : ""}`
      : (e.requestURI ?? "?").split("?")[0];
    const key = `${e.verb} ${what}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}
