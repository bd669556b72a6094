/** Field rules of containers and what they hold (the v1.37 API); see `_table_pod.ts`. */
import type {
  V1Container,
  V1EnvVar,
  V1EnvVarSource,
  V1EphemeralContainer,
  V1GRPCAction,
  V1HTTPGetAction,
  V1Lifecycle,
  V1LifecycleHandler,
  V1Probe,
  V1ResourceRequirements,
  V1SecurityContext,
  V1VolumeMount,
} from "@kubernetes/client-node";
import type { Rule } from "./_rules.ts";

type Rules<T, Newer extends string = never> = Record<keyof T | Newer, Rule>;

const CONTAINER_RULES = {
  args: "ok",
  command: "ok",
  env: { type: "EnvVar" },
  envFrom: "ok",
  image: "ok",
  imagePullPolicy: "ok",
  lifecycle: { type: "Lifecycle" },
  livenessProbe: { type: "Probe" },
  name: "ok",
  ports: "ok",
  readinessProbe: { type: "Probe" },
  // In-place resize: NotRequired resizes the running container, RestartContainer restarts it.
  resizePolicy: "ok",
  resources: { type: "ResourceRequirements" },
  // Always on an init container makes it a sidecar; any other value, with the rules, is
  // ContainerRestartRules (beta upstream).
  restartPolicy: "ok",
  restartPolicyRules: {
    refuse: "restarting every container when one exits (RestartAllContainers)",
    when: (v) =>
      Array.isArray(v) &&
      v.some((r) => (r as { action?: string } | null)?.action === "RestartAllContainers"),
  },
  securityContext: { type: "SecurityContext" },
  startupProbe: { type: "Probe" },
  stdin: "ok",
  stdinOnce: "ok",
  terminationMessagePath: "ok",
  terminationMessagePolicy: "ok",
  tty: "ok",
  volumeDevices: { refuse: "raw block devices (volumeDevices)" },
  volumeMounts: { type: "VolumeMount" },
  workingDir: "ok",
} satisfies Rules<V1Container>;

export const CONTAINER: Record<string, Rule> = CONTAINER_RULES;

export const EPHEMERAL_CONTAINER = {
  ...CONTAINER_RULES,
  targetContainerName: "ok",
} satisfies Rules<V1EphemeralContainer>;

export const ENV_VAR = {
  name: "ok",
  value: "ok",
  valueFrom: { type: "EnvVarSource" },
} satisfies Rules<V1EnvVar>;

export const ENV_VAR_SOURCE = {
  configMapKeyRef: "ok",
  fieldRef: "ok",
  fileKeyRef: "ok",
  resourceFieldRef: "ok",
  secretKeyRef: "ok",
} satisfies Rules<V1EnvVarSource>;

export const LIFECYCLE = {
  postStart: { type: "LifecycleHandler" },
  preStop: { type: "LifecycleHandler" },
  stopSignal: { refuse: "a stop signal" },
} satisfies Rules<V1Lifecycle>;

export const LIFECYCLE_HANDLER = {
  exec: "ok",
  httpGet: { type: "HTTPGetAction" },
  sleep: "ok",
  // Upstream fails a tcpSocket hook as an invalid handler; so does this node.
  tcpSocket: "ok",
} satisfies Rules<V1LifecycleHandler>;

export const PROBE = {
  exec: "ok",
  failureThreshold: "ok",
  grpc: { type: "GRPCAction" },
  httpGet: { type: "HTTPGetAction" },
  initialDelaySeconds: "ok",
  periodSeconds: "ok",
  successThreshold: "ok",
  tcpSocket: "ok",
  terminationGracePeriodSeconds: "ok",
  timeoutSeconds: "ok",
} satisfies Rules<V1Probe>;

export const GRPC_ACTION = {
  mode: { refuse: "gRPC probes over TLS", when: (v) => v === "TLS" },
  port: "ok",
  service: "ok",
} satisfies Rules<V1GRPCAction, "mode">;

export const HTTP_GET_ACTION = {
  host: "ok",
  httpHeaders: "ok",
  path: "ok",
  port: "ok",
  protocol: { refuse: "HTTP/2 probes", when: (v) => v === "HTTP2" },
  scheme: "ok",
} satisfies Rules<V1HTTPGetAction, "protocol">;

export const RESOURCE_REQUIREMENTS = {
  claims: { refuse: "dynamic resource allocation (resource claims)" },
  // hugepages-<size> limits reach the runtime and the pod cgroup's hugetlb limits;
  // ephemeral-storage limits are enforced by eviction (localStorageCapacityIsolation).
  limits: "ok",
  requests: "ok",
} satisfies Rules<V1ResourceRequirements>;

export const SECURITY_CONTEXT = {
  allowPrivilegeEscalation: "ok",
  // Checked by the AppArmor admission handler (the host must enforce AppArmor).
  appArmorProfile: "ok",
  capabilities: "ok",
  privileged: "ok",
  // Unmasked is valid only with hostUsers: false, which the pod spec's rule decides.
  procMount: "ok",
  readOnlyRootFilesystem: "ok",
  runAsGroup: "ok",
  runAsNonRoot: "ok",
  runAsUser: "ok",
  seLinuxOptions: "ok",
  seccompProfile: "ok",
  windowsOptions: { type: "WindowsSecurityContextOptions" },
} satisfies Rules<V1SecurityContext>;

export const VOLUME_MOUNT = {
  bindMountOptions: { refuse: "bind mount options" },
  mountPath: "ok",
  mountPropagation: "ok",
  name: "ok",
  readOnly: "ok",
  // Resolved against the pod's runtime handler when the container is made (src/volumes
  // containerMounts): Enabled without the runtime's support fails it as upstream does.
  recursiveReadOnly: "ok",
  subPath: "ok",
  subPathExpr: "ok",
} satisfies Rules<V1VolumeMount, "bindMountOptions">;
