/**
 * The command line of an agent started by hand rather than by startAgent (under a permission
 * set of its own, or timed from its first instruction), with every directory of its own under
 * one temporary dir: static pods, root dir and pod logs (the default /var/log/pods is shared by
 * every agent on the machine, whose log GC removes what it does not know).
 */
import { stringify as toYaml } from "yaml";

export interface OwnDirsAgentOptions {
  /** The CRI endpoint. */
  endpoint: string;
  /** The read-only port (its /healthz); the authenticated port stays closed. */
  readOnlyPort: number;
  hostname: string;
}

/**
 * Writes `<dir>/kubelet.yaml` (podLogsDir `<dir>/pods`), makes `<dir>/manifests`, and returns
 * the config file and the flags that name them; callers append their own.
 */
export async function ownDirsAgentArgs(
  dir: string,
  o: OwnDirsAgentOptions,
): Promise<{ configFile: string; args: string[] }> {
  const configFile = `${dir}/kubelet.yaml`;
  await Deno.writeTextFile(
    configFile,
    toYaml({
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      podLogsDir: `${dir}/pods`,
    }),
  );
  await Deno.mkdir(`${dir}/manifests`);
  return {
    configFile,
    args: [
      "--config",
      configFile,
      "--container-runtime-endpoint",
      o.endpoint,
      "--pod-manifest-path",
      `${dir}/manifests`,
      "--root-dir",
      `${dir}/root`,
      "--read-only-port",
      String(o.readOnlyPort),
      "--port",
      "0",
      "--hostname-override",
      o.hostname,
    ],
  };
}
