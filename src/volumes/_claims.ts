/**
 * A pod's claim volumes (persistentVolumeClaim and generic ephemeral) resolved to their bound
 * PersistentVolumes as upstream's desired-state populator resolves them (createVolumeSpec,
 * getPVCExtractPV, getPVSpec), with its messages; the errors of one pod gathered into the
 * error WaitForAttachAndMount gives the kubelet's FailedMount event.
 */
import type {
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Volume,
} from "@kubernetes/client-node";
import type { PodClaims } from "../objects/types.ts";
import { DenoletError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";

/** A claim volume and what it is bound to. */
export interface ResolvedClaim {
  claim: V1PersistentVolumeClaim;
  volume: V1PersistentVolume;
  /** The pod's `persistentVolumeClaim.readOnly` (an ephemeral volume's is never set). */
  readOnly: boolean;
}

/** One volume could not be processed; the message is upstream's populator error. */
export class ClaimError extends DenoletError {}

/**
 * Some of the pod's volumes could not be processed (upstream's WaitForAttachAndMount error):
 * `unmounted volumes=[a b], unattached volumes=[], failed to process volumes=[a]: <why>`.
 * The kubelet's event says `Unable to attach or mount volumes: ` and this.
 */
export class VolumeProcessingError extends DenoletError {
  constructor(
    readonly unmounted: string[],
    readonly failed: string[],
    why: string,
    options?: ErrorOptions,
  ) {
    super(
      `unmounted volumes=[${unmounted.join(" ")}], unattached volumes=[], failed to process ` +
        `volumes=[${failed.join(" ")}]: ${why}`,
      options,
    );
  }
}

/** The claim a volume names: its own, or `<pod>-<volume>` for a generic ephemeral one. */
export function claimNameOf(pod: V1Pod, v: V1Volume): string | undefined {
  if (v.persistentVolumeClaim) return v.persistentVolumeClaim.claimName;
  if (v.ephemeral) return `${pod.metadata?.name}-${v.name}`;
  return undefined;
}

/** Names of the volumes the pod's containers mount (upstream GetPodVolumeNames' mounts). */
export function mountedVolumeNames(pod: V1Pod): Set<string> {
  const names = new Set<string>();
  const spec = pod.spec;
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]) {
    for (const m of c.volumeMounts ?? []) names.add(m.name);
  }
  for (const c of spec?.ephemeralContainers ?? []) {
    for (const m of c.volumeMounts ?? []) names.add(m.name);
  }
  return names;
}

/**
 * Resolves one claim volume: the claim must exist, not be going away without protection, be
 * Bound to a volume whose claimRef points back at it; a generic ephemeral claim must be the
 * pod's (controlled by it); the volume's mode must be Filesystem. Throws ClaimError with
 * upstream's message.
 */
export async function resolveClaim(
  pod: V1Pod,
  v: V1Volume,
  deps: { claims: PodClaims; signal?: AbortSignal },
): Promise<ResolvedClaim> {
  const ns = pod.metadata?.namespace ?? "default";
  const name = claimNameOf(pod, v) ?? "";
  const { signal } = deps;
  const failed = (why: string, cause?: unknown) =>
    new ClaimError(`error processing PVC ${ns}/${name}: ${why}`, { cause });
  let claim: V1PersistentVolumeClaim;
  try {
    claim = await deps.claims.persistentVolumeClaim(pod, name, { signal });
  } catch (err) {
    signal?.throwIfAborted();
    throw failed(`failed to fetch PVC from API server: ${errorMessage(err)}`, err);
  }
  const finalizers = claim.metadata?.finalizers ?? [];
  if (claim.metadata?.deletionTimestamp && !finalizers.includes("kubernetes.io/pvc-protection")) {
    throw failed("PVC is being deleted");
  }
  if (claim.status?.phase !== "Bound") throw failed("PVC is not bound");
  const pvName = claim.spec?.volumeName ?? "";
  if (pvName === "") throw failed("PVC has empty pvc.Spec.VolumeName");
  if (v.ephemeral) {
    const uid = pod.metadata?.uid;
    const owned = (claim.metadata?.ownerReferences ?? []).some((o) =>
      o.controller === true && o.uid === uid
    );
    if (!owned) {
      throw new ClaimError(
        `PVC ${ns}/${name} was not created for pod ${ns}/${pod.metadata?.name} (pod is not owner)`,
      );
    }
  }
  let volume: V1PersistentVolume;
  try {
    volume = await deps.claims.persistentVolume(pod, pvName, { signal });
  } catch (err) {
    signal?.throwIfAborted();
    throw failed(`failed to fetch PV ${pvName} from API server: ${errorMessage(err)}`, err);
  }
  const ref = volume.spec?.claimRef;
  if (!ref) {
    throw failed(
      `found PV object ${pvName} but it has a nil pv.Spec.ClaimRef indicating it is not yet ` +
        "bound to the claim",
    );
  }
  if (ref.uid !== claim.metadata?.uid) {
    throw failed(
      `found PV object ${pvName} but its pv.Spec.ClaimRef.UID ${ref.uid ?? ""} does not point ` +
        `to claim.UID ${claim.metadata?.uid ?? ""}`,
    );
  }
  const mode = volume.spec?.volumeMode ?? "Filesystem";
  if (mode !== "Filesystem") {
    throw new ClaimError(
      `volume ${v.name} has volumeMode ${mode}, but is specified in volumeMounts`,
    );
  }
  return { claim, volume, readOnly: v.persistentVolumeClaim?.readOnly === true };
}

/**
 * Resolves the pod's claim volumes that containers mount (unused ones are skipped, as upstream
 * skips them), keeping those resolved before in `known` (upstream processes a pod's volumes
 * once). Every volume is tried; the failures together throw VolumeProcessingError, naming
 * as unmounted the mounted volumes not in `setUp`.
 */
export async function processClaims(
  pod: V1Pod,
  opts: {
    claims: PodClaims;
    known: Map<string, ResolvedClaim>;
    setUp: ReadonlySet<string>;
    signal?: AbortSignal;
  },
): Promise<Map<string, ResolvedClaim>> {
  const used = mountedVolumeNames(pod);
  const errors: ClaimError[] = [];
  const failed: string[] = [];
  for (const v of pod.spec?.volumes ?? []) {
    if (claimNameOf(pod, v) === undefined || !used.has(v.name) || opts.known.has(v.name)) continue;
    try {
      opts.known.set(v.name, await resolveClaim(pod, v, opts));
    } catch (err) {
      opts.signal?.throwIfAborted();
      if (!(err instanceof ClaimError)) throw err;
      errors.push(err);
      failed.push(v.name);
    }
  }
  if (errors.length) {
    const unmounted = (pod.spec?.volumes ?? []).map((v) => v.name)
      .filter((n) => used.has(n) && !opts.setUp.has(n)).sort();
    throw new VolumeProcessingError(
      unmounted,
      failed.sort(),
      errors.map((e) => e.message).join("; "),
      { cause: errors[0] },
    );
  }
  return opts.known;
}
