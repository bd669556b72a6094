/**
 * What pods read from the API server besides themselves: ConfigMaps, Secrets and
 * service-account tokens. Consumers (volume plugins, container env) import these types only, so
 * the standalone agent never loads the API mode's code.
 */
import type {
  V1ConfigMap,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
} from "@kubernetes/client-node";
import { NotFoundError } from "../util/errors.ts";

/** A service-account token for a pod (a projected volume's `serviceAccountToken` source). */
export interface TokenRequestSpec {
  /** The token's audience; empty or undefined: the API server's own. */
  audience?: string;
  expirationSeconds: number;
}

/**
 * ConfigMaps and Secrets in a pod's namespace and tokens of its service account. Each call may
 * wait for the API server (the first read of an object waits for its watch to list it); abort
 * ends the wait. An object that does not exist is an ObjectNotFoundError (a NotFoundError) whose
 * message is upstream's, e.g. `configmap "app" not found`; any other failure (not referenced by
 * the pod, watch not synced in time, API server unreachable) is another error.
 */
export interface PodObjects {
  /** The ConfigMap `name` of the pod's namespace; the pod must reference it. */
  configMap(pod: V1Pod, name: string, opts?: { signal?: AbortSignal }): Promise<V1ConfigMap>;
  /** The Secret `name` of the pod's namespace; the pod must reference it. */
  secret(pod: V1Pod, name: string, opts?: { signal?: AbortSignal }): Promise<V1Secret>;
  /**
   * A token of the pod's service account bound to the pod, from the cache while fresh (less
   * than 80 % of its lifetime and 24 h gone), else from a TokenRequest.
   */
  serviceAccountToken(
    pod: V1Pod,
    spec: TokenRequestSpec,
    opts?: { signal?: AbortSignal },
  ): Promise<string>;
}

/**
 * The PersistentVolumeClaims and PersistentVolumes a pod's volumes name, as the volume manager
 * reads them when it processes the pod (a GET each; the copy last read while the API server
 * cannot be reached). A claim that does not exist is an ObjectNotFoundError with the API
 * server's words (`persistentvolumeclaims "c" not found`); abort ends the request.
 */
export interface PodClaims {
  /** The claim `name` of the pod's namespace. */
  persistentVolumeClaim(
    pod: V1Pod,
    name: string,
    opts?: { signal?: AbortSignal },
  ): Promise<V1PersistentVolumeClaim>;
  /** The PersistentVolume `name` (bound to one of the pod's claims). */
  persistentVolume(
    pod: V1Pod,
    name: string,
    opts?: { signal?: AbortSignal },
  ): Promise<V1PersistentVolume>;
}

/** `kind` is upstream's resource word in the message: "configmap", "secret". */
export class ObjectNotFoundError extends NotFoundError {
  constructor(
    readonly kind: string,
    readonly namespace: string,
    readonly objectName: string,
    options?: ErrorOptions,
  ) {
    super(`${kind} ${JSON.stringify(objectName)} not found`, options);
  }
}
