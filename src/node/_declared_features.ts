/**
 * `status.declaredFeatures` (NodeDeclaredFeatures, GA in 1.37): the features whose support the
 * node declares, so that the API server and the scheduler send it only pods and updates it can
 * handle. Upstream's kubelet asks k8s.io/component-helpers/nodedeclaredfeatures: each feature in
 * its registry is declared when its gate is on (and, for some, the runtime has what it needs).
 * denolet declares a feature only where it implements it; the registry is listed whole so that
 * adding one is flipping its `implemented`.
 */
import type { RuntimeFeatures } from "../cri/types.ts";

export interface DeclarableFeature {
  /** The feature's name, as declared (each is named after its gate). */
  name: string;
  /** Upstream's default for the gate in v1.37. */
  gateDefault: boolean;
  /** A CRI Status feature the runtime must report too. */
  runtime?: keyof RuntimeFeatures;
  /** Whether denolet does what the feature promises. */
  implemented: boolean;
}

/** Upstream's registry (features.AllFeatures) in v1.37, by name. */
export const DECLARABLE_FEATURES: readonly DeclarableFeature[] = [
  // Dynamic resource allocation: denolet has no DRA drivers.
  { name: "DRANodeAllocatableResources", gateDefault: false, implemented: false },
  { name: "DRAOptionalNodeOperations", gateDefault: true, implemented: false },
  // The API server would then send exec, attach and port-forward as WebSocket v5 straight to
  // the node, which denolet passes to the runtime's streaming server unchanged; containerd 1.6's
  // speaks v4 only, so it is not declared.
  { name: "ExtendWebSocketsToKubelet", gateDefault: true, implemented: false },
  // In-place resize (src/allocation, the runtime manager's resize): pod-level resources (beta,
  // on) and init containers (GA) resize as upstream's do; memory-backed emptyDir sizes (alpha)
  // do not, and resizes of them are Infeasible.
  { name: "InPlacePodLevelResourcesVerticalScaling", gateDefault: true, implemented: true },
  { name: "InPlacePodVerticalScalingInitContainers", gateDefault: true, implemented: true },
  { name: "InPlacePodVerticalScalingMemoryBackedVolumes", gateDefault: false, implemented: false },
  // restartPolicyRules with RestartAllContainers are refused at admission.
  { name: "RestartAllContainersOnContainerExits", gateDefault: false, implemented: false },
  {
    name: "UserNamespacesHostNetworkSupport",
    gateDefault: false,
    runtime: "userNamespacesHostNetwork",
    implemented: false,
  },
  // volumeMounts[].bindMountOptions are refused at admission.
  {
    name: "VolumeBindMountOptions",
    gateDefault: true,
    runtime: "mountOptions",
    implemented: false,
  },
];

/**
 * What the node declares: the implemented features whose gate is on (`gates` names those set;
 * the rest have upstream's default) and whose runtime feature the runtime reports. Sorted by
 * name, as upstream's framework lists them.
 */
export function declaredFeatures(
  gates: Readonly<Record<string, boolean>>,
  runtime: RuntimeFeatures | undefined,
  registry: readonly DeclarableFeature[] = DECLARABLE_FEATURES,
): string[] {
  return registry.filter((f) =>
    f.implemented && (gates[f.name] ?? f.gateDefault) &&
    (f.runtime === undefined || runtime?.[f.runtime] === true)
  ).map((f) => f.name);
}
