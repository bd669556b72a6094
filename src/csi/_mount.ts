/**
 * Mounting and unmounting CSI volumes for pods as upstream's CSI plugin does (csi_attacher,
 * csi_mounter): a claim's CSI PersistentVolume waits for its VolumeAttachment when the
 * CSIDriver says attachRequired (the default), is staged at
 * `<root-dir>/plugins/kubernetes.io/csi/<driver>/<sha256(handle)>/globalmount` when the driver
 * has STAGE_UNSTAGE_VOLUME, and published at `<pod>/volumes/kubernetes.io~csi/<pv>/mount`; an
 * inline ephemeral volume is published only, with the handle `csi-<sha256(pod uid + name)>`.
 * The attachment is asked for with upstream's back-off (_attachment.ts); the secrets the volume
 * names (nodeStageSecretRef, nodePublishSecretRef) are read and given to the driver.
 * `vol_data.json` beside each path says what it holds, so teardown (unpublish, then unstage
 * when no pod uses the volume) works after a restart too.
 */
import type { FsCapacity } from "../util/statfs.ts";
import type { V1CSIVolumeSource, V1PersistentVolume, V1Pod } from "@kubernetes/client-node";
import { type ApiClient, ApiError } from "../apiclient/types.ts";
import { sha256Hex } from "../util/digest.ts";
import type { Logger } from "../util/log.ts";
import type { Mounter } from "../volumes/_mounter.ts";
import { podFsGroup, setVolumeOwnership } from "../volumes/_ownership.ts";
import { podDir } from "../volumes/_pod_files.ts";
import type { CsiDriverClient } from "./_driver.ts";
import type { Clock } from "../util/clock.ts";
import { AttachmentWaiter } from "./_attachment.ts";
import { DriverNotRegisteredError } from "./_registry.ts";
import { PluginCsiError } from "./_errors.ts";
import { csiSecrets, type SecretRef } from "./_secrets.ts";

export const CSI_PLUGIN_DIR = "kubernetes.io~csi";
const VOL_DATA = "vol_data.json";

interface CSIDriverSpec {
  attachRequired?: boolean;
  podInfoOnMount?: boolean;
  fsGroupPolicy?: string;
  volumeLifecycleModes?: string[];
}

export interface CsiMountDeps {
  rootDir: string;
  nodeName: string;
  client: ApiClient;
  mounter: Mounter;
  logger: Logger;
  clock: Clock;
  driver: (name: string) => CsiDriverClient | undefined;
}

/** What a published volume's vol_data.json holds (upstream's keys). */
interface VolData {
  specVolID: string;
  volumeHandle: string;
  driverName: string;
  nodeName: string;
  volumeLifecycleMode: "Persistent" | "Ephemeral";
  attachmentID?: string;
}

const ACCESS_MODES: Record<string, string> = {
  ReadWriteOnce: "SINGLE_NODE_WRITER",
  ReadWriteOncePod: "SINGLE_NODE_WRITER",
  ReadOnlyMany: "MULTI_NODE_READER_ONLY",
  ReadWriteMany: "MULTI_NODE_MULTI_WRITER",
};

export function createCsiMounts(deps: CsiMountDeps) {
  const attachments = new AttachmentWaiter(deps);
  const csiDriver = async (name: string, signal?: AbortSignal) => {
    try {
      const o = await deps.client.request<{ spec?: CSIDriverSpec }>({
        method: "GET",
        path: `/apis/storage.k8s.io/v1/csidrivers/${encodeURIComponent(name)}`,
      }, { signal });
      return o.spec ?? {};
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    }
  };
  const driverFor = (name: string) => {
    const d = deps.driver(name);
    if (!d) throw new DriverNotRegisteredError(name);
    return d;
  };
  const stagingDir = async (driver: string, handle: string) =>
    `${deps.rootDir}/plugins/kubernetes.io/csi/${driver}/${await sha256Hex(handle)}`;

  async function publish(
    pod: V1Pod,
    v: {
      specName: string;
      driver: CsiDriverClient;
      handle: string;
      spec: CSIDriverSpec | undefined;
      mode: "Persistent" | "Ephemeral";
      readOnly: boolean;
      fsType: string;
      attributes: Record<string, string>;
      accessModes: string[];
      mountOptions: string[];
      staging?: string;
      publishContext: Record<string, string>;
      attachmentID?: string;
      /** nodePublishSecretRef, with the namespace filled in for an inline volume. */
      secretRef?: SecretRef;
      signal?: AbortSignal;
    },
  ): Promise<string> {
    const parent = `${
      podDir(deps.rootDir, pod.metadata?.uid ?? "")
    }/volumes/${CSI_PLUGIN_DIR}/${v.specName}`;
    const target = `${parent}/mount`;
    if (await deps.mounter.isMountPoint(target)) return target;
    await Deno.mkdir(parent, { recursive: true, mode: 0o750 });
    const data: VolData = {
      specVolID: v.specName,
      volumeHandle: v.handle,
      driverName: v.driver.name,
      nodeName: deps.nodeName,
      volumeLifecycleMode: v.mode,
    };
    if (v.attachmentID) data.attachmentID = v.attachmentID;
    await Deno.writeTextFile(`${parent}/${VOL_DATA}`, JSON.stringify(data));
    const secrets = v.secretRef
      ? await csiSecrets(deps.client, v.secretRef, {
        field: "NodePublishSecretRef",
        operation: "MountVolume.SetUp failed",
        signal: v.signal,
      })
      : {};
    const context = { ...v.attributes };
    if (v.spec?.podInfoOnMount) {
      Object.assign(context, {
        "csi.storage.k8s.io/pod.name": pod.metadata?.name ?? "",
        "csi.storage.k8s.io/pod.namespace": pod.metadata?.namespace ?? "",
        "csi.storage.k8s.io/pod.uid": pod.metadata?.uid ?? "",
        "csi.storage.k8s.io/serviceAccount.name": pod.spec?.serviceAccountName ?? "",
        "csi.storage.k8s.io/ephemeral": String(v.mode === "Ephemeral"),
      });
    }
    const caps = await v.driver.capabilities({ signal: v.signal });
    const fsGroup = podFsGroup(pod);
    const mountGroup = caps.has("VOLUME_MOUNT_GROUP") && fsGroup !== undefined
      ? String(fsGroup)
      : "";
    await v.driver.call("NodePublishVolume", {
      volumeId: v.handle,
      publishContext: v.publishContext,
      stagingTargetPath: v.staging ?? "",
      targetPath: target,
      volumeCapability: {
        mount: { fsType: v.fsType, mountFlags: v.mountOptions, volumeMountGroup: mountGroup },
        accessMode: {
          mode: ACCESS_MODES[v.accessModes[0] ?? "ReadWriteOnce"] ?? "SINGLE_NODE_WRITER",
        },
      },
      readonly: v.readOnly,
      secrets,
      volumeContext: context,
    }, { signal: v.signal });
    const policy = v.spec?.fsGroupPolicy ?? "ReadWriteOnceWithFSType";
    const applies = fsGroup !== undefined && !mountGroup && !v.readOnly && policy !== "None" &&
      (policy === "File" ||
        (v.fsType !== "" &&
          (v.mode === "Ephemeral" || v.accessModes.includes("ReadWriteOnce"))));
    if (applies) {
      await setVolumeOwnership(target, { fsGroup: fsGroup!, readOnly: false }, {
        logger: deps.logger,
      });
    }
    return target;
  }

  return {
    /**
     * A published volume's usage from its driver (upstream's csi metrics provider): undefined
     * when the driver is not registered or does not serve GET_VOLUME_STATS.
     */
    async volumeStats(
      pv: V1PersistentVolume,
      target: string,
      opts: { signal?: AbortSignal } = {},
    ): Promise<FsCapacity | undefined> {
      const src = pv.spec!.csi!;
      const driver = deps.driver(src.driver);
      if (!driver) return undefined;
      const caps = await driver.capabilities(opts);
      if (!caps.has("GET_VOLUME_STATS")) return undefined;
      const staged = caps.has("STAGE_UNSTAGE_VOLUME")
        ? `${await stagingDir(src.driver, src.volumeHandle)}/globalmount`
        : undefined;
      const usage = await driver.volumeStats({
        volumeId: src.volumeHandle,
        volumePath: target,
        stagingTargetPath: staged,
      }, opts);
      const bytes = usage.find((u) => u.unit === "BYTES");
      const inodes = usage.find((u) => u.unit === "INODES");
      return {
        capacityBytes: bytes?.total ?? 0,
        availableBytes: bytes?.available ?? 0,
        usedBytes: bytes?.used ?? 0,
        inodes: inodes?.total ?? 0,
        inodesFree: inodes?.available ?? 0,
        inodesUsed: inodes?.used ?? 0,
      };
    },
    /** A claim's CSI PersistentVolume for the pod: attach wait, stage, publish. Idempotent. */
    async mountPersistent(
      pod: V1Pod,
      pv: V1PersistentVolume,
      opts: { readOnly: boolean; signal?: AbortSignal },
    ): Promise<string> {
      const src = pv.spec!.csi!;
      const specName = pv.metadata?.name ?? "";
      const target = `${
        podDir(deps.rootDir, pod.metadata?.uid ?? "")
      }/volumes/${CSI_PLUGIN_DIR}/${specName}/mount`;
      if (await deps.mounter.isMountPoint(target)) return target;
      const driver = driverFor(src.driver);
      // Waiting out an attachment's back-off asks the API server nothing.
      await attachments.throwIfBackingOff(src.volumeHandle, src.driver);
      const spec = await csiDriver(src.driver, opts.signal);
      let publishContext: Record<string, string> = {};
      let attachmentID: string | undefined;
      if (spec?.attachRequired !== false) {
        const a = await attachments.attached(src.volumeHandle, src.driver, opts);
        publishContext = a.publishContext;
        attachmentID = a.name;
      }
      const caps = await driver.capabilities({ signal: opts.signal });
      const accessModes = pv.spec?.accessModes ?? [];
      const capability = {
        mount: { fsType: src.fsType ?? "", mountFlags: pv.spec?.mountOptions ?? [] },
        accessMode: {
          mode: ACCESS_MODES[accessModes[0] ?? "ReadWriteOnce"] ?? "SINGLE_NODE_WRITER",
        },
      };
      let staging: string | undefined;
      if (caps.has("STAGE_UNSTAGE_VOLUME")) {
        const dir = await stagingDir(src.driver, src.volumeHandle);
        staging = `${dir}/globalmount`;
        await Deno.mkdir(staging, { recursive: true, mode: 0o750 });
        await Deno.writeTextFile(
          `${dir}/${VOL_DATA}`,
          JSON.stringify({ driverName: src.driver, volumeHandle: src.volumeHandle }),
        );
        // Upstream needs the stage secret only when the driver stages.
        const secrets = src.nodeStageSecretRef
          ? await csiSecrets(deps.client, src.nodeStageSecretRef, {
            field: "NodeStageSecretRef",
            operation: "MountVolume.MountDevice failed",
            signal: opts.signal,
          })
          : {};
        // NodeStageVolume is idempotent: a volume staged for another pod answers at once.
        await driver.call("NodeStageVolume", {
          volumeId: src.volumeHandle,
          publishContext,
          stagingTargetPath: staging,
          volumeCapability: capability,
          secrets,
          volumeContext: src.volumeAttributes ?? {},
        }, { signal: opts.signal });
      }
      return await publish(pod, {
        specName,
        driver,
        handle: src.volumeHandle,
        spec,
        mode: "Persistent",
        readOnly: opts.readOnly || src.readOnly === true,
        fsType: src.fsType ?? "",
        attributes: src.volumeAttributes ?? {},
        accessModes,
        mountOptions: pv.spec?.mountOptions ?? [],
        staging,
        publishContext,
        attachmentID,
        secretRef: src.nodePublishSecretRef,
        signal: opts.signal,
      });
    },

    /** An inline ephemeral CSI volume (`volumes[].csi`): published only. Idempotent. */
    async mountInline(
      pod: V1Pod,
      name: string,
      src: V1CSIVolumeSource,
      opts: { signal?: AbortSignal } = {},
    ): Promise<string> {
      const target = `${
        podDir(deps.rootDir, pod.metadata?.uid ?? "")
      }/volumes/${CSI_PLUGIN_DIR}/${name}/mount`;
      if (await deps.mounter.isMountPoint(target)) return target;
      const spec = await csiDriver(src.driver, opts.signal);
      if (!spec) {
        throw new PluginCsiError(
          `volume mode "Ephemeral" not supported by driver ${src.driver} (no CSIDriver object)`,
        );
      }
      const modes = spec.volumeLifecycleModes ?? ["Persistent"];
      if (!modes.includes("Ephemeral")) {
        throw new PluginCsiError(
          `volume mode "Ephemeral" not supported by driver ${src.driver} (only supports ${
            JSON.stringify(modes).replaceAll(",", " ")
          })`,
        );
      }
      const driver = driverFor(src.driver);
      return await publish(pod, {
        specName: name,
        driver,
        handle: `csi-${await sha256Hex(`${pod.metadata?.uid}${name}`)}`,
        spec,
        mode: "Ephemeral",
        readOnly: src.readOnly === true,
        fsType: src.fsType ?? "",
        attributes: src.volumeAttributes ?? {},
        accessModes: ["ReadWriteOnce"],
        mountOptions: [],
        publishContext: {},
        // An inline volume's secret is in the pod's namespace.
        secretRef: src.nodePublishSecretRef && {
          name: src.nodePublishSecretRef.name,
          namespace: pod.metadata?.namespace,
        },
        signal: opts.signal,
      });
    },

    /**
     * Unpublishes the pod's CSI volumes (from their vol_data.json) and unstages those no other
     * pod has published. Throws when a driver is not registered or refuses: retried later.
     */
    async tearDownPod(uid: string, opts: { signal?: AbortSignal } = {}): Promise<void> {
      const base = `${podDir(deps.rootDir, uid)}/volumes/${CSI_PLUGIN_DIR}`;
      for (const { parent, data } of await volumesUnder(base)) {
        const driver = driverFor(data.driverName);
        const target = `${parent}/mount`;
        await driver.call("NodeUnpublishVolume", {
          volumeId: data.volumeHandle,
          targetPath: target,
        }, { signal: opts.signal });
        await Deno.remove(parent, { recursive: true }).catch(() => undefined);
        deps.logger.info("UnmountVolume.TearDown succeeded", {
          volume: data.specVolID,
          driver: data.driverName,
        });
        if (data.volumeLifecycleMode !== "Persistent") continue;
        const caps = await driver.capabilities({ signal: opts.signal });
        if (!caps.has("STAGE_UNSTAGE_VOLUME")) continue;
        if (await publishedElsewhere(deps.rootDir, data)) continue;
        const dir = await stagingDir(data.driverName, data.volumeHandle);
        await driver.call("NodeUnstageVolume", {
          volumeId: data.volumeHandle,
          stagingTargetPath: `${dir}/globalmount`,
        }, { signal: opts.signal });
        await Deno.remove(dir, { recursive: true }).catch(() => undefined);
        deps.logger.info("UnmountDevice succeeded", {
          driver: data.driverName,
          volume: data.volumeHandle,
        });
      }
    },
  };
}

async function volumesUnder(base: string): Promise<{ parent: string; data: VolData }[]> {
  const out: { parent: string; data: VolData }[] = [];
  try {
    for await (const e of Deno.readDir(base)) {
      const parent = `${base}/${e.name}`;
      const text = await Deno.readTextFile(`${parent}/${VOL_DATA}`).catch(() => undefined);
      if (text) out.push({ parent, data: JSON.parse(text) as VolData });
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out;
}

/** Whether another pod still has the volume published (its stage stays). */
async function publishedElsewhere(rootDir: string, data: VolData): Promise<boolean> {
  try {
    for await (const pod of Deno.readDir(`${rootDir}/pods`)) {
      for (const v of await volumesUnder(`${rootDir}/pods/${pod.name}/volumes/${CSI_PLUGIN_DIR}`)) {
        if (v.data.driverName === data.driverName && v.data.volumeHandle === data.volumeHandle) {
          return true;
        }
      }
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return false;
}
