/**
 * The shape of a cAdvisor container metric family and the view of one cgroup its values come
 * from; the families themselves are in _families_*.ts.
 */
import type { CgroupReading } from "./_cgroup_stats.ts";
import type { MetricType } from "./_exposition.ts";
import type { FilesystemReading } from "./_machine.ts";
import type { InterfaceCounters } from "./_parse.ts";

/** One reported cgroup with everything its series are made from. */
export interface ContainerView {
  reading: CgroupReading;
  /** When the reading was taken, ms: every stats sample's timestamp. */
  timestampMs: number;
  /** The sandbox's (or the root's) interfaces; undefined for cgroups without network. */
  network?: InterfaceCounters[];
  /** The root cgroup's filesystems; undefined for every other cgroup. */
  filesystems?: FilesystemReading[];
  processes: { fds: number; sockets: number; maxOpenFiles?: number };
  /** The device name of a `major:minor` ("" when cAdvisor would not know it). */
  deviceName: (major: number, minor: number) => string;
}

/** A value and the values of the family's extra labels, in `extra` order. */
export type Value = [number, string[]?];

export interface ContainerFamily {
  name: string;
  help: string;
  type: MetricType;
  extra?: string[];
  /** cAdvisor's condition on the spec: the CFS families need a quota. */
  needsQuota?: boolean;
  /** PSI families exist only when the kernel and the cgroup version give PSI. */
  psi?: boolean;
  values: (v: ContainerView) => Value[];
}

export const one = (f: (v: ContainerView) => number) => (v: ContainerView): Value[] => [[f(v)]];
type Parts = Pick<ContainerFamily, "help" | "values">;
/** A counter family: `counter(name, { help, values })`. */
export const counter = (name: string, p: Parts): ContainerFamily => ({
  name,
  type: "counter",
  ...p,
});
/** A gauge family: `gauge(name, { help, values })`. */
export const gauge = (name: string, p: Parts): ContainerFamily => ({ name, type: "gauge", ...p });
/** ns per second. */
export const SEC = 1e9;
