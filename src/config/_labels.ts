/**
 * Label syntax (apimachinery's IsQualifiedName and IsValidLabelValue), shared by --node-labels and
 * the taints, and the kubernetes.io label namespaces a node may set on itself.
 */

/** A qualified name's name part: at most 63 alphanumerics, '-', '_' or '.', alphanumeric ends. */
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** A label value: empty, or the same shape as a name. */
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `name` or `prefix/name`, the prefix a DNS subdomain (label keys, taint keys). */
export function isQualifiedName(key: string): boolean {
  const slash = key.lastIndexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  const prefixOk = prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
  return prefixOk && NAME.test(name);
}

export function isLabelValue(value: string): boolean {
  return VALUE.test(value);
}

/** Labels of the kubernetes.io and k8s.io namespaces a node may set on itself (upstream kubeletapis). */
const KNOWN_NODE_LABELS = new Set([
  "kubernetes.io/hostname",
  "kubernetes.io/os",
  "kubernetes.io/arch",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/arch",
  "beta.kubernetes.io/instance-type",
  "node.kubernetes.io/instance-type",
  "failure-domain.beta.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "topology.kubernetes.io/zone",
]);
const ALLOWED_NODE_LABEL_NAMESPACES = ["kubelet.kubernetes.io", "node.kubernetes.io"];

/** NodeRestriction would refuse the registration: a kubernetes.io/k8s.io label not on the list. */
export function isForbiddenNodeLabel(key: string): boolean {
  const slash = key.lastIndexOf("/");
  if (slash < 0) return false;
  const prefix = key.slice(0, slash);
  const inK8s = (ns: string) => prefix === ns || prefix.endsWith(`.${ns}`);
  if (!inK8s("kubernetes.io") && !inK8s("k8s.io")) return false;
  if (KNOWN_NODE_LABELS.has(key)) return false;
  return !ALLOWED_NODE_LABEL_NAMESPACES.some(inK8s);
}
