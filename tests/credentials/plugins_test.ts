/**
 * Credential provider plugins: the config and its checks, the exec protocol with a real
 * (shell) plugin, matchImages, the response cache by cacheKeyType and cacheDuration, and the
 * service-account-token mode.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  loadCredentialProviders,
  type PluginRequest,
  type PluginResponse,
  type ServiceAccountSource,
} from "../../src/credentials/plugins/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";

const V1 = "credentialprovider.kubelet.k8s.io/v1";

async function tmp() {
  const dir = await Deno.makeTempDir({ prefix: "denolet-credplugin-" });
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function plugin(dir: string, name: string, script: string): Promise<void> {
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await Deno.writeTextFile(`${dir}/bin/${name}`, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
}

function config(providers: unknown[]): string {
  return JSON.stringify({
    apiVersion: "kubelet.config.k8s.io/v1",
    kind: "CredentialProviderConfig",
    providers,
  });
}

const POD: V1Pod = {
  metadata: { namespace: "ns", name: "web", uid: "pod-uid" },
  spec: { serviceAccountName: "builder", containers: [] },
};

Deno.test("credential plugins: the exec protocol with a real plugin", async () => {
  await using t = await tmp();
  await plugin(
    t.dir,
    "ecr-like",
    `cat > "$0.request"
echo "PLUGIN_ENV=$PLUGIN_ENV ARGS=$*" > "$0.env"
cat <<'JSON'
{"apiVersion":"${V1}","kind":"CredentialProviderResponse","cacheKeyType":"Registry",
 "cacheDuration":"10m","auth":{"*.example.com":{"username":"bot","password":"s3cret"}}}
JSON`,
  );
  await plugin(t.dir, "broken", `echo "no credentials today" >&2; exit 3`);
  await Deno.writeTextFile(
    `${t.dir}/config.yaml`,
    config([
      {
        name: "ecr-like",
        matchImages: ["*.example.com"],
        defaultCacheDuration: "1m",
        apiVersion: V1,
        args: ["--verbose"],
        env: [{ name: "PLUGIN_ENV", value: "prod" }],
      },
      {
        name: "broken",
        matchImages: ["reg.example.com"],
        defaultCacheDuration: "0s",
        apiVersion: V1,
      },
    ]),
  );
  const providers = await loadCredentialProviders({
    configPath: `${t.dir}/config.yaml`,
    binDir: `${t.dir}/bin`,
    clock: new FakeClock(),
    logger: nullLogger,
  });
  assert.deepEqual(providers.names, ["ecr-like", "broken"]);
  const found = await providers.keyring(POD).lookup("reg.example.com/team/app");
  // The broken plugin is logged and contributes nothing.
  assert.deepEqual(found.map((c) => [c.username, c.password, c.source]), [[
    "bot",
    "s3cret",
    undefined,
  ]]);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${t.dir}/bin/ecr-like.request`)), {
    kind: "CredentialProviderRequest",
    apiVersion: V1,
    image: "reg.example.com/team/app",
  });
  assert.equal(
    (await Deno.readTextFile(`${t.dir}/bin/ecr-like.env`)).trim(),
    "PLUGIN_ENV=prod ARGS=--verbose",
  );
  // matchImages: another registry never reaches the plugin.
  await Deno.remove(`${t.dir}/bin/ecr-like.request`);
  assert.deepEqual(await providers.keyring(POD).lookup("quay.io/app"), []);
  await assert.rejects(Deno.stat(`${t.dir}/bin/ecr-like.request`), Deno.errors.NotFound);
});

Deno.test("credential plugins: upstream's config checks and start errors", async () => {
  await using t = await tmp();
  await Deno.mkdir(`${t.dir}/bin`);
  const load = (configPath: string, binDir = `${t.dir}/bin`) =>
    loadCredentialProviders({ configPath, binDir, clock: new FakeClock(), logger: nullLogger });
  const write = (name: string, text: string) => Deno.writeTextFile(`${t.dir}/${name}`, text);
  await write("bad.json", config([{ name: "a/b", matchImages: [], apiVersion: "v9" }]));
  await assert.rejects(
    load(`${t.dir}/bad.json`),
    (e: Error) =>
      e.message ===
        "failed to validate credential provider config: [" +
          `providers.name: Invalid value: "a/b": provider name cannot contain '/', ` +
          `providers.apiVersion: Unsupported value: "v9": supported values: "${V1}", ` +
          '"credentialprovider.kubelet.k8s.io/v1alpha1", "credentialprovider.kubelet.k8s.io/v1beta1", ' +
          "providers.matchImages: Required value: at least 1 item in matchImages is required, " +
          "providers.defaultCacheDuration: Required value]",
  );
  await write(
    "ok.json",
    config([{ name: "p", matchImages: ["x.io"], defaultCacheDuration: "1m", apiVersion: V1 }]),
  );
  await assert.rejects(
    load(`${t.dir}/ok.json`),
    /plugin binary executable .*\/bin\/p did not exist/,
  );
  await assert.rejects(
    load(`${t.dir}/ok.json`, `${t.dir}/nope`),
    /plugin binary directory .*\/nope did not exist/,
  );
  await assert.rejects(load(""), /credential provider config path is empty/);
  await write(
    "sa.json",
    config([{
      name: "p",
      matchImages: ["x.io"],
      defaultCacheDuration: "1m",
      apiVersion: V1,
      tokenAttributes: {
        serviceAccountTokenAudience: "aud",
        requireServiceAccount: false,
        requiredServiceAccountAnnotationKeys: ["k"],
        cacheType: "Forever",
      },
    }]),
  );
  await assert.rejects(
    load(`${t.dir}/sa.json`),
    /requireServiceAccount cannot be false when requiredServiceAccountAnnotationKeys is set, providers\.tokenAttributes\.cacheType: Unsupported value: "Forever"/,
  );
  // A directory: its files in name order, names unique across them.
  await Deno.mkdir(`${t.dir}/conf.d`);
  await Deno.writeTextFile(
    `${t.dir}/conf.d/a.yaml`,
    config([{ name: "p", matchImages: ["x.io"], defaultCacheDuration: "1m", apiVersion: V1 }]),
  );
  await Deno.writeTextFile(
    `${t.dir}/conf.d/b.json`,
    config([{ name: "p", matchImages: ["y.io"], defaultCacheDuration: "1m", apiVersion: V1 }]),
  );
  await assert.rejects(
    load(`${t.dir}/conf.d`),
    /duplicate provider name "p" found in configuration file\(s\)/,
  );
  await write("typo.json", config([{ name: "p", matchImage: ["x.io"] }]));
  await assert.rejects(
    load(`${t.dir}/typo.json`),
    /error decoding config .*unknown field "providers\[0\]\.matchImage"/,
  );
});

/** Providers over a fake runner that counts runs and answers `answer(request)`. */
async function fakeProviders(
  t: { dir: string },
  provider: Record<string, unknown>,
  answer: (r: PluginRequest) => Partial<PluginResponse>,
  serviceAccounts?: ServiceAccountSource,
) {
  await plugin(t.dir, "fake", "exit 1");
  await Deno.writeTextFile(
    `${t.dir}/c.json`,
    config([{ name: "fake", apiVersion: V1, ...provider }]),
  );
  const clock = new FakeClock();
  const runs: PluginRequest[] = [];
  const providers = await loadCredentialProviders({
    configPath: `${t.dir}/c.json`,
    binDir: `${t.dir}/bin`,
    clock,
    logger: nullLogger,
    serviceAccounts,
    run: (_p, request) => {
      runs.push(request);
      return Promise.resolve({ cacheKeyType: "Image", auth: {}, ...answer(request) });
    },
  });
  return {
    clock,
    runs,
    lookup: (image: string, pod = POD) => providers.keyring(pod).lookup(image),
  };
}

const creds = (user: string) => ({ "*.example.com": { username: user, password: "pw" } });

Deno.test("credential plugins: the response cache by cacheKeyType and cacheDuration", async () => {
  await using t = await tmp();
  for (
    const [keyType, sameImage, sameRegistry, otherRegistry] of [
      ["Image", 1, 2, 3],
      ["Registry", 1, 1, 2],
      ["Global", 1, 1, 1],
    ] as const
  ) {
    const f = await fakeProviders(
      t,
      { matchImages: ["*.example.com"], defaultCacheDuration: "5m" },
      () => ({
        cacheKeyType: keyType,
        auth: creds("u"),
      }),
    );
    await f.lookup("a.example.com/x");
    await f.lookup("a.example.com/x");
    assert.equal(f.runs.length, sameImage, `${keyType}: same image`);
    await f.lookup("a.example.com/y");
    assert.equal(f.runs.length, sameRegistry, `${keyType}: same registry`);
    await f.lookup("b.example.com/x");
    assert.equal(f.runs.length, otherRegistry, `${keyType}: other registry`);
    // The provider's default duration: gone after 5 minutes.
    await f.clock.advance(5 * 60_000 + 1);
    await f.lookup("a.example.com/x");
    assert.equal(f.runs.length, otherRegistry + 1, `${keyType}: after expiry`);
  }
  // The response's duration wins; 0 caches nothing.
  const zero = await fakeProviders(t, {
    matchImages: ["*.example.com"],
    defaultCacheDuration: "5m",
  }, () => ({
    cacheDurationMs: 0,
    auth: creds("u"),
  }));
  await zero.lookup("a.example.com/x");
  await zero.lookup("a.example.com/x");
  assert.equal(zero.runs.length, 2);
  const bad = await fakeProviders(
    t,
    { matchImages: ["*.example.com"], defaultCacheDuration: "5m" },
    () => ({
      cacheKeyType: "Forever",
      auth: creds("u"),
    }),
  );
  assert.deepEqual(await bad.lookup("a.example.com/x"), []);
});

Deno.test("credential plugins: service-account-token mode", async () => {
  await using t = await tmp();
  const tokens: string[] = [];
  const accounts: ServiceAccountSource = {
    get: (ns, name) =>
      name === "builder"
        ? Promise.resolve({
          uid: "sa-uid",
          annotations: { "example.com/role": "pull", other: "x" },
        })
        : Promise.reject(new Error(`serviceaccount "${ns}/${name}" not found`)),
    token: (pod, audience) => {
      tokens.push(`${pod.namespace}/${pod.serviceAccountName}/${pod.uid}@${audience}`);
      return Promise.resolve(`token-${tokens.length}`);
    },
  };
  const f = await fakeProviders(
    t,
    {
      matchImages: ["*.example.com"],
      defaultCacheDuration: "5m",
      tokenAttributes: {
        serviceAccountTokenAudience: "registry.example.com",
        requireServiceAccount: true,
        requiredServiceAccountAnnotationKeys: ["example.com/role"],
        cacheType: "ServiceAccount",
      },
    },
    (r) => ({ auth: creds(r.serviceAccountToken === "leak" ? "x" : "sa-user") }),
    accounts,
  );
  const found = await f.lookup("a.example.com/x");
  assert.deepEqual(found.map((c) => [c.username, c.source]), [[
    "sa-user",
    { serviceAccount: { uid: "sa-uid", namespace: "ns", name: "builder" } },
  ]]);
  assert.deepEqual(f.runs[0], {
    image: "a.example.com/x",
    serviceAccountToken: "token-1",
    serviceAccountAnnotations: { "example.com/role": "pull" },
  });
  assert.deepEqual(tokens, ["ns/builder/pod-uid@registry.example.com"]);
  // Cached per service account: another pod of the same account needs no run.
  await f.lookup("a.example.com/x", { ...POD, metadata: { ...POD.metadata, uid: "pod-2" } });
  assert.equal(f.runs.length, 1);
  // No service account, or one without the required annotation: nothing from this provider.
  const nobody = { ...POD, spec: { containers: [] } };
  assert.deepEqual(await f.lookup("a.example.com/x", nobody), []);
  const unknown = { ...POD, spec: { serviceAccountName: "ghost", containers: [] } };
  assert.deepEqual(await f.lookup("a.example.com/x", unknown), []);
  assert.equal(f.runs.length, 1);
});

Deno.test("credential plugins: a token handed back as the password is refused unless cacheType is Token", async () => {
  await using t = await tmp();
  const accounts: ServiceAccountSource = {
    get: () => Promise.resolve({ uid: "sa-uid", annotations: {} }),
    token: () => Promise.resolve("the-token"),
  };
  const attrs = { serviceAccountTokenAudience: "aud", requireServiceAccount: true };
  const echo = (r: PluginRequest) => ({
    auth: { "*.example.com": { username: "u", password: r.serviceAccountToken ?? "" } },
  });
  const sa = await fakeProviders(
    t,
    {
      matchImages: ["*.example.com"],
      defaultCacheDuration: "5m",
      tokenAttributes: { ...attrs, cacheType: "ServiceAccount" },
    },
    echo,
    accounts,
  );
  assert.deepEqual(await sa.lookup("a.example.com/x"), []);
  const token = await fakeProviders(
    t,
    {
      matchImages: ["*.example.com"],
      defaultCacheDuration: "5m",
      tokenAttributes: { ...attrs, cacheType: "Token" },
    },
    echo,
    accounts,
  );
  assert.deepEqual((await token.lookup("a.example.com/x")).map((c) => c.password), ["the-token"]);
});
