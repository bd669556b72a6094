/**
 * Node selector terms as upstream's corev1 MatchNodeSelectorTerms reads them: the terms are
 * ORed, a term's label requirements and field requirements ANDed; a term that is empty or does
 * not parse matches nothing. Pod node affinity (admission) and PersistentVolume node affinity
 * (volume mounts) both use it.
 */
import type {
  V1Node,
  V1NodeSelectorRequirement,
  V1NodeSelectorTerm,
} from "@kubernetes/client-node";

/** Whether any of `terms` matches `node`. */
export function nodeSelectorTermsMatch(terms: V1NodeSelectorTerm[], node: V1Node): boolean {
  return terms.some((t) => termMatches(t, node));
}

function termMatches(term: V1NodeSelectorTerm, node: V1Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  return exprs.every((r) => requirementMatches(r, labels)) &&
    fields.every((r) => fieldMatches(r, node.metadata?.name ?? ""));
}

/** labels.Requirement semantics; a malformed requirement (wrong value count) never matches. */
function requirementMatches(r: V1NodeSelectorRequirement, labels: Record<string, string>) {
  const values = r.values ?? [];
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.operator) {
    case "In":
      return values.length > 0 && has && values.includes(value);
    case "NotIn":
      return values.length > 0 && (!has || !values.includes(value));
    case "Exists":
      return values.length === 0 && has;
    case "DoesNotExist":
      return values.length === 0 && !has;
    case "Gt":
    case "Lt": {
      if (values.length !== 1 || !has) return false;
      const want = parseInt64(values[0]);
      const got = parseInt64(value);
      if (want === undefined || got === undefined) return false;
      return r.operator === "Gt" ? got > want : got < want;
    }
    default:
      return false;
  }
}

function parseInt64(s: string): bigint | undefined {
  return /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined;
}

/** Only `metadata.name` is a node field selectors may use, with In/NotIn and one value. */
function fieldMatches(r: V1NodeSelectorRequirement, nodeName: string): boolean {
  const values = r.values ?? [];
  if (r.key !== "metadata.name" || values.length !== 1) return false;
  if (r.operator === "In") return nodeName === values[0];
  if (r.operator === "NotIn") return nodeName !== values[0];
  return false;
}
