/**
 * Node capacity and allocatable as the kubelet reports them (upstream nodestatus.MachineInfo
 * and the container manager's GetNodeAllocatableReservation): allocatable is capacity minus
 * kubeReserved, systemReserved and the hard eviction thresholds, with huge pages taken off
 * memory, never below zero.
 */
import {
  formatQuantity,
  type QuantityFormat,
  quantityMilliValue,
  quantityValue,
} from "../util/quantity.ts";
import type { Threshold } from "../eviction/mod.ts";
import { thresholdQuantity } from "../eviction/mod.ts";
import type { MachineInfo } from "./_machine.ts";
import { hugePageSizeName } from "../util/hugepages.ts";

/** An amount of one resource: bytes or counts, except cpu, which is in thousandths of a core. */
export interface Amount {
  value: number;
  format: QuantityFormat;
  /** `value` is in thousandths (cpu), printed as `1900m` unless whole. */
  milli?: boolean;
}

export type Amounts = Map<string, Amount>;

/** What is kept back from pods: the reserved flags and the hard eviction thresholds. */
export interface Reservation {
  /** Hard thresholds: memory.available and nodefs.available are withheld. */
  hard?: readonly Threshold[];
  /** --kube-reserved and --system-reserved: resource name -> quantity. */
  kubeReserved?: Readonly<Record<string, string>>;
  systemReserved?: Readonly<Record<string, string>>;
}

/** Node capacity (cpu, memory, pods, ephemeral-storage, hugepages-*). */
export function capacityOf(info: MachineInfo, maxPods: number, nodeFsBytes?: number): Amounts {
  const out: Amounts = new Map();
  out.set("cpu", { value: info.cpus * 1000, format: "DecimalSI", milli: true });
  if (nodeFsBytes !== undefined) {
    out.set("ephemeral-storage", { value: nodeFsBytes, format: "BinarySI" });
  }
  for (const h of info.hugePages) {
    out.set(`hugepages-${formatQuantity(h.sizeKiB * 1024, "BinarySI")}`, {
      value: h.bytes,
      format: "BinarySI",
    });
  }
  out.set("memory", { value: info.memoryBytes, format: "BinarySI" });
  out.set("pods", { value: maxPods, format: "DecimalSI" });
  return out;
}

/** Capacity minus the reservation, resource by resource; huge pages come off memory too. */
export function allocatable(capacity: Amounts, reservation: Reservation = {}): Amounts {
  const reserved = reservationOf(capacity, reservation);
  const out: Amounts = new Map();
  for (const [name, cap] of capacity) {
    out.set(name, { ...cap, value: Math.max(0, cap.value - (reserved.get(name) ?? 0)) });
  }
  // Pages set aside for huge pages are not there for ordinary memory requests.
  const memory = out.get("memory");
  if (memory) {
    for (const [name, cap] of capacity) {
      if (name.startsWith("hugepages-")) memory.value = Math.max(0, memory.value - cap.value);
    }
  }
  return out;
}

/** How much of each capacity resource is reserved, in the resource's own unit. */
function reservationOf(capacity: Amounts, r: Reservation): Map<string, number> {
  const out = new Map<string, number>();
  const add = (name: string, amount: number) => out.set(name, (out.get(name) ?? 0) + amount);
  for (const flags of [r.systemReserved, r.kubeReserved]) {
    for (const [name, q] of Object.entries(flags ?? {})) {
      const cap = capacity.get(name);
      if (!cap) continue; // pid: kept from the pods' cgroup, never part of the Node's capacity
      add(name, cap.milli ? quantityMilliValue(q) : quantityValue(q));
    }
  }
  for (const t of r.hard ?? []) {
    if (t.gracePeriodMs !== 0) continue;
    const name = t.signal === "memory.available"
      ? "memory"
      : t.signal === "nodefs.available"
      ? "ephemeral-storage"
      : undefined;
    const cap = name ? capacity.get(name) : undefined;
    if (name && cap) add(name, thresholdQuantity(t.value, cap.value));
  }
  return out;
}

/** What the pods' top cgroup (kubepods) is sized to. */
export interface PodsAllocatable {
  cpuMilli: number;
  memoryBytes: number;
  /** The node's task limit less reserved pids; undefined when the limit is unknown. */
  pids?: number;
  /** Huge pages by cgroup page size ("2MB"), all of them: nothing reserves huge pages. */
  hugePages: Record<string, number>;
}

/**
 * The kubepods cgroup's size (upstream getNodeAllocatableInternalAbsolute): capacity, with the
 * node's task limit as `pid`, less kube- and system-reserved when `enforce` (the `pods` key of
 * --enforce-node-allocatable), never below zero. Unlike the Node's allocatable, the hard
 * eviction thresholds stay in, so the eviction manager acts before the kernel's OOM killer.
 */
export function podsAllocatable(
  info: MachineInfo,
  opts: { enforce: boolean } & Pick<Reservation, "kubeReserved" | "systemReserved">,
): PodsAllocatable {
  const left = (name: string, capacity: number, milli = false): number => {
    if (!opts.enforce) return capacity;
    let value = capacity;
    for (const flags of [opts.systemReserved, opts.kubeReserved]) {
      const q = flags?.[name];
      if (q !== undefined) value -= milli ? quantityMilliValue(q) : quantityValue(q);
    }
    return Math.max(0, value);
  };
  return {
    cpuMilli: left("cpu", info.cpus * 1000, true),
    memoryBytes: left("memory", info.memoryBytes),
    pids: info.maxPids > 0 ? left("pid", info.maxPids) : undefined,
    hugePages: Object.fromEntries(
      info.hugePages.flatMap((h) => {
        const size = hugePageSizeName(h.sizeKiB * 1024);
        return size ? [[size, h.bytes]] : [];
      }),
    ),
  };
}

/** The host's huge page sizes as the hugetlb cgroup names them ("2MB", "1GB"). */
export function hugePageSizes(info: MachineInfo): string[] {
  return info.hugePages.flatMap((h) => hugePageSizeName(h.sizeKiB * 1024) ?? []);
}

/**
 * Reservations larger than the capacity (upstream validateNodeAllocatable, which stops the
 * kubelet at start), as its message: `Resource "memory" has a reservation of 30Gi but capacity
 * of 24Gi. Expected capacity >= reservation.` Empty when the configuration fits.
 */
export function reservationProblems(capacity: Amounts, reservation: Reservation): string[] {
  const out: string[] = [];
  for (const [name, reserved] of reservationOf(capacity, reservation)) {
    const cap = capacity.get(name)!;
    if (reserved <= cap.value) continue;
    const print = (value: number) => formatAmounts(new Map([[name, { ...cap, value }]]))[name];
    out.push(
      `Resource ${JSON.stringify(name)} has a reservation of ${print(reserved)} but capacity ` +
        `of ${print(cap.value)}. Expected capacity >= reservation.`,
    );
  }
  return out;
}

/** The amounts as the API prints quantities (`2`, `1900m`, `2000Mi`, `96636764000`). */
export function formatAmounts(amounts: Amounts): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of amounts) {
    out[k] = v.milli && v.value % 1000 !== 0
      ? `${Math.trunc(v.value)}m`
      : formatQuantity(v.milli ? v.value / 1000 : v.value, v.format);
  }
  return out;
}
