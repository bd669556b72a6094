/**
 * What cAdvisor learns from containerd about a container cgroup, learnt here from the CRI: its
 * pod and container names (the CRI labels, which containerd keeps on its containers), its image
 * name and creation time. Ids are remembered; the CRI is asked again only when a cgroup appears
 * whose id is not known, so a steady node costs no CRI call per scrape.
 */
import type {
  Container,
  Image,
  ImageService,
  PodSandbox,
  RuntimeService,
} from "../../cri/types.ts";

const LABEL_NODE_NAME = "io.denolet.node-name";
const LABEL_POD_NAME = "io.kubernetes.pod.name";
const LABEL_POD_NAMESPACE = "io.kubernetes.pod.namespace";
const LABEL_CONTAINER_NAME = "io.kubernetes.container.name";

/** A container or sandbox the runtime runs for this node. */
export interface KnownContainer {
  pod: string;
  namespace: string;
  /** "" for a sandbox (it has no container name label, as upstream's pause series). */
  container: string;
  /** The image name containerd keeps on the container ("" when unknown). */
  image: string;
  /** When the runtime created it, ms since the epoch. */
  createdAtMs: number;
}

export interface InventoryDeps {
  runtime: Pick<RuntimeService, "listPodSandbox" | "listContainers">;
  image: Pick<ImageService, "listImages">;
  nodeName: string;
  /** The pause image's name when the runtime does not say (--pod-infra-container-image). */
  sandboxImage?: string;
}

export class Inventory {
  readonly #deps: InventoryDeps;
  /** null: asked, and the runtime does not know it (not ours, or being removed). */
  readonly #byId = new Map<string, KnownContainer | null>();
  /** Image id → name. */
  #imageNames = new Map<string, string>();
  #pinnedImage: string | undefined;

  constructor(deps: InventoryDeps) {
    this.#deps = deps;
  }

  /**
   * The runtime's view of each id: lists sandboxes and containers (and images, for names not
   * known yet) when some id was never asked about. Forgets ids not in `ids`. A CRI failure
   * rejects; nothing is remembered from it.
   */
  async resolve(
    ids: string[],
    opts: { signal?: AbortSignal } = {},
  ): Promise<Map<string, KnownContainer | undefined>> {
    const wanted = new Set(ids);
    for (const id of this.#byId.keys()) if (!wanted.has(id)) this.#byId.delete(id);
    if (ids.some((id) => !this.#byId.has(id))) await this.#refresh(wanted, opts.signal);
    return new Map(ids.map((id) => [id, this.#byId.get(id) ?? undefined]));
  }

  async #refresh(wanted: Set<string>, signal: AbortSignal | undefined): Promise<void> {
    const d = this.#deps;
    const labelSelector = { [LABEL_NODE_NAME]: d.nodeName };
    const [sandboxes, containers] = await Promise.all([
      d.runtime.listPodSandbox({ labelSelector }, { signal }),
      d.runtime.listContainers({ labelSelector }, { signal }),
    ]);
    const needed = containers.filter((c) => wanted.has(c.id)).map((c) => c.imageRef);
    if (
      needed.some((ref) => !this.#imageNames.has(ref)) ||
      (sandboxes.some((s) => wanted.has(s.id)) && this.#pinnedImage === undefined)
    ) {
      this.#learnImages(await d.image.listImages({ signal }));
    }
    for (const sb of sandboxes) if (wanted.has(sb.id)) this.#byId.set(sb.id, this.#sandbox(sb));
    for (const c of containers) if (wanted.has(c.id)) this.#byId.set(c.id, this.#container(c));
    for (const id of wanted) if (!this.#byId.has(id)) this.#byId.set(id, null);
  }

  /**
   * containerd names a container's image after the image's first reference, tags before
   * digests (docker.Sort), which is the first RepoTag, else the first RepoDigest.
   */
  #learnImages(images: Image[]): void {
    this.#imageNames = new Map(images.map((i) => [i.id, imageName(i)]));
    // containerd (1.7+) pins its sandbox image and nothing else by default.
    const pinned = images.filter((i) => i.pinned);
    this.#pinnedImage = pinned.length === 1 ? imageName(pinned[0]) : "";
  }

  #sandbox(sb: PodSandbox): KnownContainer {
    return {
      pod: sb.labels[LABEL_POD_NAME] ?? sb.metadata.name,
      namespace: sb.labels[LABEL_POD_NAMESPACE] ?? sb.metadata.namespace,
      container: "",
      image: this.#pinnedImage || this.#deps.sandboxImage || "",
      createdAtMs: sb.createdAt / 1e6,
    };
  }

  #container(c: Container): KnownContainer {
    return {
      pod: c.labels[LABEL_POD_NAME] ?? "",
      namespace: c.labels[LABEL_POD_NAMESPACE] ?? "",
      container: c.labels[LABEL_CONTAINER_NAME] ?? c.metadata.name,
      image: this.#imageNames.get(c.imageRef) ?? c.image.image,
      createdAtMs: c.createdAt / 1e6,
    };
  }
}

function imageName(i: Image): string {
  return i.repoTags[0] ?? i.repoDigests[0] ?? i.id;
}
