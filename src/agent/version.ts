import { BUILD_INFO } from "../build_info/mod.ts";

/** The agent's version, from deno.json (the commit is in BUILD_INFO). */
export const VERSION: string = BUILD_INFO.version;

/** The Kubernetes release whose kubelet behaviour denolet implements (its API, flags, messages). */
export const KUBERNETES_VERSION = "v1.37.2";

/**
 * The Node's kubeletVersion: the Kubernetes version, with denolet's own as semver build metadata
 * (as k3s reports `v1.30.2+k3s1`), so version-skew checks (kubeadm's, which parses it as semver),
 * `kubectl get nodes` and dashboards see a v1.37 kubelet, and the node still says what it runs.
 */
export const KUBELET_VERSION = `${KUBERNETES_VERSION}+denolet.${VERSION}`;
