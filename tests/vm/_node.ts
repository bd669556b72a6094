/**
 * The agent as an operator installs it on a systemd node: the packed single file copied in,
 * `denolet install --script | sh`, a few lines added to /etc/denolet/config.yaml, the unit
 * started; static pods dropped into /etc/kubernetes/manifests, the node API asked with the
 * administrator's client certificate the install made.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { realClock } from "../../src/util/clock.ts";
import type { TestVm } from "../support/vm/machine.ts";

const CURL = "curl -sS --fail --cacert /var/lib/kubelet/pki/kubelet.crt " +
  "--cert /etc/denolet/pki/admin.crt --key /etc/denolet/pki/admin.key";

/**
 * Installs and starts the agent with `config` appended to the installed configuration;
 * `installArgs` go to `denolet install`, `dropIn` is written as a drop-in of the unit.
 */
export async function installAgent(
  vm: TestVm,
  packed: string,
  opts: { config: string; installArgs?: string[]; dropIn?: string },
): Promise<void> {
  await vm.put(packed, "/root/denolet");
  await vm.sh(`cd /root && ./denolet install ${(opts.installArgs ?? []).join(" ")} --script | sh`);
  await vm.sh(`cat >> /etc/denolet/config.yaml <<'EOF'\n${opts.config}\nEOF`);
  if (opts.dropIn) {
    await vm.sh(
      "mkdir -p /etc/systemd/system/denolet.service.d && " +
        `cat > /etc/systemd/system/denolet.service.d/10-join.conf <<'EOF'\n${opts.dropIn}\nEOF`,
    );
  }
  await vm.sh("systemctl daemon-reload && systemctl enable --now denolet.service");
}

/** Drops a static pod manifest in (the agent watches the directory). */
export async function addManifest(vm: TestVm, name: string, yaml: string): Promise<void> {
  await vm.sh(
    `mkdir -p /etc/kubernetes/manifests && cat > /etc/kubernetes/manifests/${name}.yaml <<'EOF'\n${yaml}\nEOF`,
  );
}

/** GET on the node API (https://127.0.0.1:10250), parsed. */
export async function nodeApi<T>(vm: TestVm, path: string): Promise<T> {
  return JSON.parse(await vm.sh(`${CURL} https://127.0.0.1:10250${path}`)) as T;
}

/** GET on the node API as text; `path` may carry a query string. */
export async function nodeApiText(vm: TestVm, path: string): Promise<string> {
  return await vm.sh(`${CURL} 'https://127.0.0.1:10250${path}'`);
}

export async function pods(vm: TestVm): Promise<V1Pod[]> {
  return (await nodeApi<{ items: V1Pod[] }>(vm, "/pods")).items;
}

export async function node(vm: TestVm): Promise<V1Node> {
  return await nodeApi<V1Node>(vm, "/node");
}

/** The pod named `name` (a static pod's name has the node name appended). */
export function podNamed(list: V1Pod[], name: string): V1Pod | undefined {
  return list.find((p) => p.metadata?.name === name || p.metadata?.name?.startsWith(`${name}-`));
}

export function running(p: V1Pod | undefined): boolean {
  return p?.status?.phase === "Running" &&
    (p.status.containerStatuses ?? []).every((c) => c.ready && c.state?.running);
}

/**
 * Polls `probe` every few seconds until it returns a value, at most `timeoutMs`; the guest runs
 * emulated, so timeouts are minutes. Throws with the last problem seen.
 */
export async function eventually<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = realClock.monotonic() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (realClock.monotonic() > deadline) {
      throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}`, { cause: last });
    }
    await realClock.sleep(3_000);
  }
}

/** The agent's journal of this boot (or of the previous one, `boot: -1`). */
export async function agentLog(vm: TestVm, boot = 0): Promise<string> {
  return await vm.sh(`journalctl -b ${boot} -u denolet.service --no-pager -o cat`);
}

/** The pod's slice as the systemd cgroup driver makes it, and the limits it should carry. */
export interface PodSlice {
  /** Under /sys/fs/cgroup: `kubepods.slice/kubepods-pod<uid>.slice` for a Guaranteed pod. */
  dir: string;
  /** memory.max and cpu.max in cgroupfs. */
  memory: string;
  cpuMax: string;
  /** Unit properties `systemctl show` gives. */
  unit: Record<string, string>;
}

/**
 * The pod's cgroup is a live systemd slice with its limits as unit properties and in cgroupfs,
 * and its containers run in containerd's scopes inside it.
 */
export async function assertPodSlice(vm: TestVm, pod: V1Pod, want: PodSlice): Promise<void> {
  const unit = want.dir.split("/").at(-1)!;
  const props = await unitProps(vm, unit, [
    "ActiveState",
    "ControlGroup",
    ...Object.keys(want.unit),
  ]);
  assert.equal(props.ActiveState, "active", `${unit} is a live unit`);
  assert.equal(props.ControlGroup, `/${want.dir}`);
  for (const [k, v] of Object.entries(want.unit)) assert.equal(props[k], v, `${unit} ${k}`);
  const files = await vm.sh(`cd /sys/fs/cgroup/${want.dir} && cat memory.max cpu.max`);
  assert.deepEqual(
    files.trim().split("\n"),
    [want.memory, want.cpuMax],
    `${pod.metadata?.name}'s cgroupfs`,
  );
  for (const status of pod.status?.containerStatuses ?? []) {
    const id = status.containerID!.replace(/^containerd:\/\//, "");
    const scope = await unitProps(vm, `cri-containerd-${id}.scope`, ["ControlGroup"]);
    assert.equal(scope.ControlGroup, `/${want.dir}/cri-containerd-${id}.scope`);
  }
}

/** The "web" pods' limits: Guaranteed with cpu 500m and memory 128Mi. */
export const WEB_RESOURCES = "{ limits: { cpu: 500m, memory: 128Mi } }";

/** The slice of a pod with WEB_RESOURCES. */
export function webSlice(podUid: string): PodSlice {
  return {
    dir: `kubepods.slice/kubepods-pod${sliceUid(podUid)}.slice`,
    memory: `${128 * 2 ** 20}`,
    cpuMax: "50000 100000",
    unit: { MemoryMax: `${128 * 2 ** 20}`, CPUQuotaPerSecUSec: "500ms", CPUWeight: "20" },
  };
}

/** The 32-hex UID with "-" as systemd names it: "_" (none in a static pod's UID). */
export function sliceUid(uid: string): string {
  return uid.replaceAll("-", "_");
}

/** `systemctl show` properties as a map. */
export async function unitProps(
  vm: TestVm,
  unit: string,
  props: string[],
): Promise<Record<string, string>> {
  const out = await vm.sh(`systemctl show ${unit} ${props.map((p) => `-p ${p}`).join(" ")}`);
  return Object.fromEntries(
    out.trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

/**
 * A pod of busybox that exits on SIGTERM, with optional extras spliced into its spec; `greeting`
 * is printed first (for its log).
 */
export function busyboxPod(
  name: string,
  opts: {
    namespace?: string;
    resources?: string;
    spec?: string;
    container?: string;
    greeting?: string;
  } = {},
): string {
  return [
    "apiVersion: v1",
    "kind: Pod",
    `metadata: { name: ${name}, namespace: ${opts.namespace ?? "default"} }`,
    "spec:",
    ...(opts.spec ? [opts.spec] : []),
    "  containers:",
    "  - name: main",
    "    image: localhost/busybox:1",
    "    imagePullPolicy: Never",
    `    command: ["sh", "-c", "${
      opts.greeting ? `echo ${opts.greeting}; ` : ""
    }trap 'exit 0' TERM; while :; do sleep 1; done"]`,
    ...(opts.resources ? [`    resources: ${opts.resources}`] : []),
    ...(opts.container ? [opts.container] : []),
  ].join("\n");
}
