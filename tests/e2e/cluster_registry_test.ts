/**
 * Pulls from a private registry in API mode, against the real control plane, containerd and a
 * real registry (distribution, HTTPS with a certificate from a test CA that containerd trusts
 * through its registry `config_path`, htpasswd authentication, on loopback): a pod with the right
 * image pull secret runs; one without credentials and one with a wrong password get
 * ErrImagePull / ImagePullBackOff with the runtime's message as upstream shows it. Verified
 * reuse: once pulled with credentials, the image is not handed to a pod without them (another
 * namespace, and again after an agent restart), while a pod with the same credentials reuses it.
 * A credential provider plugin (a shell script speaking the exec protocol) serves the
 * credentials instead of a Secret. Parallel pulls: three images of one pod with
 * --serialize-image-pulls=false, each Pulled event with upstream's durations and image size.
 */
import assert from "node:assert/strict";
import type { CoreV1Event, CoreV1EventList, V1Pod } from "@kubernetes/client-node";
import { createCriClient } from "../../src/cri/mod.ts";
import { waitFor } from "../support/agent.ts";
import { type DevOptions, ensureContainerd, stopContainerd } from "../support/containerd.ts";
import { type Registry, startRegistry } from "../support/registry.ts";
import { busyboxPod, type ClusterE2E, E2E_TEST, setupCluster } from "./_cluster.ts";

const TIMEOUT = 120_000;
/**
 * A private containerd: the shared dev one may have been started before its config had a
 * registry `config_path`, and is never restarted for a test. Its own bridge and subnet (the
 * bench's are denolet1/3, conformance's denolet5/6).
 */
const RUNTIME: DevOptions = {
  dir: "/var/lib/denolet-registry-e2e",
  network: { bridge: "denolet7", subnet: "10.94.0.0/16" },
};
const USER = "alice";
const PASSWORD = "right-horse-battery";

function dockerSecret(name: string, registry: string, password: string, namespace = "default") {
  const auth = btoa(`${USER}:${password}`);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace },
    type: "kubernetes.io/dockerconfigjson",
    stringData: { ".dockerconfigjson": JSON.stringify({ auths: { [registry]: { auth } } }) },
  };
}

function privatePod(
  c: ClusterE2E,
  name: string,
  image: string,
  opts: { secret?: string; namespace?: string } = {},
): V1Pod {
  const pod = busyboxPod(name, "sleep 3600", {
    node: c.nodeName,
    namespace: opts.namespace,
    extra: {
      automountServiceAccountToken: false,
      imagePullSecrets: opts.secret ? [{ name: opts.secret }] : undefined,
    },
  });
  pod.spec!.containers[0].image = image;
  return pod;
}

function waiting(p: V1Pod) {
  return p.status?.containerStatuses?.[0]?.state?.waiting;
}

async function eventsOf(c: ClusterE2E, name: string, namespace = "default") {
  return (await c.getJson<CoreV1EventList>([
    "events",
    "-n",
    namespace,
    "--field-selector",
    `involvedObject.name=${name}`,
  ]))?.items ?? [];
}

/** Waits for the pod's image error; both reasons follow each other as the back-off runs. */
async function waitPullError(c: ClusterE2E, name: string, image: string, namespace = "default") {
  const p = await c.waitPod(
    name,
    (p) => ["ErrImagePull", "ImagePullBackOff"].includes(waiting(p)?.reason ?? ""),
    { namespace, timeoutMs: TIMEOUT, what: `${name} to fail its pull` },
  );
  const w = waiting(p)!;
  // containerd's answer through gRPC, as the upstream kubelet prints it.
  const prefix = w.reason === "ImagePullBackOff"
    ? `Back-off pulling image "${image}": ErrImagePull: rpc error: code = `
    : "rpc error: code = ";
  assert.ok(w.message?.startsWith(prefix), `${w.reason}: ${w.message}`);
  assert.match(w.message ?? "", /401 Unauthorized|authorization failed|unauthorized/i);
  const failed = await waitFor(async () => {
    const evs = await eventsOf(c, name, namespace);
    return evs.find((e: CoreV1Event) =>
      e.reason === "Failed" && e.message?.startsWith(`Failed to pull image "${image}": rpc error`)
    );
  }, { what: `${name}'s Failed event`, timeoutMs: 30_000 });
  assert.equal(failed.type, "Warning");
}

Deno.test({
  name: "API mode: image pull secrets against a private registry",
  ...E2E_TEST,
  async fn(t) {
    let registry: Registry | undefined;
    let c: ClusterE2E | undefined;
    const pulled: string[] = [];
    try {
      const runtime = await ensureContainerd(RUNTIME);
      registry = await startRegistry({
        users: { [USER]: PASSWORD },
        tls: { trustDir: runtime.registryConfigDir },
      });
      c = await setupCluster({ runtime: RUNTIME });
      const cluster = c;
      const reg = registry;
      const marker = crypto.randomUUID();
      const app = await reg.pushBusybox("team/app", { marker, user: USER });
      const other = await reg.pushBusybox("team/other", { marker: `${marker}-other`, user: USER });
      pulled.push(app.image, other.image);
      await cluster.apply(
        dockerSecret("regcred", reg.host, PASSWORD),
        dockerSecret("wrongcred", reg.host, "not-the-password"),
      );

      await t.step("the registry serves HTTPS only, with the test CA's certificate", async () => {
        assert.ok(reg.url.startsWith("https://"));
        // Plain HTTP gets Go's "HTTP request to an HTTPS server" 400, not the API's 401: the
        // pulls below can only go over TLS.
        const plain = await fetch(`http://${reg.host}/v2/`);
        assert.equal(plain.status, 400, await plain.text());
        // Without the test CA the certificate is not trusted (the pushes above trusted it).
        await assert.rejects(fetch(`${reg.url}/v2/`).then((r) => r.text()));
      });

      await t.step("the right secret pulls and the pod runs", async () => {
        await cluster.apply(privatePod(cluster, "private-ok", app.image, { secret: "regcred" }));
        const p = await cluster.waitPod("private-ok", (p) => p.status?.phase === "Running", {
          timeoutMs: TIMEOUT,
          what: "private-ok to run",
        });
        assert.match(p.status?.containerStatuses?.[0]?.imageID ?? "", /sha256:/);
        const evs = await eventsOf(cluster, "private-ok");
        assert.ok(
          evs.some((e) =>
            e.reason === "Pulled" &&
            e.message?.startsWith(`Successfully pulled image "${app.image}"`)
          ),
          evs.map((e) => `${e.reason}: ${e.message}`).join("\n"),
        );
      });

      await t.step(
        "no secret: ErrImagePull / ImagePullBackOff with the registry's refusal",
        async () => {
          await cluster.apply(privatePod(cluster, "private-anon", other.image));
          await waitPullError(cluster, "private-anon", other.image);
        },
      );

      await t.step("a wrong password: the same refusal", async () => {
        await cluster.apply(
          privatePod(cluster, "private-wrong", other.image, { secret: "wrongcred" }),
        );
        await waitPullError(cluster, "private-wrong", other.image);
      });

      await t.step(
        "a missing secret: upstream's FailedToRetrieveImagePullSecret event",
        async () => {
          await cluster.apply(
            privatePod(cluster, "private-missing", other.image, { secret: "nope" }),
          );
          await waitPullError(cluster, "private-missing", other.image);
          const ev = await waitFor(
            async () =>
              (await eventsOf(cluster, "private-missing")).find((e) =>
                e.reason === "FailedToRetrieveImagePullSecret"
              ),
            { what: "FailedToRetrieveImagePullSecret", timeoutMs: 30_000 },
          );
          assert.equal(
            ev.message,
            "Unable to retrieve some image pull secrets (nope); attempting to pull the image may not succeed.",
          );
        },
      );

      await t.step(
        "verified reuse: the pulled image is not handed to a pod without credentials",
        async () => {
          await cluster.apply({
            apiVersion: "v1",
            kind: "Namespace",
            metadata: { name: "tenant-b" },
          });
          const anon = privatePod(cluster, "reuse-anon", app.image, { namespace: "tenant-b" });
          // The namespace's default service account comes from the controller manager shortly.
          await waitFor(() => cluster.apply(anon).then(() => true, () => undefined), {
            timeoutMs: 30_000,
            intervalMs: 500,
            what: "the pod to be accepted in the new namespace",
          });
          await waitPullError(cluster, "reuse-anon", app.image, "tenant-b");
          // The same credentials in tenant-b's own Secret: the image is reused without a pull.
          await cluster.apply(dockerSecret("regcred-b", reg.host, PASSWORD, "tenant-b"));
          await cluster.apply(
            privatePod(cluster, "reuse-ok", app.image, {
              namespace: "tenant-b",
              secret: "regcred-b",
            }),
          );
          await cluster.waitPod("reuse-ok", (p) => p.status?.phase === "Running", {
            namespace: "tenant-b",
            timeoutMs: TIMEOUT,
            what: "reuse-ok to run",
          });
          const evs = await eventsOf(cluster, "reuse-ok", "tenant-b");
          assert.ok(
            evs.some((e) =>
              e.reason === "Pulled" &&
              e.message ===
                `Container image "${app.image}" already present on machine and can be accessed by the pod`
            ),
            evs.map((e) => `${e.reason}: ${e.message}`).join("\n"),
          );
        },
      );

      await t.step("verified reuse: the records survive an agent restart", async () => {
        await cluster.restartAgent();
        await cluster.apply(privatePod(cluster, "reuse-after-restart", app.image));
        await waitPullError(cluster, "reuse-after-restart", app.image);
      });

      await t.step(
        "a credential provider plugin serves the credentials instead of a Secret",
        async () => {
          const dir = await Deno.makeTempDir({ prefix: "denolet-credprov-" });
          try {
            await writePlugin(dir, reg.host);
            await cluster.restartAgent({
              extraArgs: [
                "--image-credential-provider-config",
                `${dir}/config.yaml`,
                "--image-credential-provider-bin-dir",
                `${dir}/bin`,
              ],
            });
            // other.image was never pulled: the plugin's credentials do it, no Secret named.
            await cluster.apply(privatePod(cluster, "plugin-pull", other.image));
            await cluster.waitPod("plugin-pull", (p) => p.status?.phase === "Running", {
              timeoutMs: TIMEOUT,
              what: "plugin-pull to run",
            });
            // The earlier steps' pods pull through the plugin too: one file per run.
            const requests: unknown[] = [];
            for await (const e of Deno.readDir(`${dir}/requests`)) {
              requests.push(JSON.parse(await Deno.readTextFile(`${dir}/requests/${e.name}`)));
            }
            const want = {
              kind: "CredentialProviderRequest",
              apiVersion: "credentialprovider.kubelet.k8s.io/v1",
              image: `${reg.host}/team/other`,
            };
            assert.ok(
              requests.some((r) => JSON.stringify(r) === JSON.stringify(want)),
              JSON.stringify(requests),
            );
          } finally {
            await Deno.remove(dir, { recursive: true });
          }
        },
      );

      await t.step("parallel pulls: Pulled events with durations and the image size", async () => {
        const images = [];
        for (const name of ["par-a", "par-b", "par-c"]) {
          images.push(
            await reg.pushBusybox(`team/${name}`, { marker: `${marker}-${name}`, user: USER }),
          );
        }
        pulled.push(...images.map((i) => i.image));
        await cluster.restartAgent({ extraArgs: ["--serialize-image-pulls=false"] });
        const pod = privatePod(cluster, "parallel", images[0].image, { secret: "regcred" });
        pod.spec!.containers = images.map((img, i) => ({
          ...pod.spec!.containers[0],
          name: `c${i}`,
          image: img.image,
        }));
        await cluster.apply(pod);
        await cluster.waitPod("parallel", (p) => p.status?.phase === "Running", {
          timeoutMs: TIMEOUT,
          what: "parallel to run",
        });
        const evs = await eventsOf(cluster, "parallel");
        for (const img of images) {
          const size = (await cluster.cri.image.imageStatus({ image: img.image }))?.size;
          const ev = evs.find((e) => e.reason === "Pulled" && e.message?.includes(img.image));
          assert.match(
            ev?.message ?? "",
            new RegExp(
              `^Successfully pulled image "${img.image.replaceAll(".", "\\.")}" in [0-9.]+m?s ` +
                `\\([0-9.]+m?s including waiting\\)\\. Image size: ${size} bytes\\.$`,
            ),
          );
        }
      });
    } finally {
      await c?.close();
      await removeImages(pulled);
      await registry?.stop();
      await stopContainerd(RUNTIME);
    }
  },
});

/** The private containerd keeps nothing of this run (the agent's containers are gone by now). */
async function removeImages(images: string[]): Promise<void> {
  const cri = createCriClient((await ensureContainerd(RUNTIME)).endpoint, { timeoutMs: 30_000 });
  try {
    for (const image of images) {
      await cri.image.removeImage({ image }).catch((err) =>
        console.error(`[registry-e2e] cannot remove ${image}: ${err}`)
      );
    }
  } finally {
    cri.close();
  }
}

/** A plugin that answers alice's credentials for the registry, and its config. */
async function writePlugin(dir: string, registry: string): Promise<void> {
  await Deno.mkdir(`${dir}/bin`);
  await Deno.mkdir(`${dir}/requests`);
  const response = JSON.stringify({
    apiVersion: "credentialprovider.kubelet.k8s.io/v1",
    kind: "CredentialProviderResponse",
    cacheKeyType: "Registry",
    cacheDuration: "5m",
    auth: { [registry]: { username: USER, password: PASSWORD } },
  });
  await Deno.writeTextFile(
    `${dir}/bin/registry-login`,
    `#!/bin/sh\ncat > "$(mktemp "${dir}/requests/XXXXXX")"\necho '${response}'\n`,
    { mode: 0o755 },
  );
  await Deno.writeTextFile(
    `${dir}/config.yaml`,
    [
      "apiVersion: kubelet.config.k8s.io/v1",
      "kind: CredentialProviderConfig",
      "providers:",
      "  - name: registry-login",
      "    apiVersion: credentialprovider.kubelet.k8s.io/v1",
      `    matchImages: ["${registry}"]`,
      "    defaultCacheDuration: 1m",
      "",
    ].join("\n"),
  );
}
