/** Ports of probes and hooks: a number, a named container port, or a number written as a string. */
import type { V1Container } from "@kubernetes/client-node";
import { ProbeError } from "./_errors.ts";

/** Upstream probe.ResolveContainerPort: name lookup first, then a numeric string, then 1–65535. */
export function resolveContainerPort(
  port: number | string | undefined,
  container: Pick<V1Container, "name" | "ports">,
): number {
  let n: number;
  if (typeof port === "number") {
    n = port;
  } else if (typeof port === "string") {
    const named = container.ports?.find((p) => p.name === port);
    if (named) n = named.containerPort;
    else if (/^[0-9]+$/.test(port)) n = Number(port);
    else {
      throw new ProbeError(
        `Cannot resolve port "${port}": container "${container.name}" has no port of that name`,
      );
    }
  } else {
    throw new ProbeError(`Cannot resolve port: container "${container.name}" names none`);
  }
  if (Number.isInteger(n) && n > 0 && n < 65536) return n;
  throw new ProbeError(`Cannot use port ${n}: not a valid port number`);
}
