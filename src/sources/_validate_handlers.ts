/**
 * Probes and lifecycle hooks (validateProbe and its liveness/readiness/startup variants,
 * validateLifecycle, validateHandler and the exec/httpGet/tcpSocket/grpc/sleep actions).
 */
import type {
  V1Container,
  V1HTTPGetAction,
  V1LifecycleHandler,
  V1Probe,
} from "@kubernetes/client-node";
import { type FieldErrors, httpHeaderName, portName, portNumber } from "./_fields.ts";

export type ProbeKind = "livenessProbe" | "readinessProbe" | "startupProbe";

const PROBE_COUNTS = [
  "initialDelaySeconds",
  "timeoutSeconds",
  "periodSeconds",
  "successThreshold",
  "failureThreshold",
] as const;
const SCHEMES = ["HTTP", "HTTPS"] as const;

interface HandlerOptions {
  container: V1Container;
  /** The pod's terminationGracePeriodSeconds (its default when unset); sleeps must fit in it. */
  gracePeriodSeconds: number;
  errs: FieldErrors;
}

/** One probe of `container` at `path`. */
export function validateProbe(
  p: V1Probe,
  path: string,
  opts: HandlerOptions & { kind: ProbeKind },
): void {
  const { errs } = opts;
  validateHandler(p, path, { ...opts, actions: ["exec", "httpGet", "tcpSocket", "grpc"] });
  for (const key of PROBE_COUNTS) {
    const v = p[key];
    if (v !== undefined && v !== null && v < 0) {
      errs.invalid(`${path}.${key}`, v, "must be greater than or equal to 0");
    }
  }
  const grace = p.terminationGracePeriodSeconds;
  if (grace !== undefined && grace !== null) {
    if (opts.kind === "readinessProbe") {
      errs.invalid(
        `${path}.terminationGracePeriodSeconds`,
        grace,
        "must not be set for readinessProbes",
      );
    } else if (grace <= 0) {
      errs.invalid(`${path}.terminationGracePeriodSeconds`, grace, "must be greater than 0");
    }
  }
  // 0 is defaulted to 1 after validation.
  const success = p.successThreshold;
  if (opts.kind !== "readinessProbe" && success !== undefined && success !== null && success > 1) {
    errs.invalid(`${path}.successThreshold`, success, "must be 1");
  }
}

/** postStart and preStop of `container` at `path` (the container's `lifecycle`). */
export function validateLifecycle(
  hooks: { postStart?: V1LifecycleHandler; preStop?: V1LifecycleHandler },
  path: string,
  opts: HandlerOptions,
): void {
  for (const hook of ["postStart", "preStop"] as const) {
    const h = hooks[hook];
    if (h) {
      validateHandler(h, `${path}.${hook}`, {
        ...opts,
        actions: ["exec", "httpGet", "tcpSocket", "sleep"],
      });
    }
  }
}

type Action = "exec" | "httpGet" | "tcpSocket" | "grpc" | "sleep";
type Handler = Partial<Record<Action, unknown>> & V1LifecycleHandler & V1Probe;

function validateHandler(
  h: Handler,
  path: string,
  opts: HandlerOptions & { actions: readonly Action[] },
): void {
  const { errs } = opts;
  const set = opts.actions.filter((a) => h[a] !== undefined && h[a] !== null);
  if (set.length === 0) {
    errs.required(path, "must specify a handler type");
    return;
  }
  for (const extra of set.slice(1)) {
    errs.forbidden(`${path}.${extra}`, "may not specify more than 1 handler type");
  }
  const action = set[0];
  const ap = `${path}.${action}`;
  switch (action) {
    case "exec":
      if ((h.exec?.command ?? []).length === 0) errs.required(`${ap}.command`);
      break;
    case "httpGet":
      validateHttpGet(h.httpGet!, ap, opts);
      break;
    case "tcpSocket":
      validatePort(h.tcpSocket!.port, `${ap}.port`, opts);
      break;
    case "grpc": {
      const why = portNumber(h.grpc!.port);
      if (why) errs.invalid(`${ap}.port`, h.grpc!.port, why);
      break;
    }
    case "sleep": {
      const seconds = h.sleep!.seconds;
      if (seconds < 0 || seconds > opts.gracePeriodSeconds) {
        errs.invalid(
          `${ap}.seconds`,
          seconds,
          `must be non-negative and less than terminationGracePeriodSeconds (${opts.gracePeriodSeconds})`,
        );
      }
      break;
    }
  }
}

function validateHttpGet(a: V1HTTPGetAction, path: string, opts: HandlerOptions) {
  const { errs } = opts;
  // An empty path and scheme are defaulted ("/" and HTTP) after validation.
  validatePort(a.port, `${path}.port`, opts);
  errs.oneOf(`${path}.scheme`, a.scheme, SCHEMES);
  for (const header of a.httpHeaders ?? []) {
    const why = httpHeaderName(header.name ?? "");
    if (why) errs.invalid(`${path}.httpHeaders`, header.name ?? "", why);
  }
}

/**
 * A port number or the name of one of the container's ports. Upstream checks only the name's
 * form; a name the container does not declare would fail every probe or hook, so it is refused.
 */
function validatePort(port: number | string | undefined, path: string, opts: HandlerOptions) {
  const { errs } = opts;
  if (port === undefined || port === null) {
    errs.required(path);
  } else if (typeof port === "number") {
    const why = portNumber(port);
    if (why) errs.invalid(path, port, why);
  } else {
    const why = portName(port);
    if (why) errs.invalid(path, port, why);
    else if (!(opts.container.ports ?? []).some((p) => p.name === port)) {
      errs.notFound(path, port, "no port of the container has this name");
    }
  }
}
