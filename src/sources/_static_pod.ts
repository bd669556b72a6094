/**
 * What the kubelet does to every pod from a file or URL (pkg/kubelet/config/common.go
 * `applyDefaults`): a UID derived from the content, a node-unique name, the namespace, the node
 * binding and the config annotations.
 */
import { isObj, type Obj } from "./_fields.ts";
import { md5Hex } from "../util/digest.ts";
import { stableStringify } from "./_stable.ts";
import type { SourceName } from "./types.ts";
import { CONFIG_SOURCE_ANNOTATION } from "../util/static_pod.ts";

export { CONFIG_SOURCE_ANNOTATION };
export const CONFIG_HASH_ANNOTATION = "kubernetes.io/config.hash";
export const CONFIG_SEEN_ANNOTATION = "kubernetes.io/config.seen";

export interface StaticPodOrigin {
  /** File path, or the URL for the http source. */
  path: string;
  source: SourceName;
  nodeName: string;
}

/**
 * The static pod UID. Like upstream it hashes the decoded, API-defaulted pod (so comments and
 * formatting do not matter, any field change does) followed by `host:<node>file:<path>` for
 * files or `url:<url>` for http. Upstream hashes Go's in-memory object with fnv/md5, so the value
 * differs from upstream's, but it is just as stable across restarts. As upstream, the URL source
 * does not mix in the node name: the same URL yields the same UID on every node.
 */
export function staticPodUid(defaulted: Obj, origin: StaticPodOrigin): string {
  const where = origin.source === "file"
    ? `host:${origin.nodeName}file:${origin.path}`
    : `url:${origin.path}`;
  return md5Hex(stableStringify(defaulted), where);
}

/** Mutates a validated, API-defaulted pod into the static pod the kubelet runs. */
export function applyStaticPodTreatment(pod: Obj, origin: StaticPodOrigin): void {
  const meta = (isObj(pod.metadata) ? pod.metadata : (pod.metadata = {})) as Obj;
  const spec = pod.spec as Obj;
  // A UID set in the manifest is kept, as upstream does; otherwise it is derived from content.
  if (typeof meta.uid !== "string" || meta.uid === "") meta.uid = staticPodUid(pod, origin);
  meta.name = `${meta.name}-${origin.nodeName.toLowerCase()}`;
  if (typeof meta.namespace !== "string" || meta.namespace === "") meta.namespace = "default";
  spec.nodeName = origin.nodeName;
  const annotations = (isObj(meta.annotations) ? meta.annotations : {}) as Record<string, string>;
  annotations[CONFIG_HASH_ANNOTATION] = meta.uid as string;
  annotations[CONFIG_SOURCE_ANNOTATION] = origin.source;
  meta.annotations = annotations;
  if (origin.source === "file") {
    // Static pods tolerate every NoExecute taint so node problems do not evict them; upstream
    // adds this for file pods only.
    addOrUpdateToleration(spec, { operator: "Exists", effect: "NoExecute" });
  }
  pod.status = { phase: "Pending" };
}

function addOrUpdateToleration(spec: Obj, toleration: Record<string, string>): void {
  const list = Array.isArray(spec.tolerations) ? spec.tolerations as Obj[] : [];
  const same = (t: Obj) =>
    (t.key ?? "") === (toleration.key ?? "") && (t.operator ?? "") === toleration.operator &&
    (t.value ?? "") === (toleration.value ?? "") && (t.effect ?? "") === toleration.effect;
  const i = list.findIndex(same);
  if (i >= 0) list[i] = { ...toleration };
  else list.push({ ...toleration });
  spec.tolerations = list;
}
