import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import {
  buildEnv,
  type EnvContext,
  type EnvObjects,
  EnvSourceError,
  expandCommand,
  expandVars,
} from "../../src/runtime/_env.ts";
import { ObjectNotFoundError } from "../../src/objects/mod.ts";
import { ConfigError, DenoletError, isKind, NotFoundError } from "../../src/util/errors.ts";
import { createLogger } from "../../src/util/log.ts";

const vars: Record<string, string> = { VAR_A: "A", VAR_B: "B", VAR_C: "C", EMPTY: "" };
const lookup = (n: string) => vars[n];

Deno.test("expandVars follows the kubernetes expansion rules", () => {
  const cases: [string, string][] = [
    ["$(VAR_A)", "A"],
    ["___$(VAR_B)___", "___B___"],
    ["$(VAR_A)-$(VAR_A)", "A-A"],
    ["$(VAR_A)$(VAR_B)", "AB"],
    ["$(EMPTY)x", "x"],
    ["$(UNSET)", "$(UNSET)"],
    ["pre $(UNSET) post", "pre $(UNSET) post"],
    ["$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A"],
    ["$$$(VAR_B)", "$B"],
    ["$$$$$$(BIG_MONEY)", "$$$(BIG_MONEY)"],
    ["$$", "$"],
    ["$$$$", "$$"],
    ["$", "$"],
    ["abc$", "abc$"],
    ["$(", "$("],
    ["$(VAR_A", "$(VAR_A"],
    ["$()", "$()"],
    ["$)", "$)"],
    ["$VAR_A", "$VAR_A"],
    ["f000-$$VAR_A", "f000-$VAR_A"],
    ["$(VAR_A)$", "A$"],
    ["$ü$😀x", "$ü$😀x"],
    ["no vars", "no vars"],
    ["", ""],
  ];
  for (const [input, want] of cases) assert.equal(expandVars(input, lookup), want, input);
});

Deno.test("expandVars does not re-expand substituted values", () => {
  assert.equal(expandVars("$(X)", (n) => (n === "X" ? "$(VAR_A)" : undefined)), "$(VAR_A)");
});

function pod(container: V1Container, extra: Partial<V1Pod["spec"]> = {}): V1Pod {
  return {
    metadata: {
      name: "web",
      namespace: "prod",
      uid: "u-1",
      labels: { app: "web" },
      annotations: { "team": "a" },
    },
    spec: { containers: [container], serviceAccountName: "sa", ...extra },
  };
}

const ctx: EnvContext = {
  podIP: "10.0.0.5",
  podIPs: ["10.0.0.5", "fd00::5"],
  hostIP: "192.168.1.2",
  nodeName: "node-1",
  nodeAllocatable: { cpuMilli: 4000, memoryBytes: 8 * 2 ** 30 },
};

Deno.test("buildEnv expands values against earlier variables, in order", async () => {
  const c: V1Container = {
    name: "c",
    env: [
      { name: "LATER_REF", value: "$(B)" },
      { name: "A", value: "a" },
      { name: "B", value: "$(A)-b" },
      { name: "C", value: "$$(A) $(B) $(NOPE)" },
      { name: "A", value: "override" },
      { name: "E" },
    ],
  };
  assert.deepEqual(await buildEnv(pod(c), c, ctx), [
    { key: "LATER_REF", value: "$(B)" },
    { key: "A", value: "override" },
    { key: "B", value: "a-b" },
    { key: "C", value: "$(A) a-b $(NOPE)" },
    { key: "E", value: "" },
  ]);
});

Deno.test("buildEnv resolves fieldRefs", async () => {
  const ref = (name: string, fieldPath: string) => ({
    name,
    valueFrom: { fieldRef: { fieldPath } },
  });
  const c: V1Container = {
    name: "c",
    env: [
      ref("NAME", "metadata.name"),
      ref("NS", "metadata.namespace"),
      ref("UID", "metadata.uid"),
      ref("APP", "metadata.labels['app']"),
      ref("TEAM", "metadata.annotations['team']"),
      ref("MISSING", "metadata.labels['nope']"),
      ref("NODE", "spec.nodeName"),
      ref("SA", "spec.serviceAccountName"),
      ref("IP", "status.podIP"),
      ref("IPS", "status.podIPs"),
      ref("HOST", "status.hostIP"),
      ref("HOSTS", "status.hostIPs"),
      { name: "NOT_EXPANDED", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ],
  };
  const env = Object.fromEntries((await buildEnv(pod(c), c, ctx)).map((kv) => [kv.key, kv.value]));
  assert.deepEqual(env, {
    NAME: "web",
    NS: "prod",
    UID: "u-1",
    APP: "web",
    TEAM: "a",
    MISSING: "",
    NODE: "node-1",
    SA: "sa",
    IP: "10.0.0.5",
    IPS: "10.0.0.5,fd00::5",
    HOST: "192.168.1.2",
    HOSTS: "192.168.1.2",
    NOT_EXPANDED: "web",
  });
});

Deno.test("buildEnv gives host-network pods the node IP as pod IP", async () => {
  const c: V1Container = {
    name: "c",
    env: [{ name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }],
  };
  const env = await buildEnv(pod(c, { hostNetwork: true }), c, {
    nodeName: "n",
    hostIP: "192.168.1.2",
  });
  assert.deepEqual(env, [{ key: "IP", value: "192.168.1.2" }]);
});

Deno.test("buildEnv rejects unknown fieldPaths", async () => {
  const c: V1Container = {
    name: "c",
    env: [{ name: "X", valueFrom: { fieldRef: { fieldPath: "spec.bogus" } } }],
  };
  await assert.rejects(() => buildEnv(pod(c), c, ctx), ConfigError);
});

Deno.test("buildEnv resolves resourceFieldRefs with divisors and node fallbacks", async () => {
  const rf = (name: string, resource: string, divisor?: string, containerName?: string) => ({
    name,
    valueFrom: { resourceFieldRef: { resource, divisor, containerName } },
  });
  const c: V1Container = {
    name: "c",
    resources: { limits: { cpu: "1500m", memory: "128Mi" }, requests: { cpu: "250m" } },
    env: [
      rf("LCPU", "limits.cpu"),
      rf("LCPU_M", "limits.cpu", "1m"),
      rf("RCPU", "requests.cpu"),
      rf("RCPU_M", "requests.cpu", "1m"),
      rf("LMEM", "limits.memory"),
      rf("LMEM_MI", "limits.memory", "1Mi"),
      rf("RMEM", "requests.memory"),
      rf("OTHER_LCPU", "limits.cpu", undefined, "side"),
      rf("OTHER_LMEM", "limits.memory", "1Gi", "side"),
    ],
  };
  const side: V1Container = { name: "side" };
  const p = pod(c);
  p.spec!.containers.push(side);
  const env = Object.fromEntries((await buildEnv(p, c, ctx)).map((kv) => [kv.key, kv.value]));
  assert.deepEqual(env, {
    LCPU: "2",
    LCPU_M: "1500",
    RCPU: "1",
    RCPU_M: "250",
    LMEM: String(128 * 2 ** 20),
    LMEM_MI: "128",
    RMEM: String(128 * 2 ** 20),
    OTHER_LCPU: "4",
    OTHER_LMEM: "8",
  });
});

Deno.test("buildEnv refuses configMap and secret refs unless optional", async () => {
  const required: V1Container = {
    name: "c",
    env: [{ name: "X", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }],
  };
  await assert.rejects(() => buildEnv(pod(required), required, ctx), (e) => {
    assert.ok(isKind(e, ConfigError));
    assert.match(String(e), /secret "s" key "k"/);
    return true;
  });
  const optional: V1Container = {
    name: "c",
    env: [
      { name: "X", valueFrom: { configMapKeyRef: { name: "m", key: "k", optional: true } } },
      { name: "Y", value: "y" },
    ],
    envFrom: [{ secretRef: { name: "s", optional: true } }],
  };
  assert.deepEqual(await buildEnv(pod(optional), optional, ctx), [{ key: "Y", value: "y" }]);
  const envFrom: V1Container = { name: "c", envFrom: [{ configMapRef: { name: "m" } }] };
  await assert.rejects(() => buildEnv(pod(envFrom), envFrom, ctx), /configMap "m"/);
});

Deno.test("expandCommand expands against the final env", () => {
  const env = [{ key: "A", value: "1" }, { key: "B", value: "two words" }];
  assert.deepEqual(expandCommand(["echo", "$(A)", "$(B)", "$$(A)", "$(C)"], env), [
    "echo",
    "1",
    "two words",
    "$(A)",
    "$(C)",
  ]);
  assert.equal(expandCommand(undefined, env), undefined);
});

/** ConfigMaps and Secrets of namespace "prod" from maps; counts the reads. */
function objects(
  configMaps: Record<string, Record<string, string>>,
  secrets: Record<string, Record<string, string>> = {},
): EnvObjects & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    configMap(_pod, name) {
      reads.push(`configmap/${name}`);
      const data = configMaps[name];
      if (!data) return Promise.reject(new ObjectNotFoundError("configmap", "prod", name));
      return Promise.resolve({ data });
    },
    secret(_pod, name) {
      reads.push(`secret/${name}`);
      const data = secrets[name];
      if (!data) return Promise.reject(new ObjectNotFoundError("secret", "prod", name));
      return Promise.resolve({
        data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, btoa(v)])),
      });
    },
  };
}

Deno.test("buildEnv reads configMapKeyRef, secretKeyRef and envFrom from the API objects", async () => {
  const objs = objects({ app: { MODE: "fast", LEVEL: "3" } }, {
    creds: { pw: "s3cr3t", user: "u" },
  });
  const c: V1Container = {
    name: "c",
    envFrom: [
      { configMapRef: { name: "app" } },
      { prefix: "DB_", secretRef: { name: "creds" } },
    ],
    env: [
      { name: "LEVEL", value: "override-$(MODE)" },
      { name: "PASSWORD", valueFrom: { secretKeyRef: { name: "creds", key: "pw" } } },
      { name: "M", valueFrom: { configMapKeyRef: { name: "app", key: "MODE" } } },
      { name: "BOTH", value: "$(M)/$(DB_user)" },
    ],
  };
  assert.deepEqual(await buildEnv(pod(c), c, { ...ctx, objects: objs }), [
    { key: "MODE", value: "fast" },
    { key: "LEVEL", value: "override-fast" },
    { key: "DB_pw", value: "s3cr3t" },
    { key: "DB_user", value: "u" },
    { key: "PASSWORD", value: "s3cr3t" },
    { key: "M", value: "fast" },
    { key: "BOTH", value: "fast/u" },
  ]);
  assert.deepEqual(objs.reads, ["configmap/app", "secret/creds"], "each object read once");
});

Deno.test("buildEnv: missing objects and keys fail with upstream's messages unless optional", async () => {
  const objs = objects({ app: { k: "v" } }, { creds: { pw: "x" } });
  const fails: [V1Container["env"], RegExp, unknown][] = [
    [
      [{ name: "X", valueFrom: { configMapKeyRef: { name: "nope", key: "k" } } }],
      /^configmap "nope" not found$/,
      NotFoundError,
    ],
    [
      [{ name: "X", valueFrom: { secretKeyRef: { name: "nope", key: "k" } } }],
      /^secret "nope" not found$/,
      NotFoundError,
    ],
    [
      [{ name: "X", valueFrom: { configMapKeyRef: { name: "app", key: "y" } } }],
      /^couldn't find key y in ConfigMap prod\/app$/,
      EnvSourceError,
    ],
    [
      [{ name: "X", valueFrom: { secretKeyRef: { name: "creds", key: "y" } } }],
      /^couldn't find key y in Secret prod\/creds$/,
      EnvSourceError,
    ],
  ];
  for (const [env, re, kind] of fails) {
    const c: V1Container = { name: "c", env };
    await assert.rejects(buildEnv(pod(c), c, { ...ctx, objects: objs }), (e) => {
      assert.match((e as Error).message, re);
      assert.ok(isKind(e, kind as typeof DenoletError));
      return true;
    });
  }
  const c: V1Container = {
    name: "c",
    envFrom: [{ configMapRef: { name: "nope", optional: true } }],
    env: [
      { name: "A", valueFrom: { configMapKeyRef: { name: "nope", key: "k", optional: true } } },
      { name: "B", valueFrom: { configMapKeyRef: { name: "app", key: "y", optional: true } } },
      { name: "C", valueFrom: { secretKeyRef: { name: "creds", key: "y", optional: true } } },
      { name: "D", value: "d" },
    ],
  };
  assert.deepEqual(await buildEnv(pod(c), c, { ...ctx, objects: objs }), [
    { key: "D", value: "d" },
  ]);
  const envFrom: V1Container = { name: "c", envFrom: [{ secretRef: { name: "nope" } }] };
  await assert.rejects(
    buildEnv(pod(envFrom), envFrom, { ...ctx, objects: objs }),
    (e) => isKind(e, NotFoundError) && (e as Error).message === 'secret "nope" not found',
  );
});

Deno.test("buildEnv: failures other than not-found fail even optional references", async () => {
  const broken: EnvObjects = {
    configMap: () => Promise.reject(new DenoletError("failed to sync configmap cache")),
    secret: () => Promise.reject(new DenoletError("unreachable")),
  };
  const c: V1Container = {
    name: "c",
    env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "m", key: "k", optional: true } } }],
  };
  await assert.rejects(buildEnv(pod(c), c, { ...ctx, objects: broken }), /failed to sync/);
});

Deno.test("buildEnv skips envFrom keys that cannot be variable names, with a warning", async () => {
  const lines: string[] = [];
  const logger = createLogger({ write: (l) => lines.push(l) });
  const objs = objects({ app: { "ok.key-1": "a", "bad=key": "b", "tab\tkey": "c" } });
  const c: V1Container = { name: "c", envFrom: [{ configMapRef: { name: "app" } }] };
  assert.deepEqual(await buildEnv(pod(c), c, { ...ctx, objects: objs, logger }), [
    { key: "ok.key-1", value: "a" },
  ]);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /InvalidEnvironmentVariableNames/);
  assert.match(
    lines[0],
    /Keys \[bad=key, tab\\tkey\] from the EnvFrom configMap prod\/app were skipped since they are considered invalid environment variable names\./,
  );
});

Deno.test("buildEnv formats whole label and annotation maps as the downward API does", async () => {
  const c: V1Container = {
    name: "c",
    env: [{ name: "L", valueFrom: { fieldRef: { fieldPath: "metadata.labels" } } }],
  };
  const p = pod(c);
  p.metadata!.labels = { b: "2", a: 'say "hi"' };
  assert.deepEqual(await buildEnv(p, c, ctx), [{ key: "L", value: 'a="say \\"hi\\""\nb="2"' }]);
});
