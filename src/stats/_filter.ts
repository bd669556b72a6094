/** The `?only_cpu_and_memory=true` view of a Summary (upstream `GetCPUAndMemoryStats`). */
import type { ContainerStats, PodStats, Summary } from "./types.ts";

export function onlyCpuAndMemory(s: Summary): Summary {
  const c = (x: ContainerStats): ContainerStats => ({
    name: x.name,
    startTime: x.startTime,
    cpu: x.cpu,
    memory: x.memory,
    swap: x.swap,
  });
  const p = (x: PodStats): PodStats => ({
    podRef: x.podRef,
    startTime: x.startTime,
    containers: x.containers.map(c),
    cpu: x.cpu,
    memory: x.memory,
    swap: x.swap,
  });
  return {
    node: {
      nodeName: s.node.nodeName,
      systemContainers: s.node.systemContainers?.map(c),
      startTime: s.node.startTime,
      cpu: s.node.cpu,
      memory: s.node.memory,
      swap: s.node.swap,
    },
    pods: s.pods.map(p),
  };
}
