import assert from "node:assert/strict";
import {
  ImageNameError,
  parseNormalizedImage,
  repositoryOf,
  trimTagDigest,
} from "../../src/util/image_name.ts";

const DIGEST = "sha256:" + "a".repeat(64);

Deno.test("repositoryOf: Docker's normalisation (ParseNormalizedNamed().Name())", () => {
  assert.equal(repositoryOf("busybox"), "docker.io/library/busybox");
  assert.equal(repositoryOf("busybox:1.36"), "docker.io/library/busybox");
  assert.equal(repositoryOf("me/app:1"), "docker.io/me/app");
  assert.equal(repositoryOf("index.docker.io/me/app"), "docker.io/me/app");
  assert.equal(repositoryOf("localhost/app"), "localhost/app");
  assert.equal(repositoryOf("127.0.0.1:5000/private/app:1"), "127.0.0.1:5000/private/app");
  assert.equal(repositoryOf(`reg.example.com/app@${DIGEST}`), "reg.example.com/app");
  assert.deepEqual(parseNormalizedImage(`r.io/a:v1@${DIGEST}`), {
    domain: "r.io",
    path: "a",
    tag: "v1",
    digest: DIGEST,
  });
  assert.throws(() => repositoryOf("Busybox"), ImageNameError);
  assert.throws(() => repositoryOf("a".repeat(64)), /64-byte hexadecimal/);
  assert.throws(() => repositoryOf("a b"), /invalid reference format/);
});

Deno.test("trimTagDigest: the name as written, without tag and digest", () => {
  assert.equal(trimTagDigest("busybox:1.36"), "busybox");
  assert.equal(trimTagDigest("127.0.0.1:5000/private/app:1"), "127.0.0.1:5000/private/app");
  assert.equal(trimTagDigest(`reg.example.com/app:v@${DIGEST}`), "reg.example.com/app");
  assert.equal(trimTagDigest("localhost:5000/app"), "localhost:5000/app");
});
