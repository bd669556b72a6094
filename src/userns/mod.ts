/**
 * User namespaces (`spec.hostUsers: false`): the range of host IDs this node may use, one range
 * per pod persisted in its directory, and the CRI options that ask the runtime for them.
 */
export * from "./types.ts";
export { type IdRange, KUBELET_USER, kubeletIdRange, type ReadHostFile } from "./_kubelet_range.ts";
export { denoUsernsFs } from "./_deno_fs.ts";
export { openUserNamespaces } from "./_open.ts";
export {
  UserNamespaces,
  type UserNamespacesConfig,
  type UserNamespacesDeps,
} from "./user_namespaces.ts";
