/**
 * The `Prober` seam: runs one probe of one container once (upstream pkg/kubelet/prober/prober.go
 * and pkg/probe/*). Workers decide when; the prober only does.
 */
import type { V1Container, V1Pod, V1Probe } from "@kubernetes/client-node";
import type { RuntimeService } from "../cri/types.ts";
import { ProbeError } from "./_errors.ts";
import { execProbe, staticCommand } from "./_exec.ts";
import { grpcProbe } from "./_grpc.ts";
import { httpProbe } from "./_http.ts";
import { resolveContainerPort } from "./_port.ts";
import { tcpProbe } from "./_tcp.ts";

/**
 * Outcome of one probe run (upstream `probe.Result`). `warning` counts as success but is worth
 * a log line (an HTTP redirect to another host).
 */
export type ProbeOutcome = "success" | "warning" | "failure" | "unknown";

export interface ProbeOutput {
  result: ProbeOutcome;
  /** Command output, response body or the reason of a failure (for logs; at most ~10 KiB). */
  output: string;
}

/** What a probe needs to know about its container. */
export interface ProbeTarget {
  pod: V1Pod;
  container: V1Container;
  /** Runtime container id (without the `containerd://` prefix). */
  containerId: string;
  /** status.podIP; the default host of httpGet and tcpSocket, the only host of grpc. */
  podIp: string;
  /**
   * The exec command with `$(VAR)` already expanded (`staticCommand`), for a caller that keeps
   * it across runs; without it every run expands the command from the spec.
   */
  execCommand?: string[];
}

export { ProbeError };

export interface Prober {
  /**
   * Runs `spec` once against `target`. A timeout, a refused connection or a bad status is a
   * `failure` result, not an error; rejects with `ProbeError` when the probe cannot be run, and
   * with the signal's reason when `signal` aborts (the work is cancelled, not just abandoned).
   */
  probe(spec: V1Probe, target: ProbeTarget, opts: { signal: AbortSignal }): Promise<ProbeOutput>;
}

export interface ProberDeps {
  /** Only ExecSync is used. */
  runtime: Pick<RuntimeService, "execSync">;
  /** `kube-probe/<major>.<minor>`, sent by httpGet and grpc probes. */
  userAgent: string;
}

/** Upstream `maxProbeRetries`: a probe that errors (not one that fails) is retried this often. */
const MAX_ATTEMPTS = 3;

/** API defaulting: timeoutSeconds 0 or unset means 1. */
export function timeoutMs(spec: V1Probe): number {
  return (spec.timeoutSeconds || 1) * 1000;
}

export function createProber(deps: ProberDeps): Prober {
  const once = (spec: V1Probe, t: ProbeTarget, signal: AbortSignal): Promise<ProbeOutput> => {
    const ms = timeoutMs(spec);
    if (spec.exec) {
      return execProbe(deps.runtime, t.containerId, {
        cmd: t.execCommand ?? staticCommand(spec.exec.command ?? [], t.container.env),
        timeoutMs: ms,
        signal,
      });
    }
    if (spec.httpGet) {
      return httpProbe(spec.httpGet, {
        container: t.container,
        podIP: t.podIp,
        userAgent: deps.userAgent,
        timeoutMs: ms,
        signal,
      });
    }
    if (spec.tcpSocket) {
      const port = resolveContainerPort(spec.tcpSocket.port, t.container);
      return tcpProbe(spec.tcpSocket.host || t.podIp, port, { timeoutMs: ms, signal });
    }
    if (spec.grpc) {
      return grpcProbe(t.podIp, spec.grpc.port, {
        service: spec.grpc.service ?? "",
        userAgent: deps.userAgent,
        timeoutMs: ms,
        signal,
      });
    }
    return Promise.reject(
      new ProbeError(`Cannot probe container "${t.container.name}": the probe has no handler`),
    );
  };
  return {
    async probe(spec, target, opts) {
      let last: unknown;
      for (let i = 0; i < MAX_ATTEMPTS; i++) {
        try {
          return await once(spec, target, opts.signal);
        } catch (err) {
          if (opts.signal.aborted) throw opts.signal.reason;
          last = err;
        }
      }
      throw last instanceof ProbeError ? last : new ProbeError(
        `Cannot probe container "${target.container.name}"`,
        { cause: last },
      );
    },
  };
}
