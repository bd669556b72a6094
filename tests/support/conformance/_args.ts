/**
 * `deno task conformance` arguments and the Ginkgo command line they make. Pure.
 */
import type { ContainerdFlavour } from "../containerd.ts";
import type { NodeKind } from "./_report.ts";

/** What upstream's node conformance jobs run: the NodeConformance specs a cluster can host. */
export const DEFAULT_FOCUS = "\\[NodeConformance\\]";
/**
 * Serial, slow, flaky and disruptive specs, and those needing a feature (`[Feature:X]`, which
 * includes `[Feature:OffByDefault]` for off-by-default gates) or an alpha gate (`[Alpha]`).
 * Beta gates on by default (`[FeatureGate:X] [Beta]`) stay in, as in upstream's jobs.
 */
export const DEFAULT_SKIP =
  "\\[Serial\\]|\\[Slow\\]|\\[Flaky\\]|\\[Disruptive\\]|\\[Feature:|\\[Alpha\\]";
export const DEFAULT_PROCS = 4;

export interface ConformanceArgs {
  kubelet: NodeKind;
  focus: string;
  skip: string;
  procs: number;
  /** Ginkgo's suite timeout (`--timeout`). */
  timeout: string;
  /** Where each agent's record and the report go. */
  results?: string;
  /** Rebuild the report from the saved records without running anything. */
  reportOnly: boolean;
  /** Build everything (binaries, images) and stop. */
  buildOnly: boolean;
  containerd?: ContainerdFlavour;
  /** Run denolet as of this commit instead of the work tree. */
  agentCommit?: string;
  help: boolean;
}

/** Thrown for a command line that cannot be used; the message says why. */
export class UsageError extends Error {}

export const USAGE = `deno task conformance [options]

Runs the upstream e2e suite's [NodeConformance] specs (k8s v1.37.2) against denolet joined to
the test control plane, or against the upstream kubelet v1.37.2, and writes a side-by-side report.

  --kubelet denolet|upstream  the node agent under test (default denolet)
  --focus REGEX               Ginkgo --focus (default ${DEFAULT_FOCUS}); a run with another
                              focus or skip updates only the specs it ran
  --skip REGEX                Ginkgo --skip (default ${DEFAULT_SKIP})
  --procs N                   Ginkgo processes (default ${DEFAULT_PROCS})
  --timeout DURATION          Ginkgo suite timeout (default 4h)
  --results DIR               records and report (default <dev dir>/conformance/results)
  --containerd system|upstream  the private runtime's containerd (default $DENOLET_DEV_CONTAINERD)
  --agent-commit REV          run denolet as of commit REV (default: the work tree as it is)
  --report-only               rebuild report.md / report.json from the saved records
  --build-only                build e2e.test, ginkgo, agnhost and the images, then stop
`;

export function parseArgs(argv: string[]): ConformanceArgs {
  const out: ConformanceArgs = {
    kubelet: "denolet",
    focus: DEFAULT_FOCUS,
    skip: DEFAULT_SKIP,
    procs: DEFAULT_PROCS,
    timeout: "4h",
    reportOnly: false,
    buildOnly: false,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = () => {
      if (eq > 0) return arg.slice(eq + 1);
      if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
      return argv[++i];
    };
    switch (flag) {
      case "--kubelet": {
        const v = value();
        if (v !== "denolet" && v !== "upstream") {
          throw new UsageError(`--kubelet ${v}: expected denolet or upstream`);
        }
        out.kubelet = v;
        break;
      }
      case "--focus":
        out.focus = nonEmpty(flag, value());
        break;
      case "--skip":
        out.skip = value();
        break;
      case "--procs": {
        const v = value();
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) throw new UsageError(`--procs ${v}: expected 1 or more`);
        out.procs = n;
        break;
      }
      case "--timeout": {
        const v = value();
        if (!/^(\d+h)?(\d+m)?(\d+s)?$/.test(v) || v === "") {
          throw new UsageError(`--timeout ${v}: expected a Go duration such as 4h or 90m`);
        }
        out.timeout = v;
        break;
      }
      case "--results":
        out.results = nonEmpty(flag, value());
        break;
      case "--containerd": {
        const v = value();
        if (v !== "system" && v !== "upstream") {
          throw new UsageError(`--containerd ${v}: expected system or upstream`);
        }
        out.containerd = v;
        break;
      }
      case "--agent-commit":
        out.agentCommit = nonEmpty(flag, value());
        break;
      case "--report-only":
        out.reportOnly = true;
        break;
      case "--build-only":
        out.buildOnly = true;
        break;
      case "-h":
      case "--help":
        out.help = true;
        break;
      default:
        throw new UsageError(`unknown argument ${arg}`);
    }
  }
  return out;
}

/** True when the run covers the whole selection, so it replaces the agent's record. */
export function isFullRun(a: Pick<ConformanceArgs, "focus" | "skip">): boolean {
  return a.focus === DEFAULT_FOCUS && a.skip === DEFAULT_SKIP;
}

export interface GinkgoCommand {
  ginkgo: string;
  e2eTest: string;
  kubeconfig: string;
  kubectl: string;
  /** The e2e suite's --report-dir (junit_01.xml). */
  reportDir: string;
}

/** `ginkgo` arguments: Ginkgo's own flags, the test binary, then the suite's flags after `--`. */
export function ginkgoArgs(
  a: Pick<ConformanceArgs, "focus" | "skip" | "procs" | "timeout">,
  c: GinkgoCommand,
): string[] {
  return [
    `--procs=${a.procs}`,
    `--focus=${a.focus}`,
    ...(a.skip ? [`--skip=${a.skip}`] : []),
    `--timeout=${a.timeout}`,
    "--no-color",
    // A spec still running after 5 minutes says where it waits.
    "--poll-progress-after=300s",
    "--poll-progress-interval=120s",
    c.e2eTest,
    "--",
    `--kubeconfig=${c.kubeconfig}`,
    "--provider=skeleton",
    `--report-dir=${c.reportDir}`,
    `--kubectl-path=${c.kubectl}`,
    // The skeleton provider has no machines to collect logs from.
    "--disable-log-dump",
  ];
}

function nonEmpty(flag: string, v: string): string {
  if (v === "") throw new UsageError(`${flag} needs a non-empty value`);
  return v;
}
