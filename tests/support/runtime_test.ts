/**
 * End-to-end: the dev runtime can do what the agent needs through the project's CRI client —
 * a sandbox from our pause image on the dev bridge, a busybox container, a hostPort.
 */
import assert from "node:assert/strict";
import { createCriClient } from "../../src/cri/mod.ts";
import type { PodSandboxConfig } from "../../src/cri/types.ts";
import { ensureContainerd, runtimeNetwork } from "./containerd.ts";
import { freePort, removeAgentSandboxes, waitFor } from "./agent.ts";

Deno.test("the dev runtime runs a networked sandbox and container via the CRI", async () => {
  const rt = await ensureContainerd({ log: () => {} });
  const cri = createCriClient(rt.endpoint, { timeoutMs: 30_000 });
  const node = `support-${Deno.pid}`;
  const logDir = await Deno.makeTempDir({ prefix: "denolet-support-" });
  const hostPort = freePort();
  const config: PodSandboxConfig = {
    metadata: { name: `web-${node}`, uid: crypto.randomUUID(), namespace: "default", attempt: 0 },
    hostname: "web",
    logDirectory: logDir,
    portMappings: [{ protocol: "TCP", containerPort: 8080, hostPort, hostIp: "" }],
    linux: {
      securityContext: { namespaceOptions: { network: "POD", pid: "CONTAINER", ipc: "POD" } },
    },
  };
  try {
    const sandboxId = await cri.runtime.runPodSandbox(config);
    const status = await cri.runtime.podSandboxStatus(sandboxId);
    assert.equal(status.state, "SANDBOX_READY");
    // On the runtime's pod network (denolet0's 10.85.0.0/16 unless DENOLET_DEV_NETWORK says).
    const prefix = runtimeNetwork().subnet.split(".").slice(0, 2).join(".") + ".";
    assert.ok((status.network?.ip ?? "").startsWith(prefix), status.network?.ip);

    const containerId = await cri.runtime.createContainer(sandboxId, {
      metadata: { name: "httpd", attempt: 0 },
      image: { image: rt.images.busybox },
      command: [
        "sh",
        "-c",
        "mkdir /www && echo hello > /www/index.html && httpd -f -p 8080 -h /www",
      ],
      logPath: "httpd.log",
    }, config);
    await cri.runtime.startContainer(containerId);
    const fetchText = async (url: string) => {
      const res = await fetch(url);
      return res.ok ? (await res.text()).trim() : (await res.body?.cancel(), false);
    };
    const viaPodIp = await waitFor(() => fetchText(`http://${status.network!.ip}:8080/`), {
      timeoutMs: 10_000,
      what: "httpd on the pod IP",
    });
    assert.equal(viaPodIp, "hello");
    assert.equal(await fetchText(`http://127.0.0.1:${hostPort}/`), "hello");
  } finally {
    assert.equal(await removeAgentSandboxes(cri.runtime, node), 1);
    cri.close();
    await Deno.remove(logDir, { recursive: true });
  }
});
