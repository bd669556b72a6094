/** What the allocation records of a pod (upstream allocation/state PodResourceInfo). */
import type { V1ResourceRequirements } from "@kubernetes/client-node";

export interface PodResourceInfo {
  /** By container name, init containers included (ContainerResources). */
  containers: Record<string, V1ResourceRequirements>;
  /** spec.resources (PodLevelResources), when the pod sets them. */
  pod?: V1ResourceRequirements;
}
