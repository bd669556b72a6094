/**
 * The ConfigMaps and Secrets a pod names (podutil.VisitPodConfigmapNames / VisitPodSecretNames,
 * for the sources denolet reads): image pull secrets, volumes, projected sources, env and envFrom
 * of every container.
 * The Node authorizer lets a kubelet read exactly these, one object at a time.
 */
import type { V1Container, V1EphemeralContainer, V1Pod } from "@kubernetes/client-node";

export interface PodRefs {
  configMaps: Set<string>;
  secrets: Set<string>;
}

function containerRefs(c: V1Container | V1EphemeralContainer, refs: PodRefs): void {
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef?.name) refs.configMaps.add(from.configMapRef.name);
    if (from.secretRef?.name) refs.secrets.add(from.secretRef.name);
  }
  for (const e of c.env ?? []) {
    const cm = e.valueFrom?.configMapKeyRef?.name;
    if (cm) refs.configMaps.add(cm);
    const s = e.valueFrom?.secretKeyRef?.name;
    if (s) refs.secrets.add(s);
  }
}

/** Names of the ConfigMaps and Secrets `pod` references. */
export function podRefs(pod: V1Pod): PodRefs {
  const refs: PodRefs = { configMaps: new Set(), secrets: new Set() };
  const spec = pod.spec;
  for (const ref of spec?.imagePullSecrets ?? []) if (ref.name) refs.secrets.add(ref.name);
  for (const v of spec?.volumes ?? []) {
    if (v.configMap?.name) refs.configMaps.add(v.configMap.name);
    if (v.secret?.secretName) refs.secrets.add(v.secret.secretName);
    for (const s of v.projected?.sources ?? []) {
      if (s.configMap?.name) refs.configMaps.add(s.configMap.name);
      if (s.secret?.name) refs.secrets.add(s.secret.name);
    }
  }
  for (const c of spec?.initContainers ?? []) containerRefs(c, refs);
  for (const c of spec?.containers ?? []) containerRefs(c, refs);
  for (const c of spec?.ephemeralContainers ?? []) containerRefs(c, refs);
  return refs;
}
