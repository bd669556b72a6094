/**
 * Field rules of the Pod, its spec and the pod-level types (the v1.37 API). Each rule says what
 * this node does with the field; see `_rules.ts` for the vocabulary. `satisfies` makes the
 * compiler insist on a rule for every field `@kubernetes/client-node` knows; fields newer than
 * that package are listed by name, and the field-walk test checks against the v1.37 schema.
 */
import type {
  V1Affinity,
  V1Pod,
  V1PodSecurityContext,
  V1PodSpec,
  V1WindowsSecurityContextOptions,
} from "@kubernetes/client-node";
import { type At, isSet, type Rule } from "./_rules.ts";

type Rules<T, Newer extends string = never> = Record<keyof T | Newer, Rule>;

export const POD = {
  apiVersion: "ok",
  kind: "ok",
  metadata: "ok",
  spec: { type: "PodSpec" },
  // Written by the node and the API server, never read as a request.
  status: "inert",
} satisfies Rules<V1Pod>;

export const POD_SPEC = {
  activeDeadlineSeconds: "ok",
  affinity: { type: "Affinity" },
  // The API server's service account admission acts on it, by adding the token volume or not.
  automountServiceAccountToken: "inert",
  containers: { type: "Container" },
  dnsConfig: "ok",
  dnsPolicy: "ok",
  enableServiceLinks: "ok",
  ephemeralContainers: { type: "EphemeralContainer" },
  // The Eviction API's responders: control-plane objects, nothing for the node to do.
  evictionResponders: "inert",
  hostAliases: "ok",
  hostIPC: "ok",
  hostNetwork: "ok",
  hostPID: "ok",
  // false: a user namespace (src/userns), or the sandbox fails where the runtime has none.
  hostUsers: "ok",
  hostname: "ok",
  hostnameOverride: "ok",
  // Read from the API mode's Secret cache; static pods cannot name Secrets (validation).
  imagePullSecrets: "ok",
  initContainers: { type: "Container" },
  nodeName: "ok",
  nodeSelector: "ok",
  os: "ok",
  overhead: "ok",
  // The scheduler's preemption; the kubelet reads only the priority itself.
  preemptionPolicy: "inert",
  priority: "ok",
  priorityClassName: "ok",
  readinessGates: "ok",
  resourceClaims: { refuse: "dynamic resource allocation (resource claims)" },
  // Pod-level resources (cpu, memory, hugepages): the same rules as a container's.
  resources: { type: "ResourceRequirements" },
  restartPolicy: "ok",
  runtimeClassName: {
    refuse: "a RuntimeClass in standalone mode (API mode runs its handler)",
    when: runtimeClassAsked,
  },
  schedulerName: "inert",
  schedulingGates: "inert",
  schedulingGroup: "inert",
  securityContext: { type: "PodSecurityContext" },
  serviceAccount: "ok",
  serviceAccountName: "ok",
  setHostnameAsFQDN: "ok",
  shareProcessNamespace: "ok",
  subdomain: "ok",
  terminationGracePeriodSeconds: "ok",
  // NoExecute taints are checked at admission; tolerationSeconds is the taint manager's.
  tolerations: "ok",
  topologySpreadConstraints: "inert",
  volumes: { type: "Volume" },
} satisfies Rules<V1PodSpec, "evictionResponders" | "schedulingGroup">;

/**
 * RuntimeClasses are API objects: in API mode the sandbox runs with the class's handler; a
 * static pod on a node without an API server cannot name one (upstream silently ignores it).
 */
function runtimeClassAsked(v: unknown, { ctx }: At): boolean | string {
  if (!isSet(v) || ctx.apiMode) return false;
  return "a RuntimeClass, which needs an API server (standalone mode has none)";
}

export const AFFINITY = {
  // requiredDuringScheduling is checked at admission; preferred terms are the scheduler's.
  nodeAffinity: "ok",
  podAffinity: "inert",
  podAntiAffinity: "inert",
} satisfies Rules<V1Affinity>;

export const POD_SECURITY_CONTEXT = {
  // Checked by the AppArmor admission handler (the host must enforce AppArmor).
  appArmorProfile: "ok",
  // Applied to emptyDir, configMap, secret, downwardAPI and projected volumes (src/volumes).
  fsGroup: "ok",
  // Upstream's plugins for the volume kinds served here ignore it (only CSI, local, fc, iscsi
  // and flexVolume honour it, all refused), so it changes nothing, as on the kubelet.
  fsGroupChangePolicy: "ok",
  runAsGroup: "ok",
  runAsNonRoot: "ok",
  runAsUser: "ok",
  seLinuxChangePolicy: "ok",
  seLinuxOptions: "ok",
  seccompProfile: "ok",
  supplementalGroups: "ok",
  // Strict needs the runtime's support; the admission handler refuses it as upstream does.
  supplementalGroupsPolicy: "ok",
  // Checked against the sysctl allowlist at admission (SysctlForbidden).
  sysctls: "ok",
  windowsOptions: { type: "WindowsSecurityContextOptions" },
} satisfies Rules<V1PodSecurityContext>;

/** Windows-only: a Linux kubelet ignores them, but a HostProcess container cannot run here. */
export const WINDOWS_OPTIONS = {
  gmsaCredentialSpec: "inert",
  gmsaCredentialSpecName: "inert",
  hostProcess: { refuse: "a Windows HostProcess container" },
  runAsUserName: "inert",
} satisfies Rules<V1WindowsSecurityContextOptions>;
