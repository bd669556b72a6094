/**
 * Which AppArmor profile a container asks for (upstream pkg/security/apparmor GetProfile and
 * kuberuntime getAppArmorProfile): its own appArmorProfile, else the deprecated per-container
 * annotation (static pods may still carry it), else the pod's.
 */
import type { V1AppArmorProfile, V1Container, V1Pod } from "@kubernetes/client-node";
import type { SecurityProfile } from "../cri/types.ts";

const ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/";
const RUNTIME_DEFAULT = "runtime/default";
const UNCONFINED = "unconfined";
const LOCALHOST = "localhost/";

/** The profile `container` asks for; undefined when nothing asks (the runtime's default). */
export function appArmorProfileOf(
  pod: V1Pod,
  container: V1Container,
): V1AppArmorProfile | undefined {
  const own = container.securityContext?.appArmorProfile;
  if (own) return own;
  const annotated = pod.metadata?.annotations?.[ANNOTATION_PREFIX + container.name];
  if (annotated !== undefined) {
    if (annotated === RUNTIME_DEFAULT) return { type: "RuntimeDefault" };
    if (annotated === UNCONFINED) return { type: "Unconfined" };
    if (annotated.startsWith(LOCALHOST)) {
      return { type: "Localhost", localhostProfile: annotated.slice(LOCALHOST.length) };
    }
  }
  return pod.spec?.securityContext?.appArmorProfile ?? undefined;
}

/**
 * Whether any part of the pod asks for a profile other than Unconfined (upstream isRequired):
 * such a pod needs a host that enforces AppArmor.
 */
export function appArmorRequired(pod: V1Pod): boolean {
  const spec = pod.spec;
  const confined = (p?: V1AppArmorProfile | null) => !!p && p.type !== "Unconfined";
  if (confined(spec?.securityContext?.appArmorProfile)) return true;
  const all = [
    ...(spec?.initContainers ?? []),
    ...(spec?.containers ?? []),
    ...(spec?.ephemeralContainers ?? []),
  ];
  if (all.some((c) => confined(c.securityContext?.appArmorProfile))) return true;
  return Object.entries(pod.metadata?.annotations ?? {}).some(([k, v]) =>
    k.startsWith(ANNOTATION_PREFIX) && v !== UNCONFINED
  );
}

/**
 * The CRI profile and its older annotation-syntax twin (runtimes before CRI 1.30 read only the
 * latter); undefined when nothing asks, so the runtime applies its default.
 */
export function containerAppArmor(
  pod: V1Pod,
  container: V1Container,
): { apparmor: SecurityProfile; apparmorProfile: string } | undefined {
  const p = appArmorProfileOf(pod, container);
  if (!p) return undefined;
  switch (p.type) {
    case "RuntimeDefault":
      return { apparmor: { profileType: "RuntimeDefault" }, apparmorProfile: RUNTIME_DEFAULT };
    case "Unconfined":
      return { apparmor: { profileType: "Unconfined" }, apparmorProfile: UNCONFINED };
    case "Localhost": {
      const name = p.localhostProfile ?? "";
      return {
        apparmor: { profileType: "Localhost", localhostRef: name },
        apparmorProfile: LOCALHOST + name,
      };
    }
    default:
      return undefined;
  }
}
