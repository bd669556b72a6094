/** Shared types and errors of the user namespace manager. */
import { DenoletError } from "../util/errors.ts";

/** Upstream's `userNamespaces.idsPerPod` default, and the unit every range is a multiple of. */
export const DEFAULT_IDS_PER_POD = 65536;

/** Upstream's file name for a pod's range in its directory. */
export const MAPPINGS_FILE = "userns";

/** A user namespace configuration or allocation that cannot be used. */
export class UsernsError extends DenoletError {}

/**
 * A pod asks for a user namespace its runtime handler cannot give. The message is upstream's,
 * word for word: users search for it in FailedCreatePodSandBox events.
 */
export class UsernsUnsupportedError extends DenoletError {}

/** One mapping as persisted in the pod directory (upstream's JSON field names). */
export interface PersistedMapping {
  hostId: number;
  containerId: number;
  length: number;
}

/** The `userns` file of a pod directory, as upstream writes it. */
export interface PersistedUserNamespace {
  uidMappings: PersistedMapping[];
  gidMappings: PersistedMapping[];
}

/** The file operations the manager needs: tests pass an in-memory one. */
export interface UsernsFs {
  /** The file's text; undefined when it does not exist. */
  readFile(path: string): Promise<string | undefined>;
  /** Replaces `path` atomically and durably (temp file, fsync, rename, fsync of the directory). */
  writeFileAtomic(path: string, data: string): Promise<void>;
  /** Removes a file; a missing one is not an error. */
  remove(path: string): Promise<void>;
  /** Creates a directory with its parents when missing. */
  ensureDir(path: string): Promise<void>;
  /** Names of the pod directories (pod UIDs); empty when the directory is missing. */
  listPodDirs(): Promise<string[]>;
}
