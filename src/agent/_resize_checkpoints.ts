/**
 * In-place resize: what each pod was allocated and what its containers were last told, in
 * upstream's checkpoints under the root dir.
 */
import {
  ACTUATED_PODS_STATE_FILE,
  ALLOCATED_PODS_STATE_FILE,
  PodResourceState,
} from "../allocation/mod.ts";
import { LEGACY_HASHES_FILE, LegacyHashes } from "../runtime/mod.ts";
import type { Logger } from "../util/log.ts";

/** Opens the checkpoints; a corrupt one throws, which stops the start, as upstream. */
export async function openResizeCheckpoints(rootDir: string, deps: { logger: Logger }) {
  const { logger } = deps;
  const allocatedState = await PodResourceState.open({
    path: `${rootDir}/${ALLOCATED_PODS_STATE_FILE}`,
    logger,
  });
  const actuatedState = await PodResourceState.open({
    path: `${rootDir}/${ACTUATED_PODS_STATE_FILE}`,
    logger,
  });
  const legacyHashes = await LegacyHashes.open({
    path: `${rootDir}/${LEGACY_HASHES_FILE}`,
    logger,
  });
  return { allocatedState, actuatedState, legacyHashes };
}
