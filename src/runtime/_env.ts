/**
 * Container environment: `$(VAR)` expansion and the env list the kubelet hands the runtime
 * (kubelet_pods.go makeEnvironmentVariables, third_party/forked/golang/expansion).
 */
import type { V1Container, V1EnvVarSource, V1Pod } from "@kubernetes/client-node";
import { availableParallelism, totalmem } from "node:os";
import type { KeyValue } from "../cri/types.ts";
import { ConfigError } from "../util/errors.ts";
import { quantityMilliValue, quantityValue } from "../util/quantity.ts";
import {
  cpuLimitMilli,
  cpuRequestMilli,
  memoryLimitBytes,
  memoryRequestBytes,
} from "./_resources.ts";

/**
 * Kubernetes `$(VAR)` expansion: `$(NAME)` is replaced by `lookup(NAME)` or left as written when
 * unknown; `$$` is an escaped `$`; an unterminated `$(` and a lone or trailing `$` are kept.
 */
export function expandVars(input: string, lookup: (name: string) => string | undefined): string {
  let out = "";
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== "$" || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === "$") {
      out += "$";
    } else if (next === "(") {
      const close = input.indexOf(")", cursor + 2);
      if (close === -1) {
        out += "$(";
      } else {
        const name = input.slice(cursor + 2, close);
        out += lookup(name) ?? `$(${name})`;
        advance = close - cursor;
      }
    } else {
      // Not an expression: keep the operator and the next character (a whole code point).
      const ch = String.fromCodePoint(input.codePointAt(cursor + 1)!);
      out += "$" + ch;
      advance = ch.length;
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** Pod facts that env `fieldRef`s read and that the spec does not hold. */
export interface EnvContext {
  podIP?: string;
  podIPs?: string[];
  hostIP?: string;
  /** All node IPs for status.hostIPs; defaults to [hostIP]. */
  hostIPs?: string[];
  nodeName: string;
  /** Defaults to pod.spec.serviceAccountName. */
  serviceAccountName?: string;
  /** For resourceFieldRef limits when the container sets none; defaults to this machine. */
  nodeAllocatable?: { cpuMilli: number; memoryBytes: number };
}

const LABEL_REF = /^metadata\.(labels|annotations)\['(.+)'\]$/;

function fieldRefValue(pod: V1Pod, fieldPath: string, ctx: EnvContext, field: string): string {
  const m = LABEL_REF.exec(fieldPath);
  if (m) {
    const map = m[1] === "labels" ? pod.metadata?.labels : pod.metadata?.annotations;
    return map?.[m[2]] ?? "";
  }
  const podIPs = ctx.podIPs ?? (ctx.podIP ? [ctx.podIP] : []);
  const hostIPs = ctx.hostIPs ?? (ctx.hostIP ? [ctx.hostIP] : []);
  // A host-network pod has no sandbox IP; upstream reports the node's IPs as the pod's.
  const effPodIPs = podIPs.length === 0 && pod.spec?.hostNetwork ? hostIPs : podIPs;
  switch (fieldPath) {
    case "metadata.name":
      return pod.metadata?.name ?? "";
    case "metadata.namespace":
      return pod.metadata?.namespace ?? "";
    case "metadata.uid":
      return pod.metadata?.uid ?? "";
    case "spec.nodeName":
      return ctx.nodeName;
    case "spec.serviceAccountName":
      return ctx.serviceAccountName ?? pod.spec?.serviceAccountName ?? "";
    case "status.podIP":
      return ctx.podIP ?? effPodIPs[0] ?? "";
    case "status.podIPs":
      return effPodIPs.join(",");
    case "status.hostIP":
      return ctx.hostIP ?? hostIPs[0] ?? "";
    case "status.hostIPs":
      return hostIPs.join(",");
  }
  throw new ConfigError(field, `unsupported fieldRef fieldPath ${JSON.stringify(fieldPath)}`);
}

function resourceFieldValue(
  pod: V1Pod,
  container: V1Container,
  src: NonNullable<V1EnvVarSource["resourceFieldRef"]>,
  ctx: EnvContext,
  field: string,
): string {
  let target = container;
  if (src.containerName) {
    const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
    const found = all.find((c) => c.name === src.containerName);
    if (!found) {
      throw new ConfigError(
        field,
        `resourceFieldRef names unknown container ${JSON.stringify(src.containerName)}`,
      );
    }
    target = found;
  }
  const alloc = ctx.nodeAllocatable ??
    { cpuMilli: availableParallelism() * 1000, memoryBytes: totalmem() };
  const divisor = src.divisor ?? "1";
  const cpu = (milli: number) => {
    const d = quantityMilliValue(divisor, { field: `${field}.divisor` });
    if (d <= 0) throw new ConfigError(`${field}.divisor`, "must be positive");
    return String(Math.ceil(milli / d));
  };
  const mem = (bytes: number) => {
    const d = quantityValue(divisor, { field: `${field}.divisor` });
    if (d <= 0) throw new ConfigError(`${field}.divisor`, "must be positive");
    return String(Math.ceil(bytes / d));
  };
  switch (src.resource) {
    case "limits.cpu":
      return cpu(cpuLimitMilli(target) || alloc.cpuMilli);
    case "requests.cpu":
      return cpu(cpuRequestMilli(target));
    case "limits.memory":
      return mem(memoryLimitBytes(target) || alloc.memoryBytes);
    case "requests.memory":
      return mem(memoryRequestBytes(target));
  }
  throw new ConfigError(
    field,
    `unsupported resourceFieldRef resource ${JSON.stringify(src.resource)}`,
  );
}

/**
 * The container's environment in declaration order (envFrom first, then env), each `value`
 * expanded against the variables before it; a later duplicate overrides the earlier value.
 * configMap/secret references need an API server: they throw ConfigError (which the caller
 * reports as CreateContainerConfigError) unless marked optional, in which case they are skipped.
 */
export function buildEnv(pod: V1Pod, container: V1Container, ctx: EnvContext): KeyValue[] {
  const env = new Map<string, string>();
  const where = `containers[${container.name}]`;
  for (const [i, from] of (container.envFrom ?? []).entries()) {
    const ref = from.configMapRef ?? from.secretRef;
    const kind = from.configMapRef ? "configMap" : "secret";
    if (ref?.optional) continue;
    throw new ConfigError(
      `${where}.envFrom[${i}]`,
      `${kind} ${JSON.stringify(ref?.name ?? "")} cannot be read: no API server is configured`,
    );
  }
  const lookup = (name: string) => env.get(name);
  for (const v of container.env ?? []) {
    const field = `${where}.env[${v.name}]`;
    let value = v.value ?? "";
    if (value !== "") {
      value = expandVars(value, lookup);
    } else if (v.valueFrom) {
      const src = v.valueFrom;
      if (src.fieldRef) {
        value = fieldRefValue(pod, src.fieldRef.fieldPath, ctx, field);
      } else if (src.resourceFieldRef) {
        value = resourceFieldValue(pod, container, src.resourceFieldRef, ctx, field);
      } else {
        const ref = src.configMapKeyRef ?? src.secretKeyRef;
        const kind = src.configMapKeyRef ? "configMap" : src.secretKeyRef ? "secret" : "source";
        if (ref?.optional) continue;
        throw new ConfigError(
          field,
          ref
            ? `${kind} ${JSON.stringify(ref.name ?? "")} key ${
              JSON.stringify(ref.key)
            } cannot be read: no API server is configured`
            : "unsupported valueFrom source",
        );
      }
    }
    env.set(v.name, value);
  }
  return [...env].map(([key, value]) => ({ key, value }));
}

/** Expands `$(VAR)` in command or args against the final container env. */
export function expandCommand(args: string[] | undefined, env: KeyValue[]): string[] | undefined {
  if (!args) return undefined;
  const map = new Map(env.map((kv) => [kv.key, kv.value]));
  return args.map((a) => expandVars(a, (n) => map.get(n)));
}
