import assert from "node:assert/strict";
import { DECLARABLE_FEATURES, declaredFeatures } from "../../src/node/_declared_features.ts";
import { KUBELET_VERSION, KUBERNETES_VERSION } from "../../src/agent/version.ts";
import { KUBERNETES_VERSION as CONTROL_PLANE_VERSION } from "../support/control_plane.ts";
import { BUILD_INFO } from "../../src/build_info/mod.ts";

const RUNTIME = {
  supplementalGroupsPolicy: true,
  userNamespacesHostNetwork: true,
  mountOptions: true,
};

const RESIZE = [
  "InPlacePodLevelResourcesVerticalScaling",
  "InPlacePodVerticalScalingInitContainers",
];

Deno.test("declared features: in-place resize, and nothing denolet does not implement, whatever the gates and runtime", () => {
  const all = Object.fromEntries(DECLARABLE_FEATURES.map((f) => [f.name, true]));
  // Both on by default in v1.37 (beta and GA): the API server then accepts pod-level and init
  // container resizes for this node.
  assert.deepEqual(declaredFeatures({}, RUNTIME), RESIZE);
  assert.deepEqual(declaredFeatures(all, RUNTIME), RESIZE);
  assert.deepEqual(
    declaredFeatures({ InPlacePodLevelResourcesVerticalScaling: false }, RUNTIME),
    ["InPlacePodVerticalScalingInitContainers"],
  );
});

Deno.test("declared features: an implemented feature is declared with its gate on and the runtime's support", () => {
  const registry = DECLARABLE_FEATURES.map((f) =>
    f.name === "VolumeBindMountOptions" || f.name === "InPlacePodVerticalScalingMemoryBackedVolumes"
      ? { ...f, implemented: true }
      : f
  );
  // VolumeBindMountOptions is on by default upstream and needs the runtime's mount options.
  assert.deepEqual(declaredFeatures({}, RUNTIME, registry), [...RESIZE, "VolumeBindMountOptions"]);
  assert.deepEqual(declaredFeatures({}, { ...RUNTIME, mountOptions: false }, registry), RESIZE);
  assert.deepEqual(declaredFeatures({ VolumeBindMountOptions: false }, RUNTIME, registry), RESIZE);
  // An alpha one only with its gate set.
  assert.deepEqual(
    declaredFeatures({ InPlacePodVerticalScalingMemoryBackedVolumes: true }, RUNTIME, registry),
    [...RESIZE, "InPlacePodVerticalScalingMemoryBackedVolumes", "VolumeBindMountOptions"],
  );
});

Deno.test("declared features: upstream's v1.37 registry, sorted by name", () => {
  const names = DECLARABLE_FEATURES.map((f) => f.name);
  assert.deepEqual(names, names.toSorted());
  assert.equal(names.length, 9);
});

Deno.test("kubeletVersion: the Kubernetes version denolet implements, denolet's as build metadata", () => {
  assert.equal(KUBERNETES_VERSION, CONTROL_PLANE_VERSION, "the release the e2e suites run against");
  assert.equal(KUBELET_VERSION, `v1.37.2+denolet.${BUILD_INFO.version}`);
  // apimachinery's version.ParseSemantic (kubeadm's skew checks parse the Node's version so).
  const semver =
    /^v?([0-9]+)\.([0-9]+)\.([0-9]+)(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;
  const m = semver.exec(KUBELET_VERSION);
  assert.ok(m, KUBELET_VERSION);
  assert.deepEqual([m[1], m[2], m[3], m[5]], ["1", "37", "2", undefined]);
});
