import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  CONFIG_HASH_ANNOTATION,
  CONFIG_SOURCE_ANNOTATION,
  staticPodFromManifest,
  staticPodsFromBody,
} from "../../src/sources/mod.ts";
import { manifestText } from "../../src/sources/manifest.ts";
import { InvalidManifestError } from "../../src/util/errors.ts";
import { aliasBomb, podYaml } from "./_support.ts";

const origin = {
  path: "/etc/kubernetes/manifests/web.yaml",
  source: "file",
  nodeName: "Node-1",
} as const;

function invalid(raw: string, fragment: string | RegExp) {
  assert.throws(() => staticPodFromManifest(raw, origin), (e: unknown) => {
    assert.ok(e instanceof InvalidManifestError, String(e));
    assert.equal(e.path, origin.path);
    assert.ok(e.message.startsWith(`${origin.path}: `), e.message);
    if (typeof fragment === "string") assert.ok(e.message.includes(fragment), e.message);
    else assert.match(e.message, fragment);
    return true;
  });
}

Deno.test("static pod is named <name>-<lowercased node> in the default namespace and bound to the node", () => {
  const pod = staticPodFromManifest(podYaml("web"), origin);
  assert.equal(pod.metadata?.name, "web-node-1");
  assert.equal(pod.metadata?.namespace, "default");
  assert.equal(pod.spec?.nodeName, "Node-1");
  assert.equal(pod.status?.phase, "Pending");
  const ns = staticPodFromManifest(
    podYaml("web").replace("name: web", "name: web\n  namespace: kube-system"),
    origin,
  );
  assert.equal(ns.metadata?.namespace, "kube-system");
});

Deno.test("static pod UID is stable for the same content and changes with content, node or file", () => {
  const a = staticPodFromManifest(podYaml("web"), origin);
  const b = staticPodFromManifest(`# a comment\n${podYaml("web")}\n\n`, origin);
  const uid = a.metadata?.uid;
  assert.match(uid ?? "", /^[0-9a-f]{32}$/);
  assert.equal(b.metadata?.uid, uid, "formatting and comments do not change the UID");
  assert.equal(
    staticPodFromManifest(
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "web" },
        spec: { containers: [{ image: "busybox:1.36", name: "main" }] },
      }),
      origin,
    ).metadata?.uid,
    uid,
    "JSON and YAML of the same pod hash alike",
  );
  assert.notEqual(staticPodFromManifest(podYaml("web", "busybox:1.37"), origin).metadata?.uid, uid);
  assert.notEqual(
    staticPodFromManifest(podYaml("web"), { ...origin, nodeName: "node-2" }).metadata?.uid,
    uid,
  );
  assert.notEqual(
    staticPodFromManifest(podYaml("web"), { ...origin, path: "/other.yaml" }).metadata?.uid,
    uid,
  );
  assert.equal(a.metadata?.annotations?.[CONFIG_HASH_ANNOTATION], uid);
  assert.equal(a.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION], "file");
});

Deno.test("static pod keeps a UID set in the manifest", () => {
  const pod = staticPodFromManifest(
    podYaml("web").replace("name: web", "name: web\n  uid: fixed-uid"),
    origin,
  );
  assert.equal(pod.metadata?.uid, "fixed-uid");
  assert.equal(pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION], "fixed-uid");
});

Deno.test("static pod gets the API server's defaults", () => {
  const pod = staticPodFromManifest(
    podYaml(
      "web",
      "nginx",
      `    ports:
    - containerPort: 80
    resources:
      limits: {cpu: 500m, memory: 128Mi}
      requests: {memory: 64Mi}
    livenessProbe:
      httpGet: {port: 80}
  - name: pinned
    image: registry.local:5000/app@sha256:${"a".repeat(64)}
  - name: tagged
    image: registry.local:5000/app:v1
  - name: latest
    image: app:latest
  volumes:
  - name: scratch
  - name: host
    hostPath: {path: /var/log}
  - name: info
    downwardAPI:
      items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]
`,
    ),
    origin,
  );
  const spec = pod.spec!;
  assert.equal(spec.restartPolicy, "Always");
  assert.equal(spec.dnsPolicy, "ClusterFirst");
  assert.equal(spec.terminationGracePeriodSeconds, 30);
  assert.equal(spec.schedulerName, "default-scheduler");
  assert.deepEqual(spec.securityContext, {});
  assert.equal(spec.enableServiceLinks, true);
  assert.equal(spec.priority, 0);
  assert.equal(spec.preemptionPolicy, "PreemptLowerPriority");
  assert.deepEqual(spec.tolerations, [{ operator: "Exists", effect: "NoExecute" }]);
  const [web, pinned, tagged, latest] = spec.containers;
  assert.equal(web.imagePullPolicy, "Always", "no tag means latest");
  assert.equal(pinned.imagePullPolicy, "IfNotPresent", "a digest without tag is pinned");
  assert.equal(tagged.imagePullPolicy, "IfNotPresent", "a registry port is not a tag");
  assert.equal(latest.imagePullPolicy, "Always");
  assert.equal(web.terminationMessagePath, "/dev/termination-log");
  assert.equal(web.terminationMessagePolicy, "File");
  assert.deepEqual(web.ports, [{ containerPort: 80, protocol: "TCP" }]);
  assert.deepEqual(
    web.resources?.requests,
    { cpu: "500m", memory: "64Mi" },
    "requests default per key to limits",
  );
  assert.deepEqual(web.livenessProbe, {
    httpGet: { port: 80, path: "/", scheme: "HTTP" },
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  });
  assert.deepEqual(spec.volumes?.[0], { name: "scratch", emptyDir: {} });
  assert.deepEqual(spec.volumes?.[1].hostPath, { path: "/var/log", type: "" });
  assert.equal(spec.volumes?.[2].downwardAPI?.defaultMode, 0o644);
  assert.equal(spec.volumes?.[2].downwardAPI?.items?.[0].fieldRef?.apiVersion, "v1");
});

Deno.test("static pod on the host network gets hostPort = containerPort", () => {
  const pod = staticPodFromManifest(
    podYaml(
      "web",
      "nginx:1",
      "    ports: [{containerPort: 8080, protocol: UDP}]\n  hostNetwork: true\n",
    ),
    origin,
  );
  assert.deepEqual(pod.spec?.containers[0].ports, [{
    containerPort: 8080,
    hostPort: 8080,
    protocol: "UDP",
  }]);
});

Deno.test("static pod manifest keeps explicit values, tolerates unknown fields and reads 0644 as octal", () => {
  const pod = staticPodFromManifest(
    `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
futureField: 1
spec:
  restartPolicy: Never
  priorityClassName: system-node-critical
  tolerations: [{operator: Exists, effect: NoExecute}]
  containers:
  - {name: main, image: "busybox:1", imagePullPolicy: Never, somethingNew: true}
  volumes:
  - {name: info, downwardAPI: {defaultMode: 0600, items: []}}
`,
    origin,
  ) as V1Pod & { futureField?: number };
  assert.equal(pod.spec?.restartPolicy, "Never");
  assert.equal(pod.spec?.containers[0].imagePullPolicy, "Never");
  assert.equal(pod.spec?.priority, 2000001000);
  assert.equal(pod.spec?.tolerations?.length, 1, "the NoExecute toleration is not duplicated");
  assert.equal(pod.spec?.volumes?.[0].downwardAPI?.defaultMode, 0o600);
  assert.deepEqual(pod.metadata?.labels, { app: "web" });
});

Deno.test("static pod manifest validation names the file and the field", () => {
  invalid("", "manifest is empty");
  invalid("{not yaml", "cannot parse");
  invalid("- a\n- b\n", "must be a YAML or JSON object");
  invalid(
    podYaml("web").replace("kind: Pod", "kind: Deployment"),
    'expected kind "Pod": kind is "Deployment"',
  );
  invalid(
    podYaml("web").replace("apiVersion: v1", "apiVersion: apps/v1"),
    'expected apiVersion "v1"',
  );
  invalid(`${podYaml("a")}---\n${podYaml("b")}`, "holds 2 documents");
  invalid(podYaml("web").replace("name: web", "name: Web_1"), "metadata.name: Invalid value");
  invalid(
    podYaml("web").replace("  name: web\n", "  labels: {}\n"),
    "metadata.name: Required value",
  );
  invalid(
    "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: []}",
    "spec.containers: Required value",
  );
  invalid("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n", "spec: Required value");
  invalid(podYaml("web", "''"), "spec.containers[0].image: Required value");
  invalid(
    podYaml("web", "nginx", "  - name: main\n    image: nginx\n"),
    'spec.containers[1].name: Duplicate value: "main"',
  );
  invalid(
    podYaml("web", "nginx", "    imagePullPolicy: Sometimes\n"),
    'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes"',
  );
  invalid(
    podYaml("web", "nginx", "  restartPolicy: Maybe\n"),
    "spec.restartPolicy: Unsupported value",
  );
  invalid(podYaml("web", "nginx", "  dnsPolicy: Cluster\n"), "spec.dnsPolicy: Unsupported value");
  invalid(
    podYaml("web", "nginx", "    ports: [{containerPort: 70000}]\n"),
    "spec.containers[0].ports[0].containerPort: Invalid value: 70000",
  );
  invalid(
    podYaml("web", "nginx", "    ports: [{hostPort: 80}]\n"),
    "spec.containers[0].ports[0].containerPort: Required value",
  );
  invalid(
    podYaml("web", "nginx", "    ports: [{containerPort: 80, protocol: HTTP}]\n"),
    "ports[0].protocol: Unsupported value",
  );
  invalid(
    podYaml("web", "nginx", "    ports: [{containerPort: '80'}]\n"),
    "ports[0].containerPort: must be an integer",
  );
  invalid(
    podYaml("web", "nginx", "    volumeMounts: [{name: data, mountPath: /data}]\n"),
    'spec.containers[0].volumeMounts[0].name: Not found: "data"',
  );
  invalid(
    podYaml("web", "nginx", "  volumes: [{name: a}, {name: a}]\n"),
    'spec.volumes[1].name: Duplicate value: "a"',
  );
  invalid(
    podYaml("web", "nginx", "  volumes: [{name: a, secret: {secretName: s}}]\n"),
    "spec.volumes[0].secret: Forbidden: static pods may not reference secrets",
  );
  invalid(
    podYaml("web", "nginx", "  volumes: [{name: a, hostPath: {path: /x}, emptyDir: {}}]\n"),
    "may not specify more than 1 volume type",
  );
  invalid(
    podYaml("web", "nginx", "    resources: {limits: {cpu: 1}, requests: {cpu: 2}}\n"),
    "requests[cpu]: Invalid value",
  );
  invalid(
    podYaml("web", "nginx", "    resources: {limits: {cpu: lots}}\n"),
    "limits[cpu]: Invalid value",
  );
  invalid(
    podYaml("web", "nginx", "  serviceAccountName: default\n"),
    "may not reference serviceaccounts",
  );
  invalid(
    "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: oops}\n",
    "spec.containers: must be a list",
  );
});

Deno.test("static pod validation reports every invalid field at once", () => {
  invalid(
    podYaml("web", "''", "    imagePullPolicy: Sometimes\n"),
    /spec\.containers\[0\]\.image: Required value; spec\.containers\[0\]\.imagePullPolicy|imagePullPolicy.*; .*image: Required/,
  );
});

Deno.test("staticPodsFromBody decodes a single Pod, a PodList, or nothing", () => {
  const url = { path: "http://config.local/pods", source: "http", nodeName: "n1" } as const;
  assert.deepEqual(staticPodsFromBody("  \n", url), []);
  const [one] = staticPodsFromBody(podYaml("web"), url);
  assert.equal(one.metadata?.name, "web-n1");
  assert.equal(one.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION], "http");
  assert.equal(
    one.spec?.tolerations,
    undefined,
    "upstream adds the NoExecute toleration to file pods only",
  );
  const list = JSON.stringify({
    apiVersion: "v1",
    kind: "PodList",
    items: [
      { metadata: { name: "a" }, spec: { containers: [{ name: "c", image: "x:1" }] } },
      { metadata: { name: "b" }, spec: { containers: [{ name: "c", image: "x:1" }] } },
    ],
  });
  assert.deepEqual(staticPodsFromBody(list, url).map((p) => p.metadata?.name), ["a-n1", "b-n1"]);
  assert.equal(
    staticPodsFromBody(podYaml("web"), url)[0].metadata?.uid,
    staticPodsFromBody(podYaml("web"), { ...url, nodeName: "n2" })[0].metadata?.uid,
    "as upstream, the URL source's UID does not depend on the node",
  );
  assert.throws(
    () => staticPodsFromBody(list.replace('"image":"x:1"}]}}]', '"image":""}]}}]'), url),
    /items\[1\]\.spec\.containers\[0\]\.image: Required value/,
  );
});

Deno.test("hostile manifests are refused as manifest problems, never thrown otherwise", () => {
  const pod = (field: string) => `${podYaml("web")}foo: ${field}\n`;
  const cases: Array<[string, string, RegExp]> = [
    ["alias bomb", aliasBomb(), /document contains excessive aliasing/],
    [
      "more than 100 aliases",
      `${podYaml("web")}x: &x 1\ny: [${Array(101).fill("*x")}]\n`,
      /excessive aliasing/,
    ],
    [
      "an alias cycle",
      `${podYaml("web")}foo: &a [*a]\n`,
      /nested more than 100 levels deep|aliasing/,
    ],
    [
      "YAML flow nesting 10 000 deep",
      pod(`${"[".repeat(10_000)}${"]".repeat(10_000)}`),
      /nested more than 100 levels deep/,
    ],
    [
      "YAML block nesting 10 000 deep",
      Array.from({ length: 10_000 }, (_, i) => `${" ".repeat(i)}k:`).join("\n"),
      /nested more than 100 levels deep/,
    ],
    [
      "YAML nesting 101 deep",
      pod(`${"[".repeat(100)}${"]".repeat(100)}`),
      /nested more than 100 levels deep/,
    ],
    [
      "JSON nesting 10 000 deep",
      `{"apiVersion":"v1","kind":"Pod","x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`,
      /nested more than 100 levels deep/,
    ],
    [
      "binary bytes",
      "\u0000\u0001\u0002\u0003\u007f\u0010binary",
      /must be a YAML or JSON object|cannot parse/,
    ],
    ["an empty file", "", /manifest is empty/],
    ["only comments", "# nothing here\n\n", /manifest is empty/],
    [
      "a PodList",
      '{"apiVersion":"v1","kind":"PodList","items":[]}',
      /expected kind "Pod": kind is "PodList"/,
    ],
    [
      "a Deployment",
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n",
      /expected kind "Pod": kind is "Deployment"/,
    ],
  ];
  for (const [what, raw, reason] of cases) {
    assert.throws(() => staticPodFromManifest(raw, origin), (e: unknown) => {
      assert.ok(e instanceof InvalidManifestError, `${what}: ${e}`);
      assert.equal(e.path, origin.path, what);
      assert.match(e.message, reason, what);
      return true;
    }, what);
  }
  // Nesting a real pod needs (about a dozen levels) is fine.
  assert.ok(staticPodFromManifest(pod(`${"[".repeat(90)}${"]".repeat(90)}`), origin));
});

Deno.test("a repeated key keeps its last value, as upstream's YAML and JSON decoding does", () => {
  const yaml = podYaml("first").replace("name: first", "name: first\n  name: second");
  assert.equal(staticPodFromManifest(yaml, origin).metadata?.name, "second-node-1");
  const json = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"first","name":"second"},' +
    '"spec":{"containers":[{"name":"c","image":"x:1"}]}}';
  assert.equal(staticPodFromManifest(json, origin).metadata?.name, "second-node-1");
});

Deno.test("text that starts with { but is not JSON is read as YAML", () => {
  const flow =
    '{apiVersion: v1, kind: Pod, metadata: {name: web}, spec: {containers: [{name: c, image: "x:1"}]}}';
  assert.equal(staticPodFromManifest(flow, origin).metadata?.name, "web-node-1");
});

Deno.test("manifest bytes must be UTF-8; a byte order mark is dropped", () => {
  const bad = new Uint8Array([...new TextEncoder().encode("kind: Pod\nx: "), 0xff, 0xfe, 0x0a]);
  assert.throws(() => manifestText(bad, origin.path), (e: unknown) => {
    assert.ok(e instanceof InvalidManifestError);
    assert.equal(e.message, `${origin.path}: is not valid UTF-8 text`);
    return true;
  });
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(podYaml("web"))]);
  assert.equal(
    staticPodFromManifest(manifestText(bom, origin.path), origin).metadata?.name,
    "web-node-1",
  );
});

Deno.test("unquoted dates stay strings, as Kubernetes' YAML decoding keeps them", () => {
  const pod = staticPodFromManifest(
    podYaml("web").replace("metadata:", "metadata:\n  labels:\n    released: 2024-01-01"),
    origin,
  );
  assert.equal(pod.metadata?.labels?.released, "2024-01-01");
});

Deno.test("unquoted times stay strings: go-yaml has no base-60 numbers", () => {
  const pod = staticPodFromManifest(
    podYaml("web").replace("metadata:", "metadata:\n  annotations:\n    window: 10:30"),
    origin,
  );
  assert.equal(pod.metadata?.annotations?.window, "10:30");
});
