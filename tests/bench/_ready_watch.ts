/**
 * When each bench pod became Running and Ready in the API server, as `kubectl get pods -w` shows
 * it: the agent's own reflector (list, then watch, re-listing after a broken or ended stream).
 * A bare watch that ends quietly would leave the bench waiting for events that never come (one
 * profiling run timed out with 0 of 110 pods Ready after the agent had started all of them), so
 * a break is survived, and the reflector's complaints go into the error if the wait still fails.
 * A pod first seen Ready in a re-list is timed by its Ready condition's lastTransitionTime (one
 * second resolution) rather than by the re-list, which may come much later.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { type ApiClient, runReflector } from "../../src/apiclient/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";

export interface ReadyWatch {
  /** name → performance.now() when first seen Ready. */
  readonly ready: ReadonlyMap<string, number>;
  /** Resolves when every wanted pod was seen Ready. */
  readonly all: Promise<void>;
  /** Resolves once the signal aborts and the watch has stopped. */
  readonly stopped: Promise<void>;
  /** What the reflector logged (lists, broken watches), for an error message. */
  describe(): string;
}

export function isRunningReady(p: V1Pod): boolean {
  return p.status?.phase === "Running" && readyCondition(p)?.status === "True";
}

function readyCondition(p: V1Pod) {
  return p.status?.conditions?.find((x) => x.type === "Ready");
}

export function watchReady(api: ApiClient, opts: {
  namespace: string;
  fieldSelector: string;
  labelSelector: string;
  names: readonly string[];
  signal: AbortSignal;
}): ReadyWatch {
  const wanted = new Set(opts.names);
  const ready = new Map<string, number>();
  const complaints: string[] = [];
  let lists = 0;
  let fromRelist = 0;
  let resolveAll: () => void = () => {};
  const all = new Promise<void>((r) => resolveAll = r);
  const see = (p: V1Pod, inRelist = false) => {
    const name = p.metadata?.name ?? "";
    if (!wanted.has(name) || ready.has(name) || !isRunningReady(p)) return;
    let at = performance.now();
    if (inRelist) {
      fromRelist++;
      // A string on the wire (RFC 3339, whole seconds); the client's type says Date.
      const t: unknown = readyCondition(p)?.lastTransitionTime;
      const since = t instanceof Date ? t.getTime() : Date.parse(String(t ?? ""));
      if (Number.isFinite(since)) at -= Math.max(0, Date.now() - since);
    }
    ready.set(name, at);
    if (ready.size === wanted.size) resolveAll();
  };
  const logger = createLogger({ verbosity: 0, write: (line) => complaints.push(line) });
  const stopped = runReflector<V1Pod>({
    client: api,
    path: `/api/v1/namespaces/${opts.namespace}/pods`,
    fieldSelector: opts.fieldSelector,
    labelSelector: opts.labelSelector,
    clock: realClock,
    logger,
    onList: (items) => {
      lists++;
      for (const p of items) see(p, lists > 1);
    },
    onEvent: (_type, p) => see(p),
  }, { signal: opts.signal });
  return {
    ready,
    all,
    stopped,
    describe: () =>
      `the watch listed ${lists} times (${fromRelist} pods first seen Ready in a re-list); ` +
      (complaints.length ? `it logged: ${complaints.slice(-3).join(" | ")}` : "it logged nothing"),
  };
}
