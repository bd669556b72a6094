import assert from "node:assert/strict";
import {
  allowlistPattern,
  type PodCredentials,
  PullManager,
  type VerificationPolicy,
  verificationPolicy,
} from "../../src/images/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { sha256Hex } from "../../src/util/digest.ts";
import { nullLogger } from "../../src/util/log.ts";

const IMAGE = "reg.example.com/team/app:1";
const REF = "sha256:" + "1".repeat(64);
const SECRET = { uid: "u1", namespace: "ns", name: "regcred", credentialHash: "h1" };

type Img = { id: string; repoTags: string[]; repoDigests: string[] };

async function setup(
  policy: VerificationPolicy = "NeverVerifyPreloadedImages",
  images: Img[] = [],
) {
  const rootDir = await Deno.makeTempDir({ prefix: "denolet-pullrec-" });
  const clock = new FakeClock(Date.parse("2026-01-02T03:04:05.678Z"));
  const make = async (p = policy, allow: string[] = []) => {
    const m = new PullManager({
      rootDir,
      clock,
      logger: nullLogger,
      requireVerification: verificationPolicy(p, allow),
      listImages: () => Promise.resolve(images),
    });
    await m.initialize();
    return m;
  };
  return {
    rootDir,
    clock,
    make,
    async [Symbol.asyncDispose]() {
      await Deno.remove(rootDir, { recursive: true });
    },
  };
}

const creds = (c: PodCredentials) => () => Promise.resolve(c);
const none = creds({ secrets: [] });
const noLookup = () => Promise.reject(new Error("credentials looked up although not needed"));

Deno.test("pull records: an image pulled with a Secret goes only to pods with that Secret or its credentials", async () => {
  await using env = await setup();
  const m = await env.make();
  await m.recordPullIntent(IMAGE);
  await m.recordImagePulled(IMAGE, REF, { kubernetesSecrets: [SECRET] });
  assert.equal(await m.mustAttemptImagePull(IMAGE, REF, none), true);
  assert.equal(await m.mustAttemptImagePull(IMAGE, REF, creds({ secrets: [SECRET] })), false);
  // Another tag of the same repository counts as the same image.
  assert.equal(
    await m.mustAttemptImagePull("reg.example.com/team/app:2", REF, creds({ secrets: [SECRET] })),
    false,
  );
  // The same credentials in another namespace's Secret: accepted and remembered.
  const copy = { uid: "u2", namespace: "other", name: "copy", credentialHash: "h1" };
  assert.equal(await m.mustAttemptImagePull(IMAGE, REF, creds({ secrets: [copy] })), false);
  // Other credentials are not.
  const other = { uid: "u3", namespace: "x", name: "y", credentialHash: "h9" };
  assert.equal(await m.mustAttemptImagePull(IMAGE, REF, creds({ secrets: [other] })), true);
});

Deno.test("pull records: survive a restart in upstream's file format", async () => {
  await using env = await setup();
  const m = await env.make();
  await m.recordPullIntent(IMAGE);
  await m.recordImagePulled(IMAGE, REF, { kubernetesSecrets: [SECRET] });
  const file = `${env.rootDir}/image_manager/pulled/sha256-${await sha256Hex(REF)}`;
  assert.deepEqual(JSON.parse(await Deno.readTextFile(file)), {
    kind: "ImagePulledRecord",
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    lastUpdatedTime: "2026-01-02T03:04:05Z",
    imageRef: REF,
    credentialMapping: { "reg.example.com/team/app": { kubernetesSecrets: [SECRET] } },
  });
  // The intent is gone once the pull is recorded.
  assert.deepEqual([...Deno.readDirSync(`${env.rootDir}/image_manager/pulling`)], []);
  const again = await env.make();
  assert.equal(await again.mustAttemptImagePull(IMAGE, REF, none), true);
  assert.equal(await again.mustAttemptImagePull(IMAGE, REF, creds({ secrets: [SECRET] })), false);
});

Deno.test("pull records: an anonymous pull serves every pod; preloaded images follow the policy", async () => {
  await using env = await setup();
  const m = await env.make();
  await m.recordPullIntent(IMAGE);
  await m.recordImagePulled(IMAGE, REF, { nodePodsAccessible: true });
  assert.equal(await m.mustAttemptImagePull(IMAGE, REF, noLookup), false);
  // A later pull with a Secret does not narrow an image anyone could pull.
  await m.recordImagePulled(IMAGE, REF, { kubernetesSecrets: [SECRET] });
  assert.equal(await m.mustAttemptImagePull(IMAGE, REF, noLookup), false);

  const preloaded = "sha256:" + "2".repeat(64);
  assert.equal(await m.mustAttemptImagePull("preloaded:1", preloaded, noLookup), false);
  const always = await env.make("AlwaysVerify");
  assert.equal(await always.mustAttemptImagePull("preloaded:1", preloaded, noLookup), true);
  const never = await env.make("NeverVerify");
  await never.recordImagePulled(IMAGE, REF, { kubernetesSecrets: [SECRET] });
  assert.equal(await never.mustAttemptImagePull("x/y:1", REF, noLookup), false);
  const allow = await env.make("NeverVerifyAllowlistedImages", ["preloaded", "reg.example.com/*"]);
  assert.equal(await allow.mustAttemptImagePull("preloaded:1", preloaded, noLookup), false);
  assert.equal(
    await allow.mustAttemptImagePull("reg.example.com/a/b:1", preloaded, noLookup),
    false,
  );
  assert.equal(await allow.mustAttemptImagePull("other:1", preloaded, noLookup), true);
});

Deno.test("pull records: an intent left by a crash makes the image the kubelet's; the next start settles it", async () => {
  const images = [{ id: REF, repoTags: [IMAGE], repoDigests: [] }];
  await using env = await setup("NeverVerifyPreloadedImages", images);
  const m = await env.make();
  await m.recordPullIntent(IMAGE);
  // Pulled but not recorded yet (or never, the agent died): pods must prove themselves.
  assert.equal(await m.mustAttemptImagePull(IMAGE, REF, none), true);
  const after = await env.make();
  assert.deepEqual([...Deno.readDirSync(`${env.rootDir}/image_manager/pulling`)], []);
  // A record without credentials: still verified, as upstream.
  assert.equal(await after.mustAttemptImagePull(IMAGE, REF, creds({ secrets: [SECRET] })), true);
});

Deno.test("pull records: a rotated Secret (same coordinates, new credentials) is accepted and recorded", async () => {
  await using env = await setup();
  const m = await env.make();
  await m.recordImagePulled(IMAGE, REF, { kubernetesSecrets: [SECRET] });
  const rotated = { ...SECRET, credentialHash: "h2" };
  assert.equal(await m.mustAttemptImagePull(IMAGE, REF, creds({ secrets: [rotated] })), false);
  const again = await env.make();
  assert.equal(await again.mustAttemptImagePull(IMAGE, REF, creds({ secrets: [rotated] })), false);
});

Deno.test("pull records: image GC drops the records of removed images updated before it began", async () => {
  await using env = await setup();
  const m = await env.make();
  const gone = "sha256:" + "3".repeat(64);
  await m.recordImagePulled(IMAGE, REF, { kubernetesSecrets: [SECRET] });
  await m.recordImagePulled("reg.example.com/gone:1", gone, { kubernetesSecrets: [SECRET] });
  await env.clock.advance(60_000);
  await m.pruneUnknownRecords([REF], env.clock.now());
  const files = [...Deno.readDirSync(`${env.rootDir}/image_manager/pulled`)].map((e) => e.name);
  assert.deepEqual(files, [`sha256-${await sha256Hex(REF)}`]);
  // A pod of `gone` is now like one of a preloaded image.
  assert.equal(await m.mustAttemptImagePull("reg.example.com/gone:1", gone, noLookup), false);
});

Deno.test("allowlistPattern: upstream's rules", () => {
  assert.deepEqual(allowlistPattern("reg.example.com/*"), {
    pattern: "reg.example.com/",
    wildcard: true,
  });
  assert.deepEqual(allowlistPattern("busybox"), { pattern: "busybox", wildcard: false });
  assert.throws(() => allowlistPattern(" busybox"), /leading\/trailing spaces/);
  assert.throws(() => allowlistPattern("busybox:1"), /neither tag nor digest/);
  assert.throws(() => allowlistPattern("reg/*/x"), /only patterns ending with '\/\*'/);
  assert.throws(() => allowlistPattern("/*"), /at least registry hostname/);
});
