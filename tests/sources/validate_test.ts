import assert from "node:assert/strict";
import { staticPodFromManifest } from "../../src/sources/mod.ts";
import { validatePod } from "../../src/sources/_validate.ts";
import { InvalidManifestError } from "../../src/util/errors.ts";

type Json = Record<string, unknown>;

/** A valid pod touching every part of the spec the cases below break. */
function basePod(): Json {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default", labels: { app: "web" } },
    spec: {
      volumes: [
        { name: "data", emptyDir: { sizeLimit: "1Gi" } },
        { name: "host", hostPath: { path: "/var/log", type: "Directory" } },
        {
          name: "info",
          downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] },
        },
      ],
      initContainers: [{ name: "init", image: "busybox:1.36", command: ["true"] }],
      containers: [{
        name: "main",
        image: "busybox:1.36",
        command: ["sh", "-c", "sleep 1d"],
        args: ["x"],
        workingDir: "/work",
        ports: [{ name: "http", containerPort: 8080, hostPort: 18080 }],
        env: [
          { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "MEM", valueFrom: { resourceFieldRef: { resource: "limits.memory" } } },
        ],
        volumeMounts: [{ name: "data", mountPath: "/data" }, { name: "host", mountPath: "/h" }],
        resources: { limits: { cpu: "500m", memory: "64Mi" }, requests: { cpu: 0.1 } },
        securityContext: { capabilities: { add: ["NET_ADMIN"] }, runAsUser: 1000 },
        readinessProbe: { httpGet: { path: "/", port: "http" }, periodSeconds: 5 },
        livenessProbe: { tcpSocket: { port: 8080 } },
        lifecycle: { preStop: { exec: { command: ["true"] } } },
      }],
    },
  };
}

/** Sets `value` at a dotted path with [n] indexes, creating objects on the way. */
function set(obj: Json, path: string, value: unknown): Json {
  const keys = path.replace(/\[(\d+)\]/g, ".$1").split(".");
  let cur = obj as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== "object" || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys.at(-1)!] = value;
  return obj;
}

function errorsOf(edit: (p: Json) => void): string[] {
  const pod = basePod();
  edit(pod);
  return validatePod(pod);
}

const c0 = "spec.containers[0]";

/** [what is wrong, the edit, the error that must come out (field path first)]. */
const MALFORMED: Array<[string, (p: Json) => void, string]> = [
  // The four.
  [
    "a string as securityContext",
    (p) => set(p, `${c0}.securityContext`, "x"),
    `${c0}.securityContext: must be an object, got string`,
  ],
  [
    "an object as httpGet.port",
    (p) => set(p, `${c0}.readinessProbe.httpGet.port`, {}),
    `${c0}.readinessProbe.httpGet.port: must be an integer or a string, got object`,
  ],
  [
    "a null capability",
    (p) => set(p, `${c0}.securityContext.capabilities.add`, [null]),
    `${c0}.securityContext.capabilities.add[0]: must be a string, got null`,
  ],
  [
    "fieldRef: null leaves valueFrom without a source",
    (p) => set(p, `${c0}.env[0].valueFrom.fieldRef`, null),
    `${c0}.env[0].valueFrom: Invalid value: "": must specify one of`,
  ],
  // Wrong JSON types.
  [
    "containers as an object",
    (p) => set(p, "spec.containers", {}),
    "spec.containers: must be a list, got object",
  ],
  [
    "a null container",
    (p) => set(p, "spec.containers", [null]),
    "spec.containers[0]: must be an object, got null",
  ],
  [
    "command as a string",
    (p) => set(p, `${c0}.command`, "sleep 1d"),
    `${c0}.command: must be a list, got string`,
  ],
  [
    "a number in args",
    (p) => set(p, `${c0}.args`, [1]),
    `${c0}.args[0]: must be a string, got integer`,
  ],
  [
    "a fractional port",
    (p) => set(p, `${c0}.ports[0].containerPort`, 80.5),
    `${c0}.ports[0].containerPort: must be an integer, got number 80.5`,
  ],
  [
    "a string runAsUser",
    (p) => set(p, `${c0}.securityContext.runAsUser`, "root"),
    `${c0}.securityContext.runAsUser: must be an integer, got string`,
  ],
  [
    "a string privileged",
    (p) => set(p, `${c0}.securityContext.privileged`, "true"),
    `${c0}.securityContext.privileged: must be a boolean, got string`,
  ],
  [
    "a null label value",
    (p) => set(p, "metadata.labels", { app: null }),
    "metadata.labels[app]: must be a string, got null",
  ],
  [
    "a boolean annotation",
    (p) => set(p, "metadata.annotations", { a: true }),
    "metadata.annotations[a]: must be a string, got boolean",
  ],
  [
    "limits as a list",
    (p) => set(p, `${c0}.resources.limits`, ["1"]),
    `${c0}.resources.limits: must be a map, got list`,
  ],
  [
    "an unparsable quantity",
    (p) => set(p, `${c0}.resources.limits.cpu`, "lots"),
    `${c0}.resources.limits[cpu]: Invalid value: "lots"`,
  ],
  [
    "a string grace period",
    (p) => set(p, "spec.terminationGracePeriodSeconds", "30"),
    "spec.terminationGracePeriodSeconds: must be an integer, got string",
  ],
  [
    "a string hostNetwork",
    (p) => set(p, "spec.hostNetwork", "yes"),
    "spec.hostNetwork: must be a boolean, got string",
  ],
  [
    "a priority beyond int32",
    (p) => set(p, "spec.priority", 2 ** 31),
    "spec.priority: Invalid value: 2147483648: must fit in a 32-bit integer",
  ],
  [
    "a postStart string",
    (p) => set(p, `${c0}.lifecycle.postStart`, "echo"),
    `${c0}.lifecycle.postStart: must be an object, got string`,
  ],
  [
    "an unquoted date as an env value",
    (p) => set(p, `${c0}.env[0]`, { name: "D", value: new Date(0) }),
    `${c0}.env[0].value: must be a string, got timestamp`,
  ],
  [
    "a null volume",
    (p) => set(p, "spec.volumes", [null]),
    "spec.volumes[0]: must be an object, got null",
  ],
  // Names that become path components.
  [
    "a uid with backsteps",
    (p) => set(p, "metadata.uid", "../../etc"),
    'metadata.uid: Invalid value: "../../etc": must be a single path component',
  ],
  [
    "a uid that is ..",
    (p) => set(p, "metadata.uid", ".."),
    'metadata.uid: Invalid value: "..": must be a single path component',
  ],
  [
    "a uid with NUL",
    (p) => set(p, "metadata.uid", "a\0b"),
    'metadata.uid: Invalid value: "a\\u0000b": must be a single path component',
  ],
  [
    "a uid of 254 characters",
    (p) => set(p, "metadata.uid", "u".repeat(254)),
    'metadata.uid: Invalid value: "uuu',
  ],
  [
    "a uid with _",
    (p) => set(p, "metadata.uid", "a_b"),
    "metadata.uid: Invalid value: \"a_b\": must not contain '_'",
  ],
  [
    "a namespace that is not a DNS label",
    (p) => set(p, "metadata.namespace", "../kube"),
    'metadata.namespace: Invalid value: "../kube"',
  ],
  [
    "a container name with a slash",
    (p) => set(p, `${c0}.name`, "../main"),
    `${c0}.name: Invalid value: "../main"`,
  ],
  [
    "a volume name with a slash",
    (p) => set(p, "spec.volumes[0].name", "a/b"),
    'spec.volumes[0].name: Invalid value: "a/b"',
  ],
  // Values.
  [
    "a port beyond 65535",
    (p) => set(p, `${c0}.ports[0].containerPort`, 70000),
    `${c0}.ports[0].containerPort: Invalid value: 70000`,
  ],
  [
    "a negative hostPort",
    (p) => set(p, `${c0}.ports[0].hostPort`, -1),
    `${c0}.ports[0].hostPort: Invalid value: -1`,
  ],
  [
    "an unknown protocol",
    (p) => set(p, `${c0}.ports[0].protocol`, "HTTP"),
    `${c0}.ports[0].protocol: Unsupported value: "HTTP"`,
  ],
  [
    "a bad hostIP",
    (p) => set(p, `${c0}.ports[0].hostIP`, "localhost"),
    `${c0}.ports[0].hostIP: Invalid value: "localhost"`,
  ],
  [
    "a probe port of 0",
    (p) => set(p, `${c0}.livenessProbe.tcpSocket.port`, 0),
    `${c0}.livenessProbe.tcpSocket.port: Invalid value: 0`,
  ],
  [
    "a probe port name the container lacks",
    (p) => set(p, `${c0}.readinessProbe.httpGet.port`, "admin"),
    `${c0}.readinessProbe.httpGet.port: Not found: "admin"`,
  ],
  [
    "a numeric string as probe port",
    (p) => set(p, `${c0}.readinessProbe.httpGet.port`, "8080"),
    `${c0}.readinessProbe.httpGet.port: Invalid value: "8080"`,
  ],
  [
    "a negative periodSeconds",
    (p) => set(p, `${c0}.readinessProbe.periodSeconds`, -1),
    `${c0}.readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0`,
  ],
  [
    "two probe handlers",
    (p) => set(p, `${c0}.readinessProbe.exec`, { command: ["true"] }),
    `${c0}.readinessProbe.httpGet: Forbidden: may not specify more than 1 handler type`,
  ],
  [
    "a probe without handler",
    (p) => set(p, `${c0}.livenessProbe`, { periodSeconds: 3 }),
    `${c0}.livenessProbe: Required value: must specify a handler type`,
  ],
  [
    "liveness successThreshold 2",
    (p) => set(p, `${c0}.livenessProbe.successThreshold`, 2),
    `${c0}.livenessProbe.successThreshold: Invalid value: 2: must be 1`,
  ],
  [
    "an FTP probe",
    (p) => set(p, `${c0}.readinessProbe.httpGet.scheme`, "FTP"),
    `${c0}.readinessProbe.httpGet.scheme: Unsupported value: "FTP"`,
  ],
  [
    "an empty exec command",
    (p) => set(p, `${c0}.lifecycle.preStop.exec.command`, []),
    `${c0}.lifecycle.preStop.exec.command: Required value`,
  ],
  [
    "a preStop sleep beyond the grace period",
    (p) => set(p, `${c0}.lifecycle.preStop`, { sleep: { seconds: 60 } }),
    `${c0}.lifecycle.preStop.sleep.seconds: Invalid value: 60`,
  ],
  [
    "a probe on a plain init container",
    (p) => set(p, "spec.initContainers[0].readinessProbe", { exec: { command: ["true"] } }),
    "spec.initContainers[0].readinessProbe: Forbidden",
  ],
  [
    "an unknown restartPolicy on an app container",
    (p) => set(p, `${c0}.restartPolicy`, "Sometimes"),
    `${c0}.restartPolicy: Unsupported value: "Sometimes"`,
  ],
  [
    "restart rules without the container's own policy",
    (p) =>
      set(p, `${c0}.restartPolicyRules`, [{
        action: "Restart",
        exitCodes: { operator: "In", values: [42] },
      }]),
    `${c0}.restartPolicy: Required value`,
  ],
  [
    "a fileKeyRef to a volume that is not an emptyDir",
    (p) =>
      set(p, `${c0}.env`, [{
        name: "A",
        valueFrom: { fileKeyRef: { volumeName: "host", path: "a.env", key: "A" } },
      }]),
    `${c0}.env[0].valueFrom.fileKeyRef.volumeName: Invalid value: "host": referenced volume must be of type emptyDir`,
  ],
  [
    "a restart rule without exit codes",
    (p) =>
      set(set(p, `${c0}.restartPolicy`, "Never"), `${c0}.restartPolicyRules`, [{
        action: "Restart",
      }]),
    `${c0}.restartPolicyRules[0].exitCodes: Required value`,
  ],
  [
    "restart rules on a sidecar",
    (p) =>
      set(p, "spec.initContainers[0]", {
        name: "side",
        image: "x:1",
        restartPolicy: "Always",
        restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [1] } }],
      }),
    "spec.initContainers[0].restartPolicyRules: Forbidden",
  ],
  [
    "a duplicate container name",
    (p) => set(p, "spec.initContainers[0].name", "main"),
    'spec.initContainers[0].name: Duplicate value: "main"',
  ],
  [
    "an env name with =",
    (p) => set(p, `${c0}.env[0].name`, "A=B"),
    `${c0}.env[0].name: Invalid value: "A=B"`,
  ],
  [
    "an unknown fieldPath",
    (p) => set(p, `${c0}.env[0].valueFrom.fieldRef.fieldPath`, "spec.nodeIP"),
    `${c0}.env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "spec.nodeIP"`,
  ],
  [
    "an unknown resource",
    (p) => set(p, `${c0}.env[1].valueFrom.resourceFieldRef.resource`, "limits.gpu"),
    `${c0}.env[1].valueFrom.resourceFieldRef.resource: Unsupported value`,
  ],
  [
    "a cpu divisor of 3",
    (p) =>
      set(p, `${c0}.env[1].valueFrom.resourceFieldRef`, { resource: "limits.cpu", divisor: "3" }),
    `${c0}.env[1].valueFrom.resourceFieldRef.divisor: Invalid value`,
  ],
  [
    "a resourceFieldRef to a missing container",
    (p) => set(p, `${c0}.env[1].valueFrom.resourceFieldRef.containerName`, "nope"),
    `${c0}.env[1].valueFrom.resourceFieldRef.containerName: Not found: "nope"`,
  ],
  [
    "value and valueFrom",
    (p) => set(p, `${c0}.env[0].value`, "x"),
    `${c0}.env[0].valueFrom: Invalid value: "": may not be specified when \`value\` is not empty`,
  ],
  [
    "a subPath with backsteps",
    (p) => set(p, `${c0}.volumeMounts[0].subPath`, "../etc"),
    `${c0}.volumeMounts[0].subPath: Invalid value: "../etc": must not contain '..'`,
  ],
  [
    "an absolute subPath",
    (p) => set(p, `${c0}.volumeMounts[0].subPath`, "/etc"),
    `${c0}.volumeMounts[0].subPath: Invalid value: "/etc": must be a relative path`,
  ],
  [
    "an empty mountPath",
    (p) => set(p, `${c0}.volumeMounts[0].mountPath`, ""),
    `${c0}.volumeMounts[0].mountPath: Required value`,
  ],
  [
    "a duplicate mountPath",
    (p) => set(p, `${c0}.volumeMounts[1].mountPath`, "/data"),
    `${c0}.volumeMounts[1].mountPath: Invalid value: "/data": must be unique`,
  ],
  [
    "a mount of a missing volume",
    (p) => set(p, `${c0}.volumeMounts[0].name`, "nope"),
    `${c0}.volumeMounts[0].name: Not found: "nope"`,
  ],
  [
    "an unknown mountPropagation",
    (p) => set(p, `${c0}.volumeMounts[0].mountPropagation`, "Shared"),
    `${c0}.volumeMounts[0].mountPropagation: Unsupported value`,
  ],
  [
    "a relative hostPath",
    (p) => set(p, "spec.volumes[1].hostPath.path", "var/log"),
    'spec.volumes[1].hostPath.path: Invalid value: "var/log": must be an absolute path',
  ],
  [
    "a hostPath with backsteps",
    (p) => set(p, "spec.volumes[1].hostPath.path", "/var/../etc"),
    "spec.volumes[1].hostPath.path: Invalid value: \"/var/../etc\": must not contain '..'",
  ],
  [
    "an unknown hostPath type",
    (p) => set(p, "spec.volumes[1].hostPath.type", "Dir"),
    'spec.volumes[1].hostPath.type: Unsupported value: "Dir"',
  ],
  [
    "two volume sources",
    (p) => set(p, "spec.volumes[1].emptyDir", {}),
    "spec.volumes[1].emptyDir: Forbidden: may not specify more than 1 volume type",
  ],
  [
    "a negative sizeLimit",
    (p) => set(p, "spec.volumes[0].emptyDir.sizeLimit", "-1Gi"),
    "spec.volumes[0].emptyDir.sizeLimit: Forbidden",
  ],
  [
    "a downwardAPI path with backsteps",
    (p) => set(p, "spec.volumes[2].downwardAPI.items[0].path", "../x"),
    'spec.volumes[2].downwardAPI.items[0].path: Invalid value: "../x"',
  ],
  [
    "a request above its limit",
    (p) => set(p, `${c0}.resources.requests.memory`, "128Mi"),
    `${c0}.resources.requests[memory]: Invalid value: "128Mi": must be less than or equal to memory limit of 64Mi`,
  ],
  [
    "a negative limit",
    (p) => set(p, `${c0}.resources.limits.cpu`, "-1"),
    `${c0}.resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
  ],
  [
    "an unprefixed unknown resource",
    (p) => set(p, `${c0}.resources.limits.gpu`, "1"),
    `${c0}.resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers`,
  ],
  [
    "pod-level requests below the containers'",
    (p) => set(p, "spec.resources.requests.cpu", "50m"),
    'spec.resources.requests[cpu]: Invalid value: "50m": must be greater than or equal to aggregate container requests of 100m',
  ],
  [
    "a resource that cannot be pod-level",
    (p) => set(p, "spec.resources.limits.ephemeral-storage", "1Gi"),
    'spec.resources.limits[ephemeral-storage]: Unsupported value: "ephemeral-storage": supported values: "cpu", "hugepages-", "memory"',
  ],
  [
    "a container limit above the pod's",
    (p) => set(p, "spec.resources.limits.memory", "32Mi"),
    'spec.resources.containers[0][memory].limits: Invalid value: "64Mi": must be less than or equal to pod limits of 32Mi',
  ],
  [
    "hugepages that are not whole pages",
    (p) => {
      set(p, `${c0}.resources.limits.hugepages-2Mi`, "3Mi");
      set(p, `${c0}.resources.requests.hugepages-2Mi`, "3Mi");
    },
    `${c0}.resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
  ],
  [
    "a negative runAsUser",
    (p) => set(p, `${c0}.securityContext.runAsUser`, -1),
    `${c0}.securityContext.runAsUser: Invalid value: -1`,
  ],
  [
    "an empty capability",
    (p) => set(p, `${c0}.securityContext.capabilities.drop`, [""]),
    `${c0}.securityContext.capabilities.drop[0]: Required value`,
  ],
  [
    "privileged without privilege escalation",
    (p) => set(p, `${c0}.securityContext`, { privileged: true, allowPrivilegeEscalation: false }),
    `${c0}.securityContext: Invalid value: "privileged": cannot set \`allowPrivilegeEscalation\` to false and \`privileged\` to true`,
  ],
  [
    "Unmasked procMount without a user namespace",
    (p) => set(p, `${c0}.securityContext.procMount`, "Unmasked"),
    `${c0}.securityContext.procMount: Invalid value`,
  ],
  [
    "a seccomp profile outside the profile root",
    (p) =>
      set(p, "spec.securityContext.seccompProfile", {
        type: "Localhost",
        localhostProfile: "../x.json",
      }),
    'spec.securityContext.seccompProfile.localhostProfile: Invalid value: "../x.json"',
  ],
  [
    "a bad sysctl name",
    (p) => set(p, "spec.securityContext.sysctls", [{ name: "net..ipv4", value: "1" }]),
    'spec.securityContext.sysctls[0].name: Invalid value: "net..ipv4"',
  ],
  [
    "a relative workingDir",
    (p) => set(p, `${c0}.workingDir`, "work"),
    `${c0}.workingDir: Invalid value: "work": must be an absolute path`,
  ],
  [
    "whitespace around the image",
    (p) => set(p, `${c0}.image`, " busybox"),
    `${c0}.image: Invalid value: " busybox"`,
  ],
  [
    "an unknown pull policy",
    (p) => set(p, `${c0}.imagePullPolicy`, "Sometimes"),
    `${c0}.imagePullPolicy: Unsupported value: "Sometimes"`,
  ],
  [
    "dnsPolicy None without dnsConfig",
    (p) => set(p, "spec.dnsPolicy", "None"),
    "spec.dnsConfig: Required value",
  ],
  [
    "a nameserver that is no IP",
    (p) => set(p, "spec.dnsConfig", { nameservers: ["dns"] }),
    'spec.dnsConfig.nameservers[0]: Invalid value: "dns"',
  ],
  [
    "a host alias without a valid IP",
    (p) => set(p, "spec.hostAliases", [{ ip: "x", hostnames: ["a"] }]),
    'spec.hostAliases[0].ip: Invalid value: "x"',
  ],
  [
    "an Exists toleration with a value",
    (p) => set(p, "spec.tolerations", [{ key: "k", operator: "Exists", value: "v" }]),
    'spec.tolerations[0].operator: Invalid value: "v"',
  ],
  [
    "activeDeadlineSeconds 0",
    (p) => set(p, "spec.activeDeadlineSeconds", 0),
    "spec.activeDeadlineSeconds: Invalid value: 0",
  ],
  [
    "a host port used twice",
    (p) =>
      set(p, "spec.containers[1]", {
        name: "b",
        image: "x:1",
        ports: [{ containerPort: 1, hostPort: 18080 }],
      }),
    'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//18080"',
  ],
  [
    "an ephemeral container",
    (p) => set(p, "spec.ephemeralContainers", [{ name: "debug", image: "x:1" }]),
    "spec.ephemeralContainers: Forbidden",
  ],
  [
    "recursiveReadOnly Enabled",
    (p) =>
      set(p, `${c0}.volumeMounts[0]`, {
        name: "data",
        mountPath: "/d",
        readOnly: true,
        recursiveReadOnly: "Enabled",
        mountPropagation: "HostToContainer",
      }),
    `${c0}.volumeMounts[0].recursiveReadOnly: Forbidden`,
  ],
  [
    "a user namespace with the host's network",
    (p) => set(set(p, "spec.hostUsers", false), "spec.hostNetwork", true),
    "spec.hostNetwork: Forbidden: when `hostUsers` is false",
  ],
  [
    "a user namespace with the host's PID namespace",
    (p) => set(set(p, "spec.hostUsers", false), "spec.hostPID", true),
    "spec.HostPID: Forbidden: when `hostUsers` is false",
  ],
  [
    "a user namespace with a raw block device",
    (p) =>
      set(set(p, "spec.hostUsers", false), `${c0}.volumeDevices`, [
        { name: "data", devicePath: "/dev/xvda" },
      ]),
    `${c0}.volumeDevices: Forbidden: when \`hostUsers\` is false`,
  ],
  ["a windows pod", (p) => set(p, "spec.os", { name: "windows" }), "spec.os.name: Forbidden"],
  [
    "a grace period on a readiness probe",
    (p) => set(p, `${c0}.readinessProbe.terminationGracePeriodSeconds`, 5),
    `${c0}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes`,
  ],
  [
    "subPath and subPathExpr together",
    (p) =>
      set(p, `${c0}.volumeMounts[0]`, {
        name: "data",
        mountPath: "/d",
        subPath: "a",
        subPathExpr: "b",
      }),
    `${c0}.volumeMounts[0].subPathExpr: Invalid value: "b": subPathExpr and subPath are mutually exclusive`,
  ],
  [
    "a downward file with two sources",
    (p) =>
      set(p, "spec.volumes[2].downwardAPI.items[0].resourceFieldRef", {
        containerName: "main",
        resource: "limits.cpu",
      }),
    "spec.volumes[2].downwardAPI.items[0]: Invalid value",
  ],
  [
    "tolerationSeconds without NoExecute",
    (p) => set(p, "spec.tolerations", [{ key: "k", operator: "Exists", tolerationSeconds: 5 }]),
    "spec.tolerations[0].effect: Invalid value",
  ],
  [
    "an init container restartPolicy none of the container policies",
    (p) => set(p, "spec.initContainers[0].restartPolicy", "Sometimes"),
    'spec.initContainers[0].restartPolicy: Unsupported value: "Sometimes"',
  ],
  [
    "a block device without a claim",
    (p) => set(p, `${c0}.volumeDevices`, [{ name: "data", devicePath: "/dev/x" }]),
    `${c0}.volumeDevices[0].name: Invalid value: "data"`,
  ],
  [
    "an invalid annotation key",
    (p) => set(p, "metadata.annotations", { "bad key": "v" }),
    'metadata.annotations: Invalid value: "bad key"',
  ],
  [
    "a secret key reference",
    (p) => set(p, `${c0}.env[0].valueFrom`, { secretKeyRef: { name: "s", key: "k" } }),
    `${c0}.env[0].valueFrom: Forbidden: static pods may not reference secrets`,
  ],
  [
    "an unknown preemption policy",
    (p) => set(p, "spec.preemptionPolicy", "Sometimes"),
    'spec.preemptionPolicy: Unsupported value: "Sometimes"',
  ],
  [
    "a regular init container restarted for a resize",
    (p) =>
      set(p, "spec.initContainers[0].resizePolicy", [
        { resourceName: "cpu", restartPolicy: "RestartContainer" },
      ]),
    'spec.initContainers[0].resizePolicy[0].restartPolicy: Invalid value: "RestartContainer": ' +
    "must not be set to 'RestartContainer' for non-sidecar initContainers",
  ],
];

Deno.test("validation refuses each malformed spec with its field path", () => {
  assert.ok(MALFORMED.length >= 36, `${MALFORMED.length} cases`);
  for (const [what, edit, expected] of MALFORMED) {
    const errors = errorsOf(edit);
    assert.ok(
      errors.some((e) => e.startsWith(expected)),
      `${what}: expected an error starting ${JSON.stringify(expected)}, got ${
        JSON.stringify(errors)
      }`,
    );
  }
});

Deno.test("the base pod of the malformed cases is itself valid", () => {
  assert.deepEqual(validatePod(basePod()), []);
});

Deno.test("init containers may have a resize policy (in-place resize is GA)", () => {
  const pod = basePod();
  set(pod, "spec.initContainers[0].resizePolicy", [
    { resourceName: "memory", restartPolicy: "NotRequired" },
  ]);
  set(pod, "spec.initContainers[1]", {
    name: "sidecar",
    image: "busybox:1.36",
    restartPolicy: "Always",
    resizePolicy: [{ resourceName: "cpu", restartPolicy: "RestartContainer" }],
  });
  assert.deepEqual(validatePod(pod), []);
});

Deno.test("a wrong JSON type is reported alone, as the decoder fails before validation", () => {
  const errors = errorsOf((p) => {
    set(p, `${c0}.securityContext`, "x");
    set(p, `${c0}.image`, "");
  });
  assert.deepEqual(errors, [`${c0}.securityContext: must be an object, got string`]);
});

Deno.test("every malformed field is reported at once, each with its path", () => {
  const errors = errorsOf((p) => {
    set(p, `${c0}.ports[0].containerPort`, 0);
    set(p, `${c0}.readinessProbe.periodSeconds`, -1);
    set(p, "metadata.uid", "a/b");
  });
  assert.deepEqual(
    errors.map((e) => e.slice(0, e.indexOf(":"))).sort(),
    [
      "metadata.uid",
      `${c0}.ports[0].containerPort`,
      `${c0}.readinessProbe.periodSeconds`,
    ].sort(),
  );
});

const origin = {
  path: "/etc/kubernetes/manifests/x.yaml",
  source: "file",
  nodeName: "n1",
} as const;

Deno.test("a malformed manifest file is refused with the file and the field path", () => {
  const yaml = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: main
    image: busybox:1.36
    securityContext: "x"
`;
  assert.throws(() => staticPodFromManifest(yaml, origin), (e: unknown) => {
    assert.ok(e instanceof InvalidManifestError);
    assert.equal(e.path, origin.path);
    assert.match(
      e.message,
      /spec\.containers\[0\]\.securityContext: must be an object, got string/,
    );
    return true;
  });
});

/** Manifests as kubeadm and people write them (kubeadm's etcd and apiserver, trimmed). */
const REAL_WORLD: Record<string, string> = {
  etcd: `apiVersion: v1
kind: Pod
metadata:
  annotations:
    kubeadm.kubernetes.io/etcd.advertise-client-urls: https://10.0.0.10:2379
  creationTimestamp: null
  labels:
    component: etcd
    tier: control-plane
  name: etcd
  namespace: kube-system
spec:
  containers:
  - command:
    - etcd
    - --data-dir=/var/lib/etcd
    - --listen-metrics-urls=http://127.0.0.1:2381
    image: registry.k8s.io/etcd:3.5.15-0
    imagePullPolicy: IfNotPresent
    livenessProbe:
      failureThreshold: 8
      httpGet:
        host: 127.0.0.1
        path: /livez
        port: 2381
        scheme: HTTP
      initialDelaySeconds: 10
      periodSeconds: 10
      timeoutSeconds: 15
    name: etcd
    resources:
      requests:
        cpu: 100m
        memory: 100Mi
    startupProbe:
      failureThreshold: 24
      httpGet:
        host: 127.0.0.1
        path: /readyz
        port: 2381
        scheme: HTTP
      initialDelaySeconds: 10
      periodSeconds: 10
      timeoutSeconds: 15
    volumeMounts:
    - mountPath: /var/lib/etcd
      name: etcd-data
    - mountPath: /etc/kubernetes/pki/etcd
      name: etcd-certs
  hostNetwork: true
  priority: 2000001000
  priorityClassName: system-node-critical
  securityContext:
    seccompProfile:
      type: RuntimeDefault
  volumes:
  - hostPath:
      path: /etc/kubernetes/pki/etcd
      type: DirectoryOrCreate
    name: etcd-certs
  - hostPath:
      path: /var/lib/etcd
      type: DirectoryOrCreate
    name: etcd-data
status: {}
`,
  apiserver: `apiVersion: v1
kind: Pod
metadata:
  labels: {component: kube-apiserver, tier: control-plane}
  name: kube-apiserver
  namespace: kube-system
spec:
  containers:
  - command: [kube-apiserver, --secure-port=6443]
    image: registry.k8s.io/kube-apiserver:v1.31.0
    name: kube-apiserver
    readinessProbe:
      failureThreshold: 3
      httpGet: {host: 10.0.0.10, path: /readyz, port: 6443, scheme: HTTPS}
      periodSeconds: 1
      timeoutSeconds: 15
    resources:
      requests: {cpu: 250m}
    volumeMounts:
    - {mountPath: /etc/ssl/certs, name: ca-certs, readOnly: true}
  hostNetwork: true
  priorityClassName: system-node-critical
  volumes:
  - hostPath: {path: /etc/ssl/certs, type: DirectoryOrCreate}
    name: ca-certs
`,
  sidecarAndHooks: `apiVersion: v1
kind: Pod
metadata:
  name: app
  uid: 6a0c3e48-5c1b-4d8e-9f0a-1b2c3d4e5f60
spec:
  terminationGracePeriodSeconds: 10
  dnsPolicy: None
  dnsConfig:
    nameservers: [1.1.1.1, "2606:4700:4700::1111"]
    searches: [svc.cluster.local, my_domain.example.]
    options: [{name: ndots, value: "2"}]
  hostAliases:
  - {ip: 10.1.2.3, hostnames: [db.local]}
  securityContext:
    runAsUser: 1000
    fsGroup: 2000
    supplementalGroups: [3000]
    sysctls: [{name: net.ipv4.ip_local_port_range, value: "1024 65000"}]
  tolerations:
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 30}
  initContainers:
  - name: proxy
    image: envoyproxy/envoy:v1.31.0
    restartPolicy: Always
    startupProbe: {tcpSocket: {port: 9901}, failureThreshold: 30}
  containers:
  - name: app
    image: ghcr.io/example/app@sha256:${"0".repeat(64)}
    ports: [{name: web, containerPort: 8080, protocol: TCP}]
    env:
    - {name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}
    - {name: TEAM, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: "metadata.labels['team']"}}}
    - {name: CPU, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1m}}}
    - {name: MEM, valueFrom: {resourceFieldRef: {containerName: proxy, resource: requests.memory, divisor: 1Mi}}}
    lifecycle:
      postStart: {httpGet: {path: /started, port: web}}
      preStop: {sleep: {seconds: 5}}
    livenessProbe: {grpc: {port: 8081}, terminationGracePeriodSeconds: 5}
    readinessProbe:
      httpGet: {path: /healthz, port: web, httpHeaders: [{name: X-Probe, value: "1"}]}
    resources:
      limits: {cpu: 1, memory: 256Mi, ephemeral-storage: 1Gi, example.com/widget: 2}
      requests: {cpu: 0.25, memory: 128Mi, example.com/widget: 2}
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}
      seccompProfile: {type: Localhost, localhostProfile: profiles/app.json}
    volumeMounts:
    - {name: scratch, mountPath: /tmp, subPath: app}
    - {name: info, mountPath: /etc/info, readOnly: true, recursiveReadOnly: IfPossible}
    - {name: logs, mountPath: /logs, subPathExpr: $(NODE), mountPropagation: HostToContainer}
  volumes:
  - name: scratch
    emptyDir: {medium: Memory, sizeLimit: 64Mi}
  - name: info
    downwardAPI:
      defaultMode: 0444
      items:
      - {path: labels, fieldRef: {fieldPath: metadata.labels}}
      - {path: cpu, resourceFieldRef: {containerName: app, resource: limits.cpu}}
  - name: logs
    hostPath: {path: /var/log/app, type: DirectoryOrCreate}
`,
};

Deno.test("well-formed real-world manifests are accepted", async () => {
  for (const [name, yaml] of Object.entries(REAL_WORLD)) {
    const pod = staticPodFromManifest(yaml, { ...origin, path: `/m/${name}.yaml` });
    assert.ok(pod.metadata?.uid, name);
  }
  for (const file of ["counter.yaml", "init-emptydir.yaml", "web.yaml"]) {
    const path = new URL(`../support/samples/${file}`, import.meta.url);
    const pod = staticPodFromManifest(await Deno.readTextFile(path), { ...origin, path: file });
    assert.ok(pod.metadata?.uid, file);
  }
});

Deno.test("a manifest uid that is a safe path component is kept", () => {
  const yaml = REAL_WORLD.sidecarAndHooks;
  const pod = staticPodFromManifest(yaml, origin);
  assert.equal(pod.metadata?.uid, "6a0c3e48-5c1b-4d8e-9f0a-1b2c3d4e5f60");
});

Deno.test("pod-level resources consistent with the containers are valid", () => {
  assert.deepEqual(
    errorsOf((p) =>
      set(p, "spec.resources", {
        requests: { cpu: "200m", memory: "128Mi" },
        limits: { cpu: "1", memory: "256Mi" },
      })
    ),
    [],
  );
});
