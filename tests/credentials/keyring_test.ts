import assert from "node:assert/strict";
import {
  BasicKeyring,
  type DockerConfig,
  unionKeyring,
  urlsMatch,
} from "../../src/credentials/mod.ts";
import {
  globMatch,
  hashAuthConfig,
  isDefaultRegistryMatch,
} from "../../src/credentials/keyring.ts";
import { sha256Hex } from "../../src/util/digest.ts";

function cfg(entries: Record<string, string>): DockerConfig {
  return new Map(
    Object.entries(entries).map(([k, user]) => [k, { username: user, password: "pw", email: "" }]),
  );
}

Deno.test("urlsMatch: host labels with globs, same port, path prefix (upstream URLsMatch)", () => {
  const yes: [string, string][] = [
    ["*.kubernetes.io", "prefix.kubernetes.io"],
    ["prefix.*.io", "prefix.kubernetes.io"],
    ["prefix.kubernetes.*", "prefix.kubernetes.io"],
    ["*-good.kubernetes.io", "prefix-good.kubernetes.io"],
    ["*.kubernetes.io/blah", "prefix.kubernetes.io/blah/another"],
    ["*.kubernetes.io/foo", "prefix.kubernetes.io/foo/bar"],
    ["prefix.kubernetes.io:8080", "prefix.kubernetes.io:8080"],
    ["127.0.0.1:5000", "127.0.0.1:5000/private/app"],
    ["registry.example.com/team", "registry.example.com/teamwork/app"],
    ["[::1]:5000", "[::1]:5000/app"],
    ["k8s.io", "k8s.io/pause"],
    ["[a-z]eg.example.com", "reg.example.com/x"],
  ];
  for (const [glob, target] of yes) assert.ok(urlsMatch(glob, target), `${glob} ~ ${target}`);
  const no: [string, string][] = [
    ["*.kubernetes.io", "kubernetes.io"], // label count differs
    ["*.kubernetes.io", "a.b.kubernetes.io"],
    ["prefix.kubernetes.io:8080", "prefix.kubernetes.io"], // port differs
    ["prefix.kubernetes.io", "prefix.kubernetes.io:8080"],
    ["*.kubernetes.io/foo", "prefix.kubernetes.io/bar"],
    ["127.0.0.1:5000/private", "127.0.0.1:5000/public/app"],
    ["*-good.kubernetes.io", "prefix-bad.kubernetes.io"],
    ["[^r]eg.example.com", "reg.example.com/x"],
    ["[unclosed.example.com", "[unclosed.example.com"],
    ["r?g.example.com", "reg.example.com/x"], // url.Parse: "?" starts the query, the host is "r"
  ];
  for (const [glob, target] of no) assert.ok(!urlsMatch(glob, target), `${glob} !~ ${target}`);
  assert.ok(globMatch("a\\*b", "a*b"));
  assert.ok(!globMatch("a\\*b", "axb"));
});

Deno.test("BasicKeyring: every matching endpoint, most specific first; /v1/ and schemes stripped", async () => {
  const k = new BasicKeyring();
  await k.add(
    undefined,
    cfg({
      "https://registry.example.com/v2/": "host",
      "registry.example.com/team/app": "app",
      "http://registry.example.com/team": "team",
      "*.example.com": "glob",
      "other.io": "other",
    }),
  );
  const users = (repo: string) => k.lookup(repo).map((c) => c.username);
  assert.deepEqual(users("registry.example.com/team/app"), ["app", "team", "host", "glob"]);
  assert.deepEqual(users("registry.example.com/solo"), ["host", "glob"]);
  assert.deepEqual(users("mirror.example.com/x"), ["glob"]);
  assert.deepEqual(users("docker.io/library/busybox"), []);
});

Deno.test("BasicKeyring: several Secrets for one endpoint are tried in the order added", async () => {
  const k = new BasicKeyring();
  const src = (name: string) => ({ secret: { uid: `u-${name}`, namespace: "ns", name } });
  await k.add(src("old"), cfg({ "reg.example.com": "old" }));
  await k.add(src("new"), cfg({ "reg.example.com": "new" }));
  const found = k.lookup("reg.example.com/app");
  assert.deepEqual(found.map((c) => [c.username, c.source?.secret?.name]), [
    ["old", "old"],
    ["new", "new"],
  ]);
});

Deno.test("BasicKeyring: Docker Hub credentials under index.docker.io serve short names", async () => {
  const k = new BasicKeyring();
  await k.add(undefined, cfg({ "https://index.docker.io/v1/": "hub" }));
  assert.deepEqual(k.lookup("docker.io/library/busybox").map((c) => c.username), ["hub"]);
  assert.deepEqual(k.lookup("quay.io/app").map((c) => c.username), []);
  assert.ok(isDefaultRegistryMatch("docker.io/library/busybox"));
  assert.ok(isDefaultRegistryMatch("index.docker.io/me/app"));
  assert.ok(isDefaultRegistryMatch("me/app"));
  assert.ok(!isDefaultRegistryMatch("reg.example.com/app"));
  assert.ok(!isDefaultRegistryMatch("localhost:5000/app"));
});

Deno.test("unionKeyring: the keyrings' answers in keyring order", async () => {
  const a = new BasicKeyring();
  const b = new BasicKeyring();
  await a.add(undefined, cfg({ "reg.example.com": "a" }));
  await b.add(undefined, cfg({ "reg.example.com": "b" }));
  const u = unionKeyring([a, undefined, b]);
  assert.deepEqual((await u.lookup("reg.example.com/x")).map((c) => c.username), ["a", "b"]);
});

Deno.test("hashAuthConfig: sha256 of the AuthConfig as Go's json.Marshal writes it", async () => {
  assert.equal(
    await hashAuthConfig({ username: "u", password: "p<&>", email: "" }),
    await sha256Hex('{"username":"u","password":"p\\u003c\\u0026\\u003e"}'),
  );
});
