/**
 * The JSON shape of a v1 Pod as the API server's typed decoder sees it: every field denolet
 * reads, with its type. Objects list only the fields with a known type; anything else is
 * ignored, as the non-strict decoder ignores unknown fields.
 */

export type Scalar = "string" | "bool" | "int32" | "int64" | "quantity" | "intOrString" | "any";
/** What one field holds. Object shapes list only the fields with a known type. */
export type Shape = Scalar | { list: Shape } | { map: Shape } | { obj: Fields };
export type Fields = { readonly [key: string]: Shape };

const list = (of: Shape): Shape => ({ list: of });
const map = (of: Shape): Shape => ({ map: of });
const obj = (fields: Fields): Shape => ({ obj: fields });
const strings = list("string");
const stringMap = map("string");
const quantityMap = map("quantity");
/** An object whose inner fields denolet never reads (still refused when it is not an object). */
const opaque = obj({});

const keyRef = obj({ name: "string", key: "string", optional: "bool" });
const nameRef = obj({ name: "string", optional: "bool" });
const fieldRef = obj({ apiVersion: "string", fieldPath: "string" });
const resourceFieldRef = obj({ containerName: "string", resource: "string", divisor: "quantity" });
const seLinuxOptions = obj({ user: "string", role: "string", type: "string", level: "string" });
const seccompProfile = obj({ type: "string", localhostProfile: "string" });
const appArmorProfile = obj({ type: "string", localhostProfile: "string" });
const windowsOptions = obj({
  gmsaCredentialSpecName: "string",
  gmsaCredentialSpec: "string",
  runAsUserName: "string",
  hostProcess: "bool",
});

const exec = obj({ command: strings });
const httpGet = obj({
  path: "string",
  port: "intOrString",
  host: "string",
  scheme: "string",
  httpHeaders: list(obj({ name: "string", value: "string" })),
});
const tcpSocket = obj({ port: "intOrString", host: "string" });
const probe = obj({
  exec,
  httpGet,
  tcpSocket,
  grpc: obj({ port: "int32", service: "string" }),
  initialDelaySeconds: "int32",
  timeoutSeconds: "int32",
  periodSeconds: "int32",
  successThreshold: "int32",
  failureThreshold: "int32",
  terminationGracePeriodSeconds: "int64",
});
const lifecycleHandler = obj({ exec, httpGet, tcpSocket, sleep: obj({ seconds: "int64" }) });

const container = obj({
  name: "string",
  image: "string",
  command: strings,
  args: strings,
  workingDir: "string",
  ports: list(obj({
    name: "string",
    hostPort: "int32",
    containerPort: "int32",
    protocol: "string",
    hostIP: "string",
  })),
  envFrom: list(obj({ prefix: "string", configMapRef: nameRef, secretRef: nameRef })),
  env: list(obj({
    name: "string",
    value: "string",
    valueFrom: obj({
      fieldRef,
      resourceFieldRef,
      configMapKeyRef: keyRef,
      secretKeyRef: keyRef,
      fileKeyRef: obj({ volumeName: "string", path: "string", key: "string", optional: "bool" }),
    }),
  })),
  resources: obj({
    limits: quantityMap,
    requests: quantityMap,
    claims: list(obj({ name: "string", request: "string" })),
  }),
  resizePolicy: list(obj({ resourceName: "string", restartPolicy: "string" })),
  restartPolicy: "string",
  restartPolicyRules: list(obj({
    action: "string",
    exitCodes: obj({ operator: "string", values: list("int32") }),
  })),
  volumeMounts: list(obj({
    name: "string",
    readOnly: "bool",
    recursiveReadOnly: "string",
    mountPath: "string",
    subPath: "string",
    mountPropagation: "string",
    subPathExpr: "string",
  })),
  volumeDevices: list(obj({ name: "string", devicePath: "string" })),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle: obj({ postStart: lifecycleHandler, preStop: lifecycleHandler, stopSignal: "string" }),
  terminationMessagePath: "string",
  terminationMessagePolicy: "string",
  imagePullPolicy: "string",
  securityContext: obj({
    capabilities: obj({ add: strings, drop: strings }),
    privileged: "bool",
    seLinuxOptions,
    windowsOptions,
    runAsUser: "int64",
    runAsGroup: "int64",
    runAsNonRoot: "bool",
    readOnlyRootFilesystem: "bool",
    allowPrivilegeEscalation: "bool",
    procMount: "string",
    seccompProfile,
    appArmorProfile,
  }),
  stdin: "bool",
  stdinOnce: "bool",
  tty: "bool",
  targetContainerName: "string",
});

const downwardAPIItems = list(obj({ path: "string", fieldRef, resourceFieldRef, mode: "int32" }));

const volume = obj({
  name: "string",
  hostPath: obj({ path: "string", type: "string" }),
  emptyDir: obj({ medium: "string", sizeLimit: "quantity" }),
  downwardAPI: obj({ items: downwardAPIItems, defaultMode: "int32" }),
  projected: obj({
    sources: list(obj({
      downwardAPI: obj({ items: downwardAPIItems }),
      secret: opaque,
      configMap: opaque,
      serviceAccountToken: opaque,
      clusterTrustBundle: opaque,
      podCertificate: opaque,
    })),
    defaultMode: "int32",
  }),
  image: obj({ reference: "string", pullPolicy: "string" }),
  secret: opaque,
  configMap: opaque,
  persistentVolumeClaim: opaque,
  ephemeral: opaque,
  csi: opaque,
  nfs: opaque,
  iscsi: opaque,
  fc: opaque,
  rbd: opaque,
  cephfs: opaque,
  cinder: opaque,
  flocker: opaque,
  flexVolume: opaque,
  gitRepo: opaque,
  glusterfs: opaque,
  gcePersistentDisk: opaque,
  awsElasticBlockStore: opaque,
  azureDisk: opaque,
  azureFile: opaque,
  vsphereVolume: opaque,
  quobyte: opaque,
  photonPersistentDisk: opaque,
  portworxVolume: opaque,
  scaleIO: opaque,
  storageos: opaque,
});

const podSpec = obj({
  volumes: list(volume),
  initContainers: list(container),
  containers: list(container),
  ephemeralContainers: list(container),
  restartPolicy: "string",
  terminationGracePeriodSeconds: "int64",
  activeDeadlineSeconds: "int64",
  dnsPolicy: "string",
  nodeSelector: stringMap,
  serviceAccountName: "string",
  serviceAccount: "string",
  automountServiceAccountToken: "bool",
  nodeName: "string",
  hostNetwork: "bool",
  hostPID: "bool",
  hostIPC: "bool",
  shareProcessNamespace: "bool",
  securityContext: obj({
    seLinuxOptions,
    windowsOptions,
    runAsUser: "int64",
    runAsGroup: "int64",
    runAsNonRoot: "bool",
    supplementalGroups: list("int64"),
    supplementalGroupsPolicy: "string",
    fsGroup: "int64",
    sysctls: list(obj({ name: "string", value: "string" })),
    fsGroupChangePolicy: "string",
    seccompProfile,
    appArmorProfile,
    seLinuxChangePolicy: "string",
  }),
  imagePullSecrets: list(obj({ name: "string" })),
  hostname: "string",
  subdomain: "string",
  setHostnameAsFQDN: "bool",
  affinity: opaque,
  schedulerName: "string",
  tolerations: list(obj({
    key: "string",
    operator: "string",
    value: "string",
    effect: "string",
    tolerationSeconds: "int64",
  })),
  hostAliases: list(obj({ ip: "string", hostnames: strings })),
  priorityClassName: "string",
  priority: "int32",
  dnsConfig: obj({
    nameservers: strings,
    searches: strings,
    options: list(obj({ name: "string", value: "string" })),
  }),
  readinessGates: list(obj({ conditionType: "string" })),
  runtimeClassName: "string",
  enableServiceLinks: "bool",
  preemptionPolicy: "string",
  overhead: quantityMap,
  topologySpreadConstraints: list(opaque),
  os: obj({ name: "string" }),
  hostUsers: "bool",
  schedulingGates: list(obj({ name: "string" })),
  resourceClaims: list(opaque),
  resources: obj({ limits: quantityMap, requests: quantityMap }),
});

const objectMeta = obj({
  name: "string",
  generateName: "string",
  namespace: "string",
  uid: "string",
  resourceVersion: "string",
  generation: "int64",
  // YAML 1.1 turns an unquoted date into a timestamp; its shape does not matter here.
  creationTimestamp: "any",
  deletionTimestamp: "any",
  deletionGracePeriodSeconds: "int64",
  labels: stringMap,
  annotations: stringMap,
  ownerReferences: list(opaque),
  finalizers: strings,
  managedFields: list(opaque),
});

/** The fields of a Pod with a known type; `status` is the kubelet's to write and not checked. */
export const POD_SHAPE: Shape = obj({
  apiVersion: "string",
  kind: "string",
  metadata: objectMeta,
  spec: podSpec,
});
