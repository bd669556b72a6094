/** tcpSocket probes (upstream pkg/probe/tcp): success when a connection opens in time. */
import type { ProbeOutput } from "./_prober.ts";

export async function tcpProbe(
  host: string,
  port: number,
  opts: { timeoutMs: number; signal: AbortSignal },
): Promise<ProbeOutput> {
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = AbortSignal.any([opts.signal, deadline]);
  const target = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  try {
    const conn = await Deno.connect({ hostname: host, port, signal });
    // The probe only asks "does it accept?": close at once, as upstream does.
    conn.close();
    return { result: "success", output: "" };
  } catch (err) {
    if (opts.signal.aborted) throw opts.signal.reason;
    const why = deadline.aborted ? "i/o timeout" : err instanceof Error ? err.message : String(err);
    return { result: "failure", output: `dial tcp ${target}: ${why}` };
  }
}
