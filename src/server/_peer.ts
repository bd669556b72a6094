/**
 * The client certificate of a node API connection, as the x509 authenticator reads it.
 *
 * X.509 v1 certificates (what `openssl x509 -req` makes without extensions) are refused, though
 * the upstream kubelet accepts them: the TLS stack (Deno 2.9's node:tls on rustls) cannot parse
 * a v1 certificate's key, so it skips checking the client's handshake signature for one. A v1
 * certificate that chains to the client CA would then authenticate anyone who has a copy of it
 * (it is public, and sent in the clear under TLS 1.2), without its private key. Verifying the
 * chain here would not close that gap, so such a connection is not verified and the operator is
 * told, once per certificate, to issue a v3 one.
 */
import type { TLSSocket } from "node:tls";
import type { Logger } from "../util/log.ts";
import type { PeerCertificate } from "./auth/mod.ts";
import { certificateVersion } from "./tls/mod.ts";

export const V1_REFUSED = "X.509 v1 certificates are not accepted: the TLS stack cannot check " +
  "that the client holds the certificate's key. Issue a v3 certificate " +
  "(openssl x509 -req ... -extfile with extendedKeyUsage=clientAuth)";

/** The verified (or not) client certificate of the connection; undefined when it sent none. */
export function peerOf(socket: TLSSocket): PeerCertificate | undefined {
  const cert = socket.getPeerCertificate?.();
  if (!cert || !cert.raw) return undefined;
  // Several CNs: the last one names the user, as Go's pkix.Name (and so the API server and the
  // upstream kubelet) reads a subject; organizations are all of them, in order.
  const last = (v: string | string[] | undefined) => (Array.isArray(v) ? v.at(-1) : v) ?? "";
  const many = (
    v: string | string[] | undefined,
  ) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const subject = (cert.subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
  const verified = socket.authorized === true && (certificateVersion(cert.raw) ?? 0) === 3;
  return {
    verified,
    error: verified ? undefined : reason(socket, cert.raw),
    commonName: last(subject.CN),
    organizations: many(subject.O),
  };
}

function reason(socket: TLSSocket, raw: Uint8Array): string {
  const version = certificateVersion(raw);
  if (version !== undefined && version < 3) return V1_REFUSED;
  return String(socket.authorizationError ?? "not verified");
}

/** Warns about each refused v1 certificate once (a client retries; the log must not grow). */
export function v1Warner(log: Logger): (socket: TLSSocket) => void {
  const warned = new Set<string>();
  return (socket) => {
    const peer = peerOf(socket);
    if (peer?.error !== V1_REFUSED) return;
    const id = socket.getPeerCertificate().fingerprint256 ?? peer.commonName;
    if (warned.has(id)) return;
    if (warned.size >= 64) warned.delete(warned.values().next().value!);
    warned.add(id);
    log.warn("Refusing an X.509 v1 client certificate; issue a v3 one", {
      user: peer.commonName,
      remote: socket.remoteAddress,
      fingerprint: id,
    });
  };
}
