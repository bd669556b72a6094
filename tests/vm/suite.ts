/**
 * `deno task test:vm`: the packed agent on a real systemd node — a Debian VM under qemu with
 * systemd 252, logind, pure cgroup v2 and containerd 1.6 with SystemdCgroup = true
 * (tests/support/vm). Per architecture (DENOLET_VM_ARCH: amd64, arm64 or all; default all):
 *
 * - standalone smoke: static pods run; their cgroups are systemd slices made through D-Bus, with
 *   the pods' limits as unit properties and in cgroupfs (memory.max, cpu.max), their containers
 *   in cri-containerd scopes inside them;
 * - the node log query: `/logs/?query=denolet` reads the agent's unit from journald through
 *   journalctl, with tailLines and pattern, and the previous boot's with boot=-1;
 * - graceful node shutdown: `systemctl reboot` with a delay inhibitor held; pods stop in
 *   priority order with their preStop hooks within the grace periods, are reported Failed /
 *   Terminated with DisruptionTarget, the Node NotReady, new pods refused; after the reboot the
 *   hooks' markers and the previous boot's journal show it;
 * - API-mode smoke, on a fresh boot: the node joins a control plane on the host with a
 *   bootstrap token (./_api_mode.ts), a pod scheduled to it runs in a systemd slice with its
 *   limits, kubectl logs and exec reach it through the API server, it is deleted cleanly. One
 *   control plane serves every architecture.
 *
 * Not part of `deno task test`: it boots a VM (TCG on hosts without usable KVM), see README.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { buildPackages } from "../support/package.ts";
import { PACK_TARGETS } from "../support/_package_runtime.ts";
import { hostArch, type TestVm, type VmArch, withVm } from "../support/vm/machine.ts";
import { deletePod, join, logsAndExec, runPod, VmCluster } from "./_api_mode.ts";
import {
  addManifest,
  agentLog,
  assertPodSlice,
  busyboxPod,
  eventually,
  installAgent,
  nodeApiText,
  podNamed,
  pods,
  running,
  sliceUid,
  unitProps,
  WEB_RESOURCES,
  webSlice,
} from "./_node.ts";

const ARCHES: VmArch[] = (() => {
  const want = Deno.env.get("DENOLET_VM_ARCH") ?? "all";
  if (want === "all") {
    return [
      hostArch(),
      ...(["amd64", "arm64"] as const).filter((a) => a !== hostArch()),
    ];
  }
  if (want !== "amd64" && want !== "arm64") {
    throw new Error(`DENOLET_VM_ARCH=${want}: amd64, arm64 or all`);
  }
  return [want];
})();

const MIN = 60_000;
const log = (line: string) => console.error(line);

/**
 * The graceful shutdown configuration: 60 s, 20 of them for critical pods. Generous: an emulated
 * guest on a busy host takes seconds for each exec.
 */
const CONFIG = [
  "cgroupDriver: systemd",
  "shutdownGracePeriod: 60s",
  "shutdownGracePeriodCriticalPods: 20s",
  "enableSystemLogQuery: true",
].join("\n");

const MARKERS = "/var/lib/vm-test";
const HOOK = (file: string) =>
  [
    "    volumeMounts: [{ name: markers, mountPath: /markers }]",
    "    lifecycle:",
    "      preStop:",
    "        exec:",
    `          command: ["sh", "-c", "echo begin $(date +%s) >> /markers/${file}; sleep 3; ` +
    `echo end $(date +%s) >> /markers/${file}"]`,
  ].join("\n");
const MARKER_VOLUME =
  `  volumes: [{ name: markers, hostPath: { path: ${MARKERS}, type: DirectoryOrCreate } }]`;

const cluster = new VmCluster(log);

for (const arch of ARCHES) {
  Deno.test({
    name: `VM ${arch}: the systemd cgroup driver, graceful node shutdown, API mode`,
    // The qemu child and ssh processes outlive single steps by design.
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async (t) => {
      const packed = await packageFor(arch);
      try {
        await withVm({ arch, log }, async (vm) => {
          await t.step(
            "the packed agent runs pods with the systemd cgroup driver",
            () => smoke(vm, packed),
          );
          await t.step("pods' cgroups are systemd slices with their limits", () => slices(vm));
          await t.step("the node log query reads the agent's journal", () => logQuery(vm));
          await t.step(
            "a reboot stops pods in order with their preStop hooks",
            () => gracefulShutdown(vm),
          );
        });
        await cluster.withNode(arch, async (vm, cp) => {
          const joined = await t.step(
            "a fresh node joins the control plane with a bootstrap token",
            async () => void await join(vm, packed, cp),
          );
          if (!joined) return;
          let pod: V1Pod | undefined;
          await t.step(
            "a pod scheduled to it runs in a systemd slice with its limits",
            async () => {
              pod = await runPod(vm, cp);
            },
          );
          if (!pod) return;
          await t.step(
            "kubectl logs and exec reach it through the API server",
            () => logsAndExec(vm, cp),
          );
          await t.step("the pod is deleted cleanly", () => deletePod(vm, cp, pod!));
        });
      } finally {
        await Deno.remove(packed.slice(0, packed.lastIndexOf("/")), { recursive: true });
        if (arch === ARCHES.at(-1)) await cluster.stop();
      }
    },
  });
}

/** The single file of `deno task package` for the VM's architecture. */
async function packageFor(arch: VmArch): Promise<string> {
  const target = PACK_TARGETS.find((p) => p.machines.includes(arch))!;
  const outDir = await Deno.makeTempDir({ prefix: "denolet-vm-package-" });
  const res = await buildPackages({ targets: [target], outDir, log });
  return res.packages[0].path;
}

async function smoke(vm: TestVm, packed: string): Promise<void> {
  // The guest is the architecture asked for, and runs that architecture's packed file.
  assert.equal((await vm.sh("uname -m")).trim(), vm.arch === "amd64" ? "x86_64" : "aarch64");
  await vm.sh("systemctl is-system-running --wait || true");
  await addManifest(
    vm,
    "web",
    busyboxPod("web", { resources: WEB_RESOURCES }),
  );
  await addManifest(
    vm,
    "burst",
    busyboxPod("burst", { resources: "{ requests: { cpu: 100m }, limits: { memory: 64Mi } }" }),
  );
  await addManifest(vm, "idle", busyboxPod("idle"));
  await installAgent(vm, packed, { config: CONFIG });
  const list = await eventually("web, burst and idle Running", 10 * MIN, async () => {
    const all = await pods(vm);
    return ["web", "burst", "idle"].every((n) => running(podNamed(all, n))) ? all : undefined;
  });
  const agent = await agentLog(vm);
  assert.match(
    agent,
    /Falling back to using cgroupDriver from kubelet config.*cgroupDriver=systemd/,
  );
  assert.match(agent, /Pod cgroups enabled.*driver=systemd/);
  assert.equal(list.length, 3);
}

async function slices(vm: TestVm): Promise<void> {
  const all = await pods(vm);
  const uid = (n: string) => sliceUid(podNamed(all, n)!.metadata!.uid!);
  const cases = [
    { name: "web", ...webSlice(podNamed(all, "web")!.metadata!.uid!) },
    {
      name: "burst",
      dir: `kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid("burst")}.slice`,
      memory: `${64 * 2 ** 20}`,
      cpuMax: "max 100000",
      // 100m: 102 shares.
      unit: { MemoryMax: `${64 * 2 ** 20}`, CPUQuotaPerSecUSec: "infinity", CPUWeight: "4" },
    },
    {
      name: "idle",
      dir: `kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${uid("idle")}.slice`,
      memory: "max",
      cpuMax: "max 100000",
      unit: { MemoryMax: "infinity", CPUQuotaPerSecUSec: "infinity", CPUWeight: "1" },
    },
  ];
  for (const c of cases) await assertPodSlice(vm, podNamed(all, c.name)!, c);
  // kubepods.slice is sized to the node allocatable; the QoS slices want their parent.
  const kubepods = await unitProps(vm, "kubepods.slice", ["MemoryMax", "Wants"]);
  assert.match(kubepods.MemoryMax, /^\d+$/);
  assert.equal(
    (await vm.sh("cat /sys/fs/cgroup/kubepods.slice/memory.max")).trim(),
    kubepods.MemoryMax,
  );
  assert.match(
    (await unitProps(vm, "kubepods-burstable.slice", ["Wants"])).Wants,
    /kubepods\.slice/,
  );
}

/** `/logs/?query=`: the agent's own unit through journalctl, as upstream serves it. */
async function logQuery(vm: TestVm): Promise<void> {
  const matching = await nodeApiText(
    vm,
    "/logs/?query=denolet&pattern=" + encodeURIComponent("Pod cgroups enabled"),
  );
  const lines = matching.split("\n").filter((l) => l !== "" && !l.startsWith("-- "));
  assert.ok(lines.length > 0, `the agent's journal through the node API:\n${matching}`);
  // journalctl's --grep kept only the matching entries, in --output=short-precise.
  for (const l of lines) {
    assert.match(l, /^\w{3} \d{2} \d{2}:\d{2}:\d{2}\.\d{6} .*Pod cgroups enabled/);
  }
  const tail = await nodeApiText(vm, "/logs/?query=denolet&tailLines=3");
  assert.equal(tail.split("\n").filter((l) => l !== "" && !l.startsWith("-- ")).length, 3, tail);
  // Not a unit journald knows and no file under /var/log: upstream's message.
  assert.equal(
    await nodeApiText(vm, "/logs/?query=nosuchservice"),
    "\nlog not found for nosuchservice\n",
  );
}

/**
 * Watches the node API from inside the guest while it shuts down (a unit that systemd stops
 * only after logind lets the shutdown go on): the last Node and pod list seen while shutting
 * down, and a pod added once the shutdown began.
 */
const WATCHER = `
C="--cacert /var/lib/kubelet/pki/kubelet.crt --cert /etc/denolet/pki/admin.crt --key /etc/denolet/pki/admin.key"
while :; do
  if curl -s $C https://127.0.0.1:10250/node > ${MARKERS}/node.tmp && grep -q "node is shutting down" ${MARKERS}/node.tmp; then
    mv ${MARKERS}/node.tmp ${MARKERS}/node-shutting-down.json
    [ -e ${MARKERS}/late-added ] || { cp /root/late.yaml /etc/kubernetes/manifests/; touch ${MARKERS}/late-added; }
    curl -s $C https://127.0.0.1:10250/pods > ${MARKERS}/pods.tmp && mv ${MARKERS}/pods.tmp ${MARKERS}/pods-during.json
    sync
  fi
  sleep 0.5
done`;

async function gracefulShutdown(vm: TestVm): Promise<void> {
  await vm.sh(`mkdir -p ${MARKERS} && rm -f ${MARKERS}/*`);
  await addManifest(
    vm,
    "drain",
    busyboxPod("drain", {
      spec: `  terminationGracePeriodSeconds: 60\n${MARKER_VOLUME}`,
      container: HOOK("drain"),
    }),
  );
  await addManifest(
    vm,
    "critical",
    busyboxPod("critical", {
      namespace: "kube-system",
      spec: `  priorityClassName: system-node-critical\n  priority: 2000000000\n${MARKER_VOLUME}`,
      container: HOOK("critical"),
    }),
  );
  await vm.sh(`cat > /root/late.yaml <<'EOF'\n${busyboxPod("late")}\nEOF`);
  await eventually("drain and critical Running", 10 * MIN, async () => {
    const all = await pods(vm);
    return running(podNamed(all, "drain")) && running(podNamed(all, "critical")) ? true : undefined;
  });
  const inhibitors = await vm.sh("systemd-inhibit --list --no-pager");
  assert.match(inhibitors, /kubelet.*shutdown.*Kubelet needs time to handle node shutdown.*delay/);
  assert.match(
    await vm.sh(
      "busctl get-property org.freedesktop.login1 /org/freedesktop/login1 " +
        "org.freedesktop.login1.Manager InhibitDelayMaxUSec",
    ),
    /t 60000000/,
  );
  await vm.sh(
    `cat > /root/watch.sh <<'EOF'\n${WATCHER}\nEOF\nsystemd-run --unit=vm-watch sh /root/watch.sh`,
  );

  const seconds = await vm.reboot();
  log(`vm: rebooted in ${seconds} s`);

  // The previous boot's agent: the shutdown, group by group, lowest priority first.
  const previous = await agentLog(vm, -1);
  // The same through the node log query (boot=-1), once the agent answers again.
  await eventually("the previous boot's shutdown through /logs/?query=", 10 * MIN, async () => {
    const out = await nodeApiText(
      vm,
      "/logs/?query=denolet&boot=-1&pattern=" + encodeURIComponent("detected new shutdown event"),
    );
    return /Shutdown manager detected new shutdown event/.test(out) ? out : undefined;
  });
  const at = (re: RegExp) => {
    const i = previous.split("\n").findIndex((l) => re.test(l));
    assert.ok(i >= 0, `the agent's log of the previous boot has ${re}:\n${previous.slice(-4000)}`);
    return i;
  };
  const began = at(/Shutdown manager detected new shutdown event.*event=shutdown/);
  const drain = at(
    /Shutdown manager killing pod with gracePeriod.*pod=default\/drain.*gracePeriod=40/,
  );
  const firstGroup = at(
    /(Done waiting for all pods in group to terminate|pod killing time out).*priority=0/,
  );
  const critical = at(
    /Shutdown manager killing pod with gracePeriod.*pod=kube-system\/critical.*gracePeriod=20/,
  );
  const done = at(
    /Shutdown manager completed processing shutdown event, node will shutdown shortly/,
  );
  assert.ok(
    began < drain && drain < firstGroup && firstGroup < critical && critical < done,
    previous,
  );

  // The hooks ran to their end, inside the shutdown and its grace periods.
  const time = (re: RegExp) =>
    Date.parse(/time=(\S+)/.exec(previous.split("\n")[at(re)])![1]) / 1000;
  const start = Math.floor(time(/Shutdown manager detected new shutdown event/));
  const end = Math.ceil(time(/Shutdown manager completed processing shutdown event/));
  const shutdownLog = previous.split("\n").slice(began).join("\n");
  for (const [file, grace] of [["drain", 40], ["critical", 20]] as const) {
    const marker = await vm.sh(`cat ${MARKERS}/${file}`);
    const m = /^begin (\d+)\nend (\d+)$/.exec(marker.trim());
    assert.ok(
      m,
      `${file}'s preStop hook ran to its end: ${JSON.stringify(marker)}\n${shutdownLog}`,
    );
    const [b, e] = [Number(m[1]), Number(m[2])];
    assert.ok(
      start <= b && e <= end,
      `${file}'s hook ran during the shutdown (${start}..${end}): ${b}..${e}\n${shutdownLog}`,
    );
    assert.ok(e - start <= 60 && e - b <= grace, `${file}'s hook within its grace period`);
  }
  const drainEnd = Number(/end (\d+)/.exec(await vm.sh(`cat ${MARKERS}/drain`))![1]);
  const criticalBegin = Number(/begin (\d+)/.exec(await vm.sh(`cat ${MARKERS}/critical`))![1]);
  assert.ok(drainEnd <= criticalBegin, "critical pods stop after the others");

  // What the node API said while the node shut down.
  const nodeDuring = JSON.parse(await vm.sh(`cat ${MARKERS}/node-shutting-down.json`)) as V1Node;
  const ready = nodeDuring.status?.conditions?.find((c) => c.type === "Ready");
  assert.deepEqual([ready?.status, ready?.reason, ready?.message], [
    "False",
    "KubeletNotReady",
    "node is shutting down",
  ]);
  const during =
    (JSON.parse(await vm.sh(`cat ${MARKERS}/pods-during.json`)) as { items: V1Pod[] }).items;
  const drained = podNamed(during, "drain")!;
  assert.equal(drained.status?.phase, "Failed");
  assert.equal(drained.status?.reason, "Terminated");
  assert.equal(
    drained.status?.message,
    "Pod was terminated in response to imminent node shutdown.",
  );
  const target = drained.status?.conditions?.find((c) => c.type === "DisruptionTarget");
  assert.deepEqual([target?.status, target?.reason, target?.message], [
    "True",
    "TerminationByKubelet",
    "Pod was terminated in response to imminent node shutdown.",
  ]);
  const late = podNamed(during, "late");
  assert.deepEqual([late?.status?.phase, late?.status?.reason, late?.status?.message], [
    "Failed",
    "NodeShutdown",
    // The kubelet's rejectPod puts its own prefix before the handler's message.
    "Pod was rejected: Pod was rejected as the node is shutting down.",
  ]);

  // The node is back: the agent starts again with the boot, takes its inhibitor, runs pods.
  await eventually("web Running again after the reboot", 10 * MIN, async () => {
    return running(podNamed(await pods(vm), "web")) ? true : undefined;
  });
  assert.match(await vm.sh("systemd-inhibit --list --no-pager"), /kubelet.*shutdown.*delay/);
}
