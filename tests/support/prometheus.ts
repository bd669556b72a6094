/**
 * Prometheus' own `promtool` (and the `prometheus` server) for the metrics suites, so a test
 * checks denolet's exposition with the parser Prometheus scrapes it with. By default Debian's
 * package (Prometheus 2.42, unpacked in seconds; the parser and the service discovery the tests
 * use are the same); DENOLET_DEV_PROMETHEUS=source builds v3.13 once per machine from the Go
 * module proxy beside the control plane's binaries instead (about 8 minutes).
 *
 * Prometheus v3's Go module is published as v0.3xx.y (v3.13.0 → v0.313.0). Its go.mod pins
 * cloud.google.com/go with a `replace` and excludes broken versions; a dependent module ignores
 * both, so the throwaway module repeats them.
 */
import { stringify as toYaml } from "yaml";
import { buildMissing, type GoBuild, throwawayGoMod } from "./_go_build.ts";
import { debBinaries } from "./_deb_binaries.ts";
import { devDir } from "./containerd.ts";
import { DevSetupError, run } from "./_exec.ts";
import { waitFor } from "./wait.ts";

/** Prometheus v3.13.0. */
export const PROMETHEUS_MODULE_VERSION = "v0.313.0";
const MODULE = "github.com/prometheus/prometheus";

export interface PrometheusBinaries {
  promtool: string;
  prometheus: string;
}

/** Unpacks (or builds) promtool and prometheus unless cached; returns their paths. */
export async function ensurePrometheus(
  opts: { log?: (s: string) => void; signal?: AbortSignal } = {},
): Promise<PrometheusBinaries> {
  const log = opts.log ?? ((s: string) => console.error(`[denolet-prometheus] ${s}`));
  if (Deno.env.get("DENOLET_DEV_PROMETHEUS") !== "source") {
    const bins = await debBinaries("prometheus", {
      prometheus: "usr/bin/prometheus",
      promtool: "usr/bin/promtool",
    }, { dest: `${devDir()}/prometheus-deb`, log });
    return { prometheus: bins.prometheus, promtool: bins.promtool };
  }
  // The control plane's build root: Go's module cache is shared, and its lock serialises builds.
  const root = `${devDir()}/control-plane`;
  const bin = `${root}/prometheus/${PROMETHEUS_MODULE_VERSION}/bin`;
  const build: GoBuild = {
    what: `prometheus ${PROMETHEUS_MODULE_VERSION}`,
    module: MODULE,
    version: PROMETHEUS_MODULE_VERSION,
    bin,
    commands: {
      prometheus: `${MODULE}/cmd/prometheus`,
      promtool: `${MODULE}/cmd/promtool`,
    },
    ldflags: "-s -w",
    goMod: (upstream) =>
      throwawayGoMod("denolet.test/prometheus-build", upstream, [
        `require ${MODULE} ${PROMETHEUS_MODULE_VERSION}`,
        ...replaceAndExclude(upstream),
      ]),
  };
  await buildMissing(root, [build], { log, signal: opts.signal });
  return { promtool: `${bin}/promtool`, prometheus: `${bin}/prometheus` };
}

/** The `replace` and `exclude` directives of a go.mod (single lines and blocks), verbatim. */
export function replaceAndExclude(goMod: string): string[] {
  const out: string[] = [];
  const lines = goMod.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!/^(replace|exclude)\b/.test(line)) continue;
    if (line.endsWith("(")) {
      const block = [line];
      while (i + 1 < lines.length && lines[i].trim() !== ")") block.push(lines[++i].trim());
      out.push(block.join("\n"));
    } else {
      out.push(line);
    }
  }
  return out;
}

/** A lint problem `promtool check metrics` reported, or a parse error. */
export interface PromtoolResult {
  ok: boolean;
  /** What promtool printed (problems one per line). */
  output: string;
}

/**
 * Runs `promtool check metrics` on an exposition. It exits non-zero on a parse error or a lint
 * problem; `--lint=none` leaves only parse errors (duplicate series, bad syntax).
 */
export async function promtoolCheckMetrics(
  promtool: string,
  text: string,
  opts: { lint?: "all" | "none"; signal?: AbortSignal } = {},
): Promise<PromtoolResult> {
  const child = new Deno.Command(promtool, {
    args: ["check", "metrics", ...(opts.lint === "none" ? ["--lint=none"] : [])],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    signal: opts.signal,
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  const dec = new TextDecoder();
  return { ok: out.success, output: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

/** `prometheus --version`'s first line (for logs). */
export async function prometheusVersion(bin: string): Promise<string> {
  return (await run(bin, ["--version"])).split("\n")[0];
}

/** A Prometheus server run for a test, and its query API. */
export interface PrometheusServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** An instant query's result vector (`/api/v1/query`); throws on an API error. */
  query(expr: string): Promise<PromSample[]>;
  /** The scrape targets' health (`/api/v1/targets`), for failure messages. */
  targets(): Promise<unknown>;
  /** The server's log so far. */
  log(): Promise<string>;
  stop(): Promise<void>;
}

export interface PromSample {
  metric: Record<string, string>;
  value: number;
}

/**
 * Starts `prometheus` on a free loopback port with `scrapeConfigs` (Prometheus' own YAML shape)
 * and a throwaway TSDB, and waits until it is ready. `stop` ends it and removes its files.
 */
export async function startPrometheus(
  bin: string,
  scrapeConfigs: unknown[],
  opts: { port: number; scrapeInterval?: string; signal?: AbortSignal },
): Promise<PrometheusServer> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-prometheus-" });
  const interval = opts.scrapeInterval ?? "2s";
  await Deno.writeTextFile(
    `${dir}/prometheus.yml`,
    toYaml({
      global: {
        scrape_interval: interval,
        scrape_timeout: interval,
        evaluation_interval: interval,
      },
      scrape_configs: scrapeConfigs,
    }),
  );
  // Its log goes to a file, so a failing test can show it and a chatty server fills no pipe.
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" "$@" >"$PROMETHEUS_LOG" 2>&1',
      bin,
      `--config.file=${dir}/prometheus.yml`,
      `--storage.tsdb.path=${dir}/data`,
      `--web.listen-address=127.0.0.1:${opts.port}`,
      "--log.level=warn",
    ],
    env: { PROMETHEUS_LOG: `${dir}/prometheus.log` },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${opts.port}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGTERM");
    } catch (err) {
      if (!(err instanceof TypeError)) throw err; // already exited
    }
    await child.status;
    await Deno.remove(dir, { recursive: true }).catch(() => undefined);
  };
  const getJson = async (path: string) => {
    const res = await fetch(`${url}${path}`, { signal: opts.signal });
    const body = await res.json();
    if (body.status !== "success") {
      throw new DevSetupError(`Prometheus ${path}: ${body.error ?? res.status}`);
    }
    return body.data;
  };
  try {
    await waitFor(async () => {
      const res = await fetch(`${url}/-/ready`).catch(() => undefined);
      await res?.body?.cancel();
      return res?.ok;
    }, { timeoutMs: 60_000, what: "prometheus ready", signal: opts.signal });
  } catch (err) {
    const log = await Deno.readTextFile(`${dir}/prometheus.log`).catch(() => "(no log)");
    await stop();
    throw new DevSetupError(`prometheus did not become ready; its log:\n${log}`, { cause: err });
  }
  return {
    url,
    async query(expr) {
      const data = await getJson(`/api/v1/query?query=${encodeURIComponent(expr)}`);
      return (data.result as { metric: Record<string, string>; value: [number, string] }[])
        .map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    targets: () => getJson("/api/v1/targets"),
    log: () => Deno.readTextFile(`${dir}/prometheus.log`).catch((err) => `(no log: ${err})`),
    stop,
  };
}

/** One sample of a parsed exposition (label values still escaped as written). */
export interface ExpositionSample {
  labels: Record<string, string>;
  value: number;
  ts?: number;
}

/**
 * Parses a text exposition by family name; throws on a malformed line, a sample before its
 * family's TYPE, or a series (name and labels) written twice.
 */
export function parseExposition(text: string): Map<string, ExpositionSample[]> {
  const out = new Map<string, ExpositionSample[]>();
  const seen = new Set<string>();
  const types = new Set<string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const meta = /^# (HELP|TYPE) (\w+) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === "TYPE") types.add(meta[2]);
      continue;
    }
    const m = /^(\w+)(?:\{(.*)\})? (\S+)(?: (\d+))?$/.exec(line);
    if (!m) throw new Error(`malformed exposition line: ${line}`);
    const family = types.has(m[1]) ? m[1] : m[1].replace(/_(bucket|sum|count)$/, "");
    if (!types.has(family)) throw new Error(`${m[1]} has no TYPE before its samples`);
    const series = `${m[1]}{${m[2] ?? ""}}`;
    if (seen.has(series)) throw new Error(`duplicate series: ${line}`);
    seen.add(series);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    const list = out.get(m[1]) ?? [];
    list.push({ labels, value: Number(m[3]), ts: m[4] ? Number(m[4]) : undefined });
    out.set(m[1], list);
  }
  return out;
}

/** The first sample of `name` whose labels include `labels`. */
export function findSample(
  series: Map<string, ExpositionSample[]>,
  name: string,
  labels: Record<string, string>,
): ExpositionSample | undefined {
  return series.get(name)?.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}
