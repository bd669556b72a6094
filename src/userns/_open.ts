/** The agent's user namespace manager, set up as upstream NewMainKubelet does. */
import type { Logger } from "../util/log.ts";
import { pathComponent } from "../util/path_component.ts";
import { denoUsernsFs } from "./_deno_fs.ts";
import { kubeletIdRange } from "./_kubelet_range.ts";
import { DEFAULT_IDS_PER_POD } from "./types.ts";
import { UserNamespaces, type UserNamespacesDeps } from "./user_namespaces.ts";

/**
 * Reads the ID range this node may use and checks it against `maxPods`. Throws UsernsError
 * (the agent does not start, as upstream) when the `kubelet` user's subordinate IDs cannot be
 * used; nothing of the pods' own ranges is read until a pod asks for one.
 */
export async function openUserNamespaces(
  deps: Pick<UserNamespacesDeps, "handlerSupport" | "logger"> & { rootDir: string },
  cfg: { idsPerPod?: number; maxPods: number },
): Promise<UserNamespaces> {
  const idsPerPod = cfg.idsPerPod ?? DEFAULT_IDS_PER_POD;
  const range = await kubeletIdRange(readHostFile, { idsPerPod });
  const log: Logger = deps.logger.child({ component: "userns" });
  log.debug(2, "User namespace ID range", { ...range, idsPerPod });
  const podsDir = `${deps.rootDir.replace(/\/+$/, "")}/pods`;
  return new UserNamespaces({
    fs: denoUsernsFs(podsDir),
    // A UID that is not one safe path component never names a file (the dir is removed whole).
    podDir: (uid) => `${podsDir}/${pathComponent(uid, "metadata.uid")}`,
    handlerSupport: deps.handlerSupport,
    logger: log,
  }, { range, idsPerPod, maxPods: cfg.maxPods });
}

async function readHostFile(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}
