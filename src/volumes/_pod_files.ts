/**
 * Files the kubelet writes into a pod's directory and bind-mounts into containers: the managed
 * /etc/hosts and the per-instance termination-message file (kubelet_pods.go, kuberuntime_container.go).
 */
import type { V1HostAlias } from "@kubernetes/client-node";
import { ConfigError } from "../util/errors.ts";
import { pathComponent } from "../util/path_component.ts";

const HEADER = "# Kubernetes-managed hosts file.\n";
const HEADER_HOST_NETWORK = "# Kubernetes-managed hosts file (host network).\n";

/**
 * <rootDir>/pods/<uid>. Throws ConfigError for a uid that is not a single safe path component
 * (empty, `.`, `..`, or holding `/` or NUL): the directory is removed recursively with the pod.
 */
export function podDir(rootDir: string, uid: string): string {
  return `${rootDir.replace(/\/+$/, "")}/pods/${pathComponent(uid, "metadata.uid")}`;
}

export interface EtcHostsInput {
  podIPs: string[];
  hostname: string;
  /** <subdomain>.<ns>.svc.<clusterDomain>, or "". */
  domain: string;
  hostAliases?: V1HostAlias[];
  hostNetwork: boolean;
  /** Node hosts file copied for host-network pods; default /etc/hosts. */
  nodeHostsPath?: string;
}

function aliasLines(aliases: V1HostAlias[] | undefined): string {
  if (!aliases?.length) return "";
  let s = "\n# Entries added by HostAliases.\n";
  for (const a of aliases) s += `${a.ip}\t${(a.hostnames ?? []).join("\t")}\n`;
  return s;
}

/** The managed hosts file content for a pod with its own network namespace. */
export function managedHostsContent(input: EtcHostsInput): string {
  let s = HEADER +
    "127.0.0.1\tlocalhost\n" +
    "::1\tlocalhost ip6-localhost ip6-loopback\n" +
    "fe00::0\tip6-localnet\n" +
    "fe00::0\tip6-mcastprefix\n" +
    "fe00::1\tip6-allnodes\n" +
    "fe00::2\tip6-allrouters\n";
  for (const ip of input.podIPs) {
    s += input.domain
      ? `${ip}\t${input.hostname}.${input.domain}\t${input.hostname}\n`
      : `${ip}\t${input.hostname}\n`;
  }
  return s + aliasLines(input.hostAliases);
}

/** Writes <podDir>/etc-hosts (0644) and returns its path. Rewritten on every call. */
export function writeEtcHosts(dir: string, input: EtcHostsInput): string {
  const path = `${dir}/etc-hosts`;
  try {
    const content = input.hostNetwork
      ? HEADER_HOST_NETWORK + Deno.readTextFileSync(input.nodeHostsPath ?? "/etc/hosts") +
        aliasLines(input.hostAliases)
      : managedHostsContent(input);
    Deno.mkdirSync(dir, { recursive: true, mode: 0o750 });
    Deno.writeTextFileSync(path, content, { mode: 0o644 });
    Deno.chmodSync(path, 0o644);
  } catch (err) {
    throw new ConfigError("/etc/hosts", `cannot write the pod's hosts file ${path}`, {
      cause: err,
    });
  }
  return path;
}

/**
 * Creates an empty 0666 file <podDir>/containers/<name>/<random 8 hex> for one container
 * instance's termination message; a fresh name per instance so a restart starts empty.
 */
export function createTerminationLogFile(dir: string, containerName: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  const id = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  const containerDir = `${dir}/containers/${pathComponent(containerName, "container name")}`;
  const path = `${containerDir}/${id}`;
  try {
    Deno.mkdirSync(containerDir, { recursive: true, mode: 0o750 });
    Deno.writeFileSync(path, new Uint8Array(), { mode: 0o666 });
    // The umask would otherwise strip write access for non-root container users.
    Deno.chmodSync(path, 0o666);
  } catch (err) {
    throw new ConfigError("terminationMessagePath", `cannot create termination log file ${path}`, {
      cause: err,
    });
  }
  return path;
}
