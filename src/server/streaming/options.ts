/**
 * Query parameters of the streaming endpoints, as upstream's remotecommand.NewOptions and
 * portforward.NewV4Options read them.
 */
import type { StreamFlags } from "../../cri/types.ts";
import { BadRequestError } from "../_errors.ts";

/** kube-apiserver sends "1"; direct clients often "true". */
const on = (q: URLSearchParams, name: string) => {
  const v = q.get(name);
  return v === "1" || v === "true";
};

/** `input`, `output`, `error`, `tty`; at least one stream; no stderr with a TTY. */
export function streamFlags(q: URLSearchParams): StreamFlags {
  const tty = on(q, "tty");
  const stdin = on(q, "input");
  const stdout = on(q, "output");
  // A TTY merges stderr into stdout; upstream drops the request for it silently.
  const stderr = on(q, "error") && !tty;
  if (!stdin && !stdout && !stderr) {
    throw new BadRequestError("you must specify at least 1 of stdin, stdout, stderr");
  }
  return { stdin, stdout, stderr, tty };
}

/**
 * Ports of a port-forward. Only WebSocket clients name them in the query (`port`, repeatable,
 * comma-separated); SPDY clients open one stream pair per port, so the list is empty for them.
 */
export function forwardedPorts(q: URLSearchParams, isWebSocket: boolean): number[] {
  if (!isWebSocket) return [];
  const raw = q.getAll("port");
  if (raw.length === 0) throw new BadRequestError(`query parameter "port" is required`);
  const ports: number[] = [];
  for (const s of raw) {
    if (s === "") throw new BadRequestError(`query parameter "port" cannot be empty`);
    for (const p of s.split(",")) {
      const n = /^\d+$/.test(p) ? Number(p) : NaN;
      if (!(n <= 65535)) throw new BadRequestError(`unable to parse "${s}" as a port`);
      if (n < 1) throw new BadRequestError(`port "${s}" must be > 0`);
      ports.push(n);
    }
  }
  return ports;
}

/** The request asks to switch protocols (Connection: Upgrade with an Upgrade header). */
export function isUpgradeRequest(headers: Headers): boolean {
  const connection = (headers.get("connection") ?? "").toLowerCase().split(",").map((s) =>
    s.trim()
  );
  return connection.includes("upgrade") && (headers.get("upgrade") ?? "") !== "";
}

export function isWebSocketRequest(headers: Headers): boolean {
  return isUpgradeRequest(headers) && (headers.get("upgrade") ?? "").toLowerCase() === "websocket";
}
