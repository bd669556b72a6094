/**
 * Service links: the Docker-style variables that tell a container where services are
 * (pkg/kubelet/envvars FromServices, kubelet_pods.go getServiceEnvVarMap). client-go's
 * in-cluster config reads KUBERNETES_SERVICE_HOST and _PORT, so every API pod needs them.
 */
import type { V1Pod, V1Service } from "@kubernetes/client-node";
import { DenoletError } from "../util/errors.ts";
import { isStaticPod } from "../util/static_pod.ts";

/**
 * The Services of one namespace as last seen (API mode), or undefined until the first list has
 * completed. Cheap and synchronous: it reads a watch-fed cache, never the API server.
 */
export type ServiceLookup = (namespace: string) => readonly V1Service[] | undefined;

/** Upstream's --master-service-namespace default (the flag is deprecated; not offered here). */
export const MASTER_SERVICE_NAMESPACE = "default";
/** Services every pod gets, whatever its enableServiceLinks. */
const MASTER_SERVICES = new Set(["kubernetes"]);

/**
 * A non-static pod's env cannot be built before the Services were listed once: starting it
 * without KUBERNETES_SERVICE_HOST would break its in-cluster clients for good.
 */
export class ServicesNotSyncedError extends DenoletError {
  constructor() {
    super("services have not yet been read at least once, cannot construct envvars");
  }
}

/** Headless (`None`) and not-yet-allocated services get no variables. */
function hasClusterIP(svc: V1Service): boolean {
  const ip = svc.spec?.clusterIP ?? "";
  return ip !== "" && ip !== "None";
}

/** As upstream: upper case, `-` to `_`; nothing else is changed (no leading-digit fix). */
function varName(name: string): string {
  return name.replaceAll("-", "_").toUpperCase();
}

/** `host:port`, with an IPv6 host in brackets (Go's net.JoinHostPort). */
function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The variables for these services, in order: per service `<NAME>_SERVICE_HOST`,
 * `<NAME>_SERVICE_PORT` (first port), `<NAME>_SERVICE_PORT_<PORTNAME>` per named port, then the
 * Docker link forms `<NAME>_PORT` (first port) and per port `<NAME>_PORT_<n>_<PROTO>` with
 * `_PROTO`, `_PORT` and `_ADDR`. Services without a ClusterIP (or without ports) are skipped.
 */
export function serviceEnvVars(services: readonly V1Service[]): [string, string][] {
  const out: [string, string][] = [];
  for (const svc of services) {
    const ports = svc.spec?.ports ?? [];
    // A ClusterIP service always has a port (API validation); upstream would panic without one.
    if (!hasClusterIP(svc) || ports.length === 0) continue;
    const ip = svc.spec!.clusterIP!;
    const prefix = varName(svc.metadata?.name ?? "");
    out.push([`${prefix}_SERVICE_HOST`, ip]);
    out.push([`${prefix}_SERVICE_PORT`, String(ports[0].port)]);
    for (const p of ports) {
      if (p.name) out.push([`${prefix}_SERVICE_PORT_${varName(p.name)}`, String(p.port)]);
    }
    for (const [i, p] of ports.entries()) {
      const proto = (p.protocol || "TCP").toLowerCase();
      const url = `${proto}://${joinHostPort(ip, p.port)}`;
      if (i === 0) out.push([`${prefix}_PORT`, url]);
      const base = `${prefix}_PORT_${p.port}_${proto.toUpperCase()}`;
      out.push([base, url]);
      out.push([`${base}_PROTO`, proto]);
      out.push([`${base}_PORT`, String(p.port)]);
      out.push([`${base}_ADDR`, ip]);
    }
  }
  return out;
}

/**
 * The services a pod in `namespace` sees: the master services of the `default` namespace
 * always, and with `enableServiceLinks` every service of its own namespace, which wins over a
 * master service of the same name. Sorted by name so the env is the same on every start.
 */
export function visibleServices(
  lookup: ServiceLookup,
  opts: { namespace: string; enableServiceLinks: boolean },
): V1Service[] | undefined {
  const master = lookup(MASTER_SERVICE_NAMESPACE);
  const own = opts.enableServiceLinks ? lookup(opts.namespace) : [];
  if (master === undefined || own === undefined) return undefined;
  const byName = new Map<string, V1Service>();
  for (const svc of master) {
    const name = svc.metadata?.name ?? "";
    if (MASTER_SERVICES.has(name) && hasClusterIP(svc)) byName.set(name, svc);
  }
  // In the master namespace its master service is in `own` too: the very same object.
  for (const svc of own) {
    if (hasClusterIP(svc)) byName.set(svc.metadata?.name ?? "", svc);
  }
  return [...byName.values()].sort((a, b) =>
    (a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1
  );
}

/**
 * The service variables for a pod, as a map (`$(VAR)` expansion reads it; the pod's own env
 * wins over it). Without a lookup (standalone) there are none. Until the Services were listed
 * once, an API pod throws ServicesNotSyncedError and a static pod goes without, as upstream.
 */
export function podServiceEnv(
  pod: V1Pod,
  lookup: ServiceLookup | undefined,
): Map<string, string> {
  if (!lookup) return new Map();
  const services = visibleServices(lookup, {
    namespace: pod.metadata?.namespace || "default",
    // The API server defaults it to true; a static pod's manifest may leave it out.
    enableServiceLinks: pod.spec?.enableServiceLinks !== false,
  });
  if (services === undefined) {
    if (!isStaticPod(pod)) throw new ServicesNotSyncedError();
    return new Map();
  }
  return new Map(serviceEnvVars(services));
}
